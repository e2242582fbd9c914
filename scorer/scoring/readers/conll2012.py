"""Reader for CoNLL-2012 files (the format of the CoNLL-2012 reference scorer, scorer.pl).

::

    #begin document (nw/xinhua/00/chtb_0009); part 000
    nw/xinhua/00/chtb_0009  0  0  Xinhua  NNP  (TOP(NP*  ...  (1
    nw/xinhua/00/chtb_0009  0  1  News    NNP  *)        ...  1)
    <blank line between sentences>
    #end document

Columns are split on any whitespace. The word is column 4 (index 3; ``_`` in files of fewer
than five columns, such as the two-column files of the reference suite); coreference is the
last column: ``-`` or ``_`` for none, otherwise brackets ``(1`` (opens a mention of entity
1), ``1)`` (closes the newest open mention of entity 1), ``(1)``, written together or joined
by ``|`` (``(1|(2``, ``(1(3``, ``3)1)``). The document name is everything after
``#begin document`` (``(nw/xinhua/00/chtb_0009); part 000``), as scorer.pl names documents.
Every mention counts, singletons included; there are no split antecedents, zeros or bridging.

CoNLL-2012 semantics for a span marked twice (TC-A-8/A-9 of the reference suite): scorer.pl
keeps the span in the first entity that has it and drops the repeats. The reader does the
same, entities taken in order of their first opening bracket and mentions in file order, and
reports each dropped repeat as a warning. The full rows (parse column included, index 5 in
the 12+ column OntoNotes layout) are kept in ``Document.sentences`` for ``--np-only``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Document, Markable, Sentence
from scoring.readers.text import read_collecting, read_text

FORMAT = "conll"
MIN_COLUMNS = 2  # the reference suite has files of two columns: document and coreference
WORD = 3
PARSE = 5
PARSE_MIN_COLUMNS = 12  # OntoNotes layout: ... POS, parse, lemma, frameset, sense, speaker, NE ...

_BEGIN = re.compile(r"^#\s*begin\s+document\b\s*(.*?)\s*$", re.IGNORECASE)
_END = re.compile(r"^#\s*end\s+document\b", re.IGNORECASE)
_ITEM = re.compile(r"\(([^()|]+)\)|\(([^()|]+)|([^()|]+)\)|\|")


def sniff(text_head: str) -> bool:
    """True when the text opens with a ``#begin document`` line."""
    for line in text_head.splitlines():
        if line.strip():
            return bool(_BEGIN.match(line.strip()))
    return False


def read(
    path: str | Path, *, warnings: list[str] | None = None, collect: list[Any] | None = None
) -> list[Document]:
    """Read every ``#begin document`` … ``#end document`` block of a CoNLL-2012 file.

    ``warnings`` collects problems that do not stop reading (``FILE:LINE: message``).
    ``collect``: None raises the first ScoringInputError; a list receives it instead and
    no document is returned (the exploded reader's convention).
    """
    return read_collecting(_read, path, warnings, collect)


def _read(path: str, warnings: list[str] | None) -> list[Document]:
    documents: list[Document] = []
    builder: _Builder | None = None
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        line = raw.strip()
        if match := _BEGIN.match(line):
            if builder is not None:
                raise ScoringInputError(
                    path,
                    number,
                    f"#begin document inside document "
                    f"{builder.name} (expected #end document first)",
                    code="nesting",
                    document=builder.name,
                )
            builder = _Builder(path, match.group(1), number)
            continue
        if _END.match(line):
            if builder is None:
                raise ScoringInputError(
                    path, number, "#end document without #begin document", code="nesting"
                )
            documents.append(builder.build(number, warnings))
            builder = None
            continue
        if not line:
            if builder is not None:
                builder.end_sentence()
            continue
        if line.startswith("#"):
            continue
        if builder is None:
            raise ScoringInputError(
                path,
                number,
                "token line outside a document (expected "
                "'#begin document (NAME); part NNN' before it)",
                code="outside_document",
            )
        builder.token(number, tuple(line.split()))
    if builder is not None:
        raise ScoringInputError(
            path,
            builder.line,
            f"document {builder.name} has no #end document line",
            code="unclosed_document",
            document=builder.name,
        )
    if not documents:
        raise ScoringInputError(
            path, None, "no '#begin document' line (expected a CoNLL-2012 file)", code="empty_file"
        )
    return documents


class _Builder:
    def __init__(self, path: str, name: str, line: int) -> None:
        self.path = path
        self.name = name
        self.line = line
        self.tokens: list[str] = []
        self.token_lines: list[int] = []
        self.rows: list[tuple[str, ...]] = []
        self.sentences: list[Sentence] = []
        self.open: dict[str, list[tuple[int, int, int]]] = {}  # entity -> [(start, line, order)]
        # (order, entity, start, end, line)
        self.mentions: list[tuple[int, str, int, int, int]] = []
        self.opened = 0

    def fail(self, line: int, message: str, code: str) -> ScoringInputError:
        return ScoringInputError(self.path, line, message, code=code, document=self.name)

    def token(self, number: int, fields: tuple[str, ...]) -> None:
        if len(fields) < MIN_COLUMNS:
            raise self.fail(
                number,
                f"{len(fields)} columns (expected at least {MIN_COLUMNS}: "
                "document, ..., coreference; the word is column 4 when there are "
                "5 or more)",
                "columns",
            )
        position = len(self.tokens)
        self.tokens.append(fields[WORD] if len(fields) > WORD + 1 else "_")
        self.token_lines.append(number)
        self.rows.append(fields)
        cell = fields[-1]
        if cell in ("-", "_"):
            return
        pos = 0
        for match in _ITEM.finditer(cell):
            if match.start() != pos:
                break
            pos = match.end()
            single, opening, closing = match.groups()
            if single is not None:
                self.mentions.append((self.opened, single, position, position, number))
                self.opened += 1
            elif opening is not None:
                self.open.setdefault(opening, []).append((position, number, self.opened))
                self.opened += 1
            elif closing is not None:
                stack = self.open.get(closing)
                if not stack:
                    raise self.fail(
                        number,
                        f"'{closing})' closes no open mention of entity "
                        f"{closing} (expected an earlier '({closing}')",
                        "unopened",
                    )
                start, line, order = stack.pop()
                self.mentions.append((order, closing, start, position, line))
        if pos != len(cell):
            raise self.fail(
                number,
                f"coreference cell {cell!r} (expected '-', or brackets "
                "such as '(1', '1)', '(1)', '(1|(2')",
                "brackets",
            )

    def end_sentence(self) -> None:
        if self.rows:
            self.sentences.append(Sentence((), tuple(self.rows)))
            self.rows = []

    def build(self, end_line: int, warnings: list[str] | None) -> Document:
        self.end_sentence()
        for entity, stack in self.open.items():
            if stack:
                raise self.fail(
                    stack[0][1],
                    f"mention of entity {entity} is never closed "
                    f"(expected '{entity})' before #end document)",
                    "unclosed",
                )
        self.mentions.sort()
        entity_order: dict[str, int] = {}
        for _, entity, *_ in self.mentions:
            entity_order.setdefault(entity, len(entity_order))
        ordered = sorted(self.mentions, key=lambda m: (entity_order[m[1]], m[0]))
        seen: dict[tuple[int, int], str] = {}
        kept: list[tuple[int, str, int, int, int]] = []
        for mention in ordered:
            order, entity, start, end, line = mention
            if (start, end) in seen:
                if warnings is not None:
                    warnings.append(
                        f"{self.path}:{line}: mention {start + 1}-{end + 1} of "
                        f"document {self.name} is repeated (entity {entity}, first in "
                        f"entity {seen[(start, end)]}); read once, as scorer.pl does"
                    )
                continue
            seen[(start, end)] = entity
            kept.append(mention)
        kept.sort()
        identity = tuple(
            Markable(
                markable_id=f"m{order + 1}", entity_id=entity, parts=((start, end),), line=line
            )
            for order, entity, start, end, line in kept
        )
        parse = all(len(row) >= PARSE_MIN_COLUMNS for s in self.sentences for row in s.rows)
        metadata = {"format": FORMAT}
        if parse and self.sentences:
            metadata["parse_column"] = str(PARSE)
        return Document(
            name=self.name,
            path=self.path,
            line=self.line,
            tokens=tuple(self.tokens),
            identity=identity,
            token_lines=tuple(self.token_lines),
            sentences=tuple(self.sentences),
            metadata=metadata,
        )
