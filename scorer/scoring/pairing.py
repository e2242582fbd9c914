"""Pairing the documents of a key file and a response file, before and while they are scored.

`Pairing` decides each file's format, lists both files' documents (names first, so a missing
document is reported before anything is scored), checks the pairing, then hands out
(key, response) document pairs in key order, each checked (same tokens, well-formed
annotation). Exploded files are streamed document by document, so a large corpus never sits
in memory whole. What each side's reader keeps comes from the run's `ScoringPlan`, compiled
once from its options.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from scoring.errors import ScoringInputError
from scoring.forked import ChildDied
from scoring.model import Document
from scoring.options import ScoringOptions
from scoring.plan import ScoringPlan
from scoring.readers import FORMATS, compact, exploded, read_head, reader_module
from scoring.validate import (
    compare_sentences,
    compare_tokens,
    document_checks,
    document_pairing,
)

FORM_CHECKED = ("ua", "corefud")
"""Formats whose key and response must have the same word forms (as UA scorer v2 checks);
the others need the same number of tokens per document."""


def read_other(
    path: str, format: str, collect: list[Any] | None, warnings: list[str] | None = None
) -> list[Document]:
    """Every document of a file in a format other than exploded CONLL-UA (read whole; see
    `compact.iter_documents` for compact files read one document at a time)."""
    try:
        module = reader_module(format)
    except ImportError:
        raise ScoringInputError(
            path, None, f"the {format} reader is not available", code="unsupported_format"
        ) from None
    extra = {"layout": False} if format == "corefud" else {}  # rows are for converters
    try:
        return list(module.read(path, warnings=warnings, **extra))
    except ScoringInputError as problem:
        if collect is None:
            raise
        collect.append(problem)
        return []


def file_format(path: str, plan: ScoringPlan) -> str:
    """The format to read ``path`` in: the ``-f`` one, or exploded CONLL-UA for ``auto``.

    ``auto`` never reads another format silently (the reference printed zeros for CoNLL-2012
    files, UA scorer issue #2): a file that is clearly another format is an error naming the
    ``-f`` to use.
    """
    if plan.format != "auto":
        if plan.format not in FORMATS:
            raise ScoringInputError(
                path,
                None,
                f"unknown format {plan.format!r} (expected one of {', '.join(FORMATS)})",
                code="unsupported_format",
            )
        return plan.format
    kind = exploded.other_format(read_head(path))
    if kind is not None:
        raise ScoringInputError(
            path,
            1,
            f"this looks like {kind} (expected exploded CONLL-UA, the default format)",
            code="wrong_format",
        )
    return "ua"


class Pairing:
    """Key and response documents, paired by name, checked, and handed out one by one.

    A run in two processes (`scoring.runner`) narrows a pairing to a byte range of each file
    (``parts``) and may hand it documents read or scanned in another process (``ahead``,
    ``scanning``).
    """

    def __init__(
        self,
        key_path: str,
        response_path: str,
        options: ScoringOptions | ScoringPlan,
        *,
        also: Sequence[ScoringPlan] = (),
    ) -> None:
        self.key_path = str(key_path)
        self.response_path = str(response_path)
        self.plan = plan = ScoringPlan.of(options)
        # the other plans its pairs are scored in (`scoring.api.score_modes`): each pair is
        # checked under them too; they read the files as ``plan`` does
        self.also = tuple(also)
        self.options = plan.options
        self.warnings: list[str] = []
        self.scored: list[str] = []
        self.parts: dict[str, tuple[int, int, int, int]] = {}  # side → byte range read
        # side → its documents, read in another process
        self.ahead: dict[str, Callable[[], Iterator[Document]]] = {}
        self.scanning: dict[str, Any] = {}  # side → its scan in a forked process (`Forked`)
        self.loaded: dict[str, list[Document]] = {}
        self.indexes: dict[str, exploded.FileIndex] = {}  # side → scan of an exploded file
        self.key_names: list[tuple[str, int]] = []
        self.response_names: list[tuple[str, int]] = []
        self.key_format = file_format(self.key_path, plan)
        self.response_format = file_format(self.response_path, plan)

    # names first, so a missing document is reported before anything is scored
    def names(self, path: str, format: str, side: str) -> list[tuple[str, int]]:
        if format == "ua":
            index = None
            if side in self.scanning:  # scanned in another process meanwhile
                try:
                    index = self.scanning.pop(side).result()
                except (OSError, ChildDied):  # the process died: scan here
                    index = None
            self.indexes[side] = index = index or exploded.scan(path)
            names = index.names
            plain = [name for name, _ in names]
            if not names or "" in plain or len(set(plain)) < len(plain):
                # let the reader say what is wrong (empty file, no newdoc, duplicates, ...)
                for _ in exploded.iter_documents(path, **self.plan.reader(side).settings()):
                    pass
            return names
        if format == "corefud":
            names = compact.scan(path)
            if not names:  # let the reader say what is wrong (no token line, a bad header)
                for _ in compact.iter_documents(path, layout=False):
                    pass
            return names
        if path not in self.loaded:
            self.loaded[path] = read_other(path, format, None, self.warnings)
        return [(doc.name, doc.line) for doc in self.loaded[path]]

    def documents(self, path: str, format: str, side: str) -> Iterator[Document]:
        if side in self.ahead:  # read in another process meanwhile (`runner.ResponseAhead`)
            return self.ahead.pop(side)()
        if format == "ua":
            return exploded.iter_documents(
                path, part=self.parts.get(side), **self.plan.reader(side).settings()
            )
        if format == "corefud":  # streamed too, its token rows never kept
            return compact.iter_documents(path, warnings=self.warnings, layout=False)
        return iter(self.loaded[path])

    def prepare(self) -> None:
        """List both files' documents and check the pairing (raises the first problem)."""
        self.key_names = self.names(self.key_path, self.key_format, "key")
        self.response_names = self.names(self.response_path, self.response_format, "response")
        errors, warnings = document_pairing(
            self.key_path,
            self.key_names,
            self.response_path,
            self.response_names,
            self.plan.missing_documents,
        )
        if errors:
            raise errors[0]
        self.warnings.extend(warnings)

    def same_order(self) -> bool:
        """Whether the documents the files share come in the same order in both."""
        response_set = {name for name, _ in self.response_names}
        key_set = {name for name, _ in self.key_names}
        return [name for name, _ in self.key_names if name in response_set] == [
            name for name, _ in self.response_names if name in key_set
        ]

    def pairs(self) -> Iterator[tuple[Document, Document]]:
        """(key, response) per scored key document, in key order; checks each pair."""
        plan = self.plan
        response_set = {name for name, _ in self.response_names}
        responses = self.documents(self.response_path, self.response_format, "response")
        lookup: dict[str, Document] | None = None
        if not self.same_order():  # different order: index the response once
            lookup = {doc.name: doc for doc in responses}
        for key_doc in self.documents(self.key_path, self.key_format, "key"):
            if key_doc.name in response_set:
                if lookup is not None:
                    response_doc = lookup.pop(key_doc.name)
                else:
                    response_doc = next(doc for doc in responses if doc.name == key_doc.name)
            elif plan.missing_documents == "empty":
                response_doc = Document(
                    name=key_doc.name,
                    path=self.response_path,
                    line=0,
                    tokens=key_doc.tokens,
                    token_lines=key_doc.token_lines,
                )
            else:
                continue
            self.check(key_doc, response_doc)
            self.scored.append(key_doc.name)
            yield key_doc, response_doc

    def check(self, key_doc: Document, response_doc: Document) -> None:
        forms = self.key_format in FORM_CHECKED
        if (problem := compare_tokens(key_doc, response_doc, forms=forms)) is not None:
            raise problem
        if self.key_format == self.response_format == "corefud" and response_doc.line:
            if (problem := compare_sentences(key_doc, response_doc)) is not None:
                raise problem
        for plan in (self.plan, *self.also):
            for doc in (key_doc, response_doc):
                problems = document_checks(doc, plan)
                if problems:
                    raise problems[0]
