"""Reader for MUC-7 coreference files: SGML ``<COREF>`` markup in running text.

As the MUC-7 Coreference Task Definition (Hirschman & Chinchor 1998) writes it::

    <DOC><DOCNO> nyt960214.0704 </DOCNO><TEXT>
    <COREF ID="1" TYPE="IDENT" MIN="Group">Lawson Mardon Group Ltd.</COREF> said
    <COREF ID="2" TYPE="IDENT" REF="1">it</COREF> ...
    </TEXT></DOC>

* Documents are ``<DOC>`` … ``</DOC>``, named by their ``<DOCNO>`` (else ``<DOCID>``, else
  their rank 1, 2, …). A file without ``<DOC>`` is one document.
* Tokens are the character data of the document, outside ``DOCNO``/``DOCID``, cut into runs
  of word characters and single punctuation characters (``Ltd.`` → ``Ltd`` ``.``); every tag
  boundary is a token boundary. Key and response are cut the same way, so their tokens align
  wherever their text does. Character entities (``&amp;``) are left as written.
* ``<COREF>`` tags nest; each is a markable over the tokens it encloses. ``ID`` is required
  and unique in the document. ``REF`` links a markable to another (an IDENT link); chains are
  the connected components of the links (scoring does not depend on how a chain is encoded,
  §8 of the task definition). The entity id of a chain is the ``ID`` of its first markable.
* ``MIN`` (key only) is the minimum string: its tokens are looked up inside the markable and
  become ``min_span``; a MIN not found there is a warning and no min span.
* ``STATUS="OPT"`` (key only) marks an optional markable; it is kept in
  ``Markable.attributes`` as ``("STATUS", "OPT")`` together with ``TYPE`` and ``MIN``. The
  engine scores such a key markable only when the response marks the same string.
* Other tags are skipped. Bad markup (an unclosed or unopened COREF, a missing or repeated ID,
  a REF to no ID) raises ScoringInputError ``FILE:LINE: ...``.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Document, Markable
from scoring.readers.text import read_collecting, read_text

FORMAT = "muc7"

_TAG = re.compile(r"<(/?)([A-Za-z][\w.:-]*)([^<>]*)>")
_ATTRIBUTE = re.compile(r"""([A-Za-z][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_NAME_TAGS = ("DOCNO", "DOCID")


def sniff(text_head: str) -> bool:
    """True when the text holds ``<COREF`` tags or starts with an SGML ``<DOC>``."""
    head = text_head.lstrip()
    return bool(re.search(r"<COREF\b", text_head, re.IGNORECASE)) or bool(
        re.match(r"<DOC>", head, re.IGNORECASE)
    )


def tokenize(text: str) -> list[str]:
    """Runs of word characters and single punctuation characters."""
    return _TOKEN.findall(text)


def read(
    path: str | Path, *, warnings: list[str] | None = None, collect: list[Any] | None = None
) -> list[Document]:
    """Read every ``<DOC>`` of a MUC-7 coreference file.

    ``warnings`` collects problems that do not stop reading (``FILE:LINE: message``).
    ``collect``: None raises the first ScoringInputError; a list receives it instead and
    no document is returned (the exploded reader's convention).
    """
    return read_collecting(_read, path, warnings, collect)


def _read(path: str, warnings: list[str] | None) -> list[Document]:
    text = read_text(path)
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(offset: int) -> int:
        return bisect.bisect_right(newlines, offset - 1) + 1

    documents: list[Document] = []
    doc: _Builder | None = None
    pos = 0
    implicit = not re.search(r"<DOC>", text, re.IGNORECASE)
    if implicit:
        doc = _Builder(path, 1, warnings)
    name_depth = 0
    for match in _TAG.finditer(text):
        if doc is not None:
            doc.text(text[pos : match.start()], line_of(pos), name_depth > 0)
        pos = match.end()
        closing, tag, rest = match.group(1), match.group(2).upper(), match.group(3)
        line = line_of(match.start())
        if tag == "DOC":
            doc = _doc_tag(path, line, closing, doc, implicit, documents, warnings)
            continue
        if doc is None:
            continue
        if tag in _NAME_TAGS:
            name_depth += -1 if closing else 1
            name_depth = max(name_depth, 0)
            continue
        if tag == "COREF":
            if closing:
                doc.close(line)
            else:
                doc.open(line, _attributes(rest))
    if doc is not None:
        doc.text(text[pos:], line_of(pos), False)
        if not implicit:
            raise ScoringInputError(path, doc.line, "<DOC> without </DOC>", code="nesting")
        documents.append(doc.build(1))
    if not documents:
        raise ScoringInputError(
            path,
            None,
            "no document (expected <DOC> … </DOC> with <COREF> markup)",
            code="empty_file",
        )
    return documents


def _doc_tag(
    path: str,
    line: int,
    closing: str | None,
    doc: _Builder | None,
    implicit: bool,
    documents: list[Document],
    warnings: list[str] | None,
) -> _Builder | None:
    """The document open after a ``<DOC>`` (a new one) or a ``</DOC>`` (none: the one it
    closes goes to ``documents``)."""
    if closing:
        if doc is None or implicit:
            raise ScoringInputError(path, line, "</DOC> without <DOC>", code="nesting")
        documents.append(doc.build(len(documents) + 1))
        return None
    if doc is not None and not implicit:
        raise ScoringInputError(
            path,
            line,
            "<DOC> inside a document (expected </DOC> first)",
            code="nesting",
        )
    return _Builder(path, line, warnings)


def _attributes(rest: str) -> dict[str, str]:
    """A ``<COREF …>`` tag's attributes, by upper-case name."""
    return {
        m.group(1).upper(): next(g for g in m.groups()[1:] if g is not None)
        for m in _ATTRIBUTE.finditer(rest)
    }


class _Builder:
    def __init__(self, path: str, line: int, warnings: list[str] | None) -> None:
        self.path = path
        self.line = line
        self.warnings = warnings
        self.tokens: list[str] = []
        self.token_lines: list[int] = []
        self.names: list[str] = []
        self.stack: list[tuple[dict[str, str], int, int]] = []  # (attributes, start, line)
        # (attributes, start, end, line)
        self.markables: list[tuple[dict[str, str], int, int, int]] = []

    def fail(self, line: int, message: str, code: str) -> ScoringInputError:
        return ScoringInputError(self.path, line, message, code=code)

    def text(self, chunk: str, line: int, is_name: bool) -> None:
        if is_name:
            self.names.append(chunk.strip())
            return
        for number, piece in enumerate(chunk.split("\n")):
            for token in tokenize(piece):
                self.tokens.append(token)
                self.token_lines.append(line + number)

    def open(self, line: int, attributes: dict[str, str]) -> None:
        if not attributes.get("ID"):
            raise self.fail(line, '<COREF> without ID (expected <COREF ID="n" …>)', "missing_id")
        self.stack.append((attributes, len(self.tokens), line))

    def close(self, line: int) -> None:
        if not self.stack:
            raise self.fail(line, "</COREF> closes no open <COREF>", "unbalanced")
        attributes, start, open_line = self.stack.pop()
        end = len(self.tokens) - 1
        if end < start:
            raise self.fail(
                open_line,
                f'<COREF ID="{attributes["ID"]}"> encloses no token '
                "(expected text between <COREF> and </COREF>)",
                "empty_markable",
            )
        self.markables.append((attributes, start, end, open_line))

    def build(self, rank: int) -> Document:
        if self.stack:
            attributes, _, line = self.stack[-1]
            raise self.fail(
                line,
                f'<COREF ID="{attributes["ID"]}"> is never closed (expected </COREF>)',
                "unclosed",
            )
        name = next((n for n in self.names if n), str(rank))
        self.markables.sort(key=lambda m: (m[1], -m[2], m[3]))
        chains = self.chains(self.ids(name), name)
        built = [
            self.markable(attributes, start, end, line, self.markables[chains[index]][0]["ID"])
            for index, (attributes, start, end, line) in enumerate(self.markables)
        ]
        return Document(
            name=name,
            path=self.path,
            line=self.line,
            tokens=tuple(self.tokens),
            identity=tuple(built),
            token_lines=tuple(self.token_lines),
            metadata={"format": FORMAT},
        )

    def ids(self, name: str) -> dict[str, int]:
        """Each markable's index by its ID; an ID used twice is an error."""
        ids: dict[str, int] = {}
        for index, (attributes, _, _, line) in enumerate(self.markables):
            if attributes["ID"] in ids:
                raise self.fail(
                    line,
                    f'COREF ID="{attributes["ID"]}" is used twice in '
                    f"document {name} (expected unique IDs)",
                    "duplicate_id",
                )
            ids[attributes["ID"]] = index
        return ids

    def chains(self, ids: dict[str, int], name: str) -> list[int]:
        """Each markable's chain, as the index of the chain's first markable: the REF links
        joined (a REF to no ID of the document is an error)."""
        parent = list(range(len(self.markables)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for index, (attributes, _, _, line) in enumerate(self.markables):
            ref = attributes.get("REF")
            if not ref:
                continue
            if ref not in ids:
                raise self.fail(
                    line,
                    f'COREF ID="{attributes["ID"]}" has REF="{ref}", '
                    f"which is no COREF ID of document {name}",
                    "dangling_ref",
                )
            a, b = find(index), find(ids[ref])
            if a != b:
                parent[max(a, b)] = min(a, b)  # the root is the chain's first markable
        return [find(index) for index in range(len(parent))]

    def markable(
        self, attributes: dict[str, str], start: int, end: int, line: int, entity: str
    ) -> Markable:
        """One markable of entity ``entity``, with its MIN span where MIN is inside its text
        (a warning where it is not)."""
        min_span = None
        if attributes.get("MIN"):
            min_span = self.find_min(attributes["MIN"], start, end)
            if min_span is None and self.warnings is not None:
                self.warnings.append(
                    f'{self.path}:{line}: MIN="{attributes["MIN"]}" of '
                    f'COREF ID="{attributes["ID"]}" is not inside its '
                    "text; no minimum span"
                )
        kept = tuple(
            (key, attributes[key]) for key in ("TYPE", "MIN", "STATUS") if attributes.get(key)
        )
        return Markable(
            markable_id=attributes["ID"],
            entity_id=entity,
            parts=((start, end),),
            line=line,
            min_span=min_span,
            attributes=kept,
        )

    def find_min(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        wanted = tokenize(text)
        if not wanted:
            return None
        span = self.tokens[start : end + 1]
        for offset in range(len(span) - len(wanted) + 1):
            if span[offset : offset + len(wanted)] == wanted:
                return (start + offset, start + offset + len(wanted) - 1)
        return None
