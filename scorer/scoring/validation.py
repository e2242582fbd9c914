"""Checking an upload before it is scored: every problem that would stop `scoring.score`,
with the same readers and checks, so that the validator and the scorer never disagree.

- `validate_response(key_path, response_path, options)` (option words) and `validate_pair`
  (a `ScoringOptions`): parse errors of either file, missing and extra documents, token and
  sentence-id mismatches, ElementOf cycles, response problems first;
- `check_response`: the response's own checks, then each key document's comparison with it,
  used by `validate_pair` and by `scoring.skeletons` (a key given as its skeleton).

Re-exported by `scoring.api` and `scoring`, where callers import them from.
"""

from __future__ import annotations

import codecs
import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import repeat
from operator import itemgetter
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Document, Sentence
from scoring.options import ScoringOptions, parse_options
from scoring.pairing import FORM_CHECKED, file_format, read_other
from scoring.plan import ScoringPlan
from scoring.readers import compact, exploded
from scoring.validate import (
    compare_sentences,
    compare_tokens,
    document_checks,
    document_pairing,
    sentence_ids,
)

__all__ = ["check_response", "skeleton_document", "validate_pair", "validate_response"]


def validate_response(
    key_path: str, response_path: str, options: Sequence[str] = (), max_problems: int = 50
) -> list[ScoringInputError]:
    """Every problem that would stop `score_files` (up to ``max_problems``).

    Parse errors of either file, missing and extra documents, token mismatches and ElementOf
    cycles, response problems first. An empty list means the pair scores. `UsageError` is
    raised for bad options. Both files are streamed: the response keeps only its tokens per
    document while the key is read, so memory stays small for large uploads.
    """
    return validate_pair(
        key_path, response_path, options=parse_options(options).options, max_problems=max_problems
    )


def validate_pair(
    key_path: str,
    response_path: str,
    *,
    options: ScoringOptions,
    max_problems: int = 50,
    key_documents: list[tuple[str, int]] | None = None,
    skeleton: dict[str, Any] | None = None,
    warnings: list[str] | None = None,
) -> list[ScoringInputError]:
    """`validate_response` for options given as a `ScoringOptions`. With ``key_documents``
    a list, the key's documents are appended to it as they are read: (name, number of
    tokens), in file order (a gold key checked as a run of itself needs no other reading).
    With ``skeleton`` a dict, it receives the key's `key_skeleton` from the same reading
    (what is read of the key is its skeleton where the key has no problem). With
    ``warnings`` a list, it receives what does not stop scoring but a team should know:
    `misspelt_attributes` of a compact response."""
    plan = ScoringPlan.compile(options)
    problems: list[ScoringInputError] = []
    formats: dict[str, str] = {}
    for side, path in (("key", str(key_path)), ("response", str(response_path))):
        try:
            formats[side] = file_format(path, plan)
        except ScoringInputError as problem:
            problems.append(problem)
    if len(formats) < 2:
        return problems[:max_problems]
    if warnings is not None and formats["response"] == "corefud":
        warnings.extend(misspelt_attributes(str(response_path)))

    read = key_documents
    if skeleton is not None:
        skeleton.update(format=formats["key"], documents=[])

    def key_docs() -> Iterator[Document]:
        for doc in read_side(str(key_path), formats["key"], plan, "key", problems):
            if read is not None:
                read.append((doc.name, len(doc.tokens)))
            if skeleton is not None:
                skeleton["documents"].append(skeleton_document(doc, formats["key"]))
            problems.extend(document_checks(doc, plan))
            yield doc

    return check_response(
        response_path, formats, key_docs(), str(key_path), plan, problems, max_problems
    )


def skeleton_document(doc: Document, kind: str) -> dict[str, Any]:
    return {
        "name": doc.name,
        "tokens": list(doc.tokens),
        "sent_ids": sentence_ids(doc) if kind == "corefud" else [],
    }


_new_sentence = partial(tuple.__new__, Sentence)


def id_sentences(ids: Iterable[str]) -> tuple[Sentence, ...]:
    """A sentence holding only ``# sent_id = ID`` for each id: what a response's sentences
    are compared with the key's by (`compare_sentences`); made by C-level steps, as a
    document can have thousands."""
    comments = zip(map("# sent_id = {}".format, ids))
    return tuple(map(_new_sentence, zip(comments, repeat(()))))


def read_side(
    path: str, kind: str, plan: ScoringPlan, side: str, problems: list[ScoringInputError]
) -> Iterator[Document]:
    if kind == "ua":
        return exploded.iter_documents(path, collect=problems, **plan.reader(side).settings())
    if kind == "corefud":
        return compact.iter_documents(path, collect=problems, layout=False)
    return iter(read_other(path, kind, problems))


def check_response(
    response_path: str,
    formats: dict[str, str],
    key_documents: Iterator[Document],
    key_label: str,
    plan: ScoringPlan,
    problems: list[ScoringInputError],
    max_problems: int,
) -> list[ScoringInputError]:
    """The response's own checks, then each key document's comparison with it."""
    forms = formats["key"] in FORM_CHECKED and formats["response"] in FORM_CHECKED
    sentences = formats["key"] == formats["response"] == "corefud"
    response_tokens: dict[str, Document] = {}
    response_names: list[tuple[str, int]] = []
    for doc in read_side(str(response_path), formats["response"], plan, "response", problems):
        response_names.append((doc.name, doc.line))
        problems.extend(document_checks(doc, plan))
        # keep only what the key is compared with: tokens (and sentence ids, compact files)
        layout = id_sentences(sentence_ids(doc)) if sentences else ()
        response_tokens[doc.name] = Document(
            doc.name,
            doc.path,
            doc.line,
            tuple(map(sys.intern, doc.tokens)),
            token_lines=array("l", doc.token_lines),  # type: ignore[arg-type]
            sentences=layout,
        )
        if len(problems) >= max_problems:
            return problems[:max_problems]
    key_names: list[tuple[str, int]] = []
    for doc in key_documents:
        key_names.append((doc.name, doc.line))
        response_doc = response_tokens.pop(doc.name, None)
        if response_doc is not None:
            mismatch = compare_tokens(doc, response_doc, forms=forms)
            if mismatch is None and sentences:
                mismatch = compare_sentences(doc, response_doc)
            if mismatch is not None:
                problems.append(mismatch)
        if len(problems) >= max_problems:
            return problems[:max_problems]
    errors, _ = document_pairing(
        key_label, key_names, str(response_path), response_names, plan.missing_documents
    )
    problems.extend(errors)
    return problems[:max_problems]


COREFERENCE_ATTRIBUTES = ("Entity", "SplitAnte", "Bridge")
"""The MISC attributes of a compact (CorefUD) file that carry coreference."""


def misspelt_attributes(path: str, most: int = 20) -> list[str]:
    """Warnings (``FILE:LINE: ...``) for MISC attributes of a compact file whose name looks
    like a misspelt coreference attribute (`COREFERENCE_ATTRIBUTES`): the same name in
    another case (``entity=``), or one edit away (a letter more, fewer, changed or two
    swapped: ``Entitty=``, ``Enity=``, ``SplitAnt=``, ``Brdige=``). The reader reads only the
    exact names, so the mentions written there are silently not read; at most ``most``.

    The names are gathered first, cheaply (`attribute_names`); only a file with a
    suspicious one is read again line by line (`misspelt_lines`), for the lines."""
    if not any(_meant(name) is not None for name in attribute_names(path)):
        return []
    return misspelt_lines(path, most)


def misspelt_lines(path: str, most: int = 20) -> list[str]:
    """`misspelt_attributes` read line by line: each line's MISC (its last column), split
    into its attributes."""
    found: list[str] = []
    with open(path, encoding="utf-8-sig", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            misc = line.rstrip("\r\n").rpartition("\t")[2]
            if "=" not in misc or line.startswith("#"):
                continue
            for item in misc.split("|"):
                name = item.partition("=")[0]
                meant = _meant(name)
                if meant is not None:
                    found.append(
                        f"{path}:{number}: MISC attribute {name!r} looks like a misspelt "
                        f"{meant!r}: its mentions are not read (expected {meant}=...)"
                    )
                    if len(found) >= most:
                        return found
    return found


def attribute_names(path: str, block_bytes: int = 8 << 20) -> set[str]:
    """Every attribute name `misspelt_lines` checks in ``path``, and some more: the names in
    the distinct last columns of its lines (comments' too), decoded as it decodes them.
    The lines are split as it splits them (at ``\\n``, ``\\r\\n`` or ``\\r``) and no
    Python code runs per line: the file's MISC columns repeat (``_``, ``SpaceAfter=No``,
    one mention's ``Entity``), the work per name is on a block's distinct ones. Read in
    blocks of about ``block_bytes`` (`_line_blocks`), for a memory that does not grow with
    the file."""
    names: set[bytes] = set()
    for block in _line_blocks(path, block_bytes):
        columns = set(map(itemgetter(2), map(bytes.rpartition, block.splitlines(), repeat(b"\t"))))
        items = b"|".join(columns).split(b"|")  # also of columns without "=": more names
        names.update(map(itemgetter(0), map(bytes.partition, items, repeat(b"="))))
    return {name.decode("utf-8", errors="replace") for name in names}


def _line_blocks(path: str, size: int) -> Iterator[bytes]:
    """The bytes of ``path`` in blocks of whole lines (each ends after a ``\\n``, the last
    one at the file's end), without the byte-order mark the line pass's reading leaves out."""
    with open(path, "rb") as file:
        rest = file.read(len(codecs.BOM_UTF8))
        if rest == codecs.BOM_UTF8:
            rest = b""
        while chunk := file.read(size):
            head, newline, rest = (rest + chunk).rpartition(b"\n")
            if newline:
                yield head + newline
        if rest:
            yield rest


def _meant(name: str) -> str | None:
    """The coreference attribute ``name`` looks like a misspelling of, if any."""
    if name in COREFERENCE_ATTRIBUTES or not 4 <= len(name) <= 12:
        return None
    lower = name.lower()
    for attribute in COREFERENCE_ATTRIBUTES:
        if lower == attribute.lower() or _one_edit(lower, attribute.lower()):
            return attribute
    return None


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one insertion, deletion, substitution or swap of two
    neighbouring letters."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]
