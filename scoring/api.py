"""The scorer's Python interface: what the command line and the platform call.

- `score_files(key_path, response_path, options)` → the ``--json`` object (a dict);
- `read_documents(path, format="auto")` → list of `Document`;
- `validate_response(key_path, response_path, options)` → every problem that would stop
  scoring, for the platform's upload check (the same readers and checks as `score_files`,
  so the validator and the scorer never disagree).

Nothing here prints or exits: bad input raises `ScoringInputError`, bad options `UsageError`.
Exploded files are streamed document by document, so a large corpus never sits in memory
whole (the engine is handed a lazy sequence of document pairs).
"""

from __future__ import annotations

import copy
import os
import sys
from array import array
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from collections.abc import Iterator, Sequence
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Document
from scoring.options import Invocation, ScoringOptions, mode_dict, parse_options
from scoring.readers import FORMATS, detect_format, read_head, reader_module
from scoring.readers import exploded
from scoring.results import (CorpusResult, DocumentResult, PRCounts, TPCounts,
                             document_from_values, document_values)
from scoring.validate import compare_tokens, document_checks, document_pairing

__all__ = ["read_documents", "score_files", "validate_response"]

BRIDGING_KINDS = ("anaphora_recognition", "mention", "entity")
PARALLEL_DOCUMENTS = 200
"""Key files with more documents than this are scored in two processes where the machine
has two cores (`score_files`)."""
EARLY_SCAN_BYTES = 16 << 20
"""Exploded responses of at least this size are scanned for their documents in a second
process while the first scans the key, where the run may be scored in halves."""
READ_AHEAD_BYTES = 1 << 20
"""Exploded responses of at least this size, in runs that are not scored in halves, are read
in a second process while the first reads the key (`score_files`)."""
FORM_CHECKED = ("ua", "corefud")
"""Formats whose key and response must have the same word forms (as UA scorer v2 checks);
the others need the same number of tokens per document."""


# -- reading ---------------------------------------------------------------------------------
def read_documents(path: str, format: str = "auto", *,
                   collect: list | None = None) -> list[Document]:
    """Every document of a file, with every annotation layer and the layout.

    ``format`` is a ``-f`` name (ua, corefud, conll, muc7) or ``auto``, which picks the first
    format whose reader recognises the file (exploded CONLL-UA when none does). With
    ``collect`` a list, exploded files report every problem there instead of raising.
    """
    if format == "auto":
        format = detect_format(path) or "ua"
    if format == "ua":
        return exploded.read(path, collect=collect)
    return _read_other(path, format, collect)


def _read_other(path: str, format: str, collect: list | None,
                warnings: list[str] | None = None) -> list[Document]:
    try:
        module = reader_module(format)
    except ImportError:
        raise ScoringInputError(path, None, f"the {format} reader is not available",
                                code="unsupported_format") from None
    try:
        return list(module.read(path, warnings=warnings))
    except ScoringInputError as problem:
        if collect is None:
            raise
        collect.append(problem)
        return []


def _file_format(path: str, options: ScoringOptions) -> str:
    """The format to read ``path`` in: the ``-f`` one, or exploded CONLL-UA for ``auto``.

    ``auto`` never reads another format silently (the reference printed zeros for CoNLL-2012
    files, UA scorer issue #2): a file that is clearly another format is an error naming the
    ``-f`` to use.
    """
    if options.format != "auto":
        if options.format not in FORMATS:
            raise ScoringInputError(path, None, f"unknown format {options.format!r} "
                                    f"(expected one of {', '.join(FORMATS)})",
                                    code="unsupported_format")
        return options.format
    kind = exploded.other_format(read_head(path))
    if kind is not None:
        raise ScoringInputError(path, 1, f"this looks like {kind} (expected exploded "
                                "CONLL-UA, the default format)", code="wrong_format")
    return "ua"


def _exploded_settings(options: ScoringOptions, side: str) -> dict[str, Any]:
    """Reader settings for one side of a scoring run: only the layers the mode reads."""
    if options.discourse_deixis:
        layers = ["discourse_deixis"]
    else:
        layers = ["identity"] + (["bridging"] if options.keep_bridging else [])
    uses_min = (options.matching == "partial-corefud" and side == "key"
                or options.matching == "head")
    return {"layers": layers, "check_min": uses_min,
            "read_min": options.matching in ("partial-corefud", "head"),
            "discontinuous": options.style == "v2",
            "allow_crossing": options.allow_boundary_crossing, "layout": False}


class _Pairing:
    """Key and response documents, paired by name, checked, and handed out one by one."""

    def __init__(self, key_path: str, response_path: str, options: ScoringOptions) -> None:
        self.key_path = str(key_path)
        self.response_path = str(response_path)
        self.options = options
        self.warnings: list[str] = []
        self.scored: list[str] = []
        self.parts: dict[str, tuple[int, int, int, int]] = {}  # side → byte range read
        self.ahead: dict[str, Any] = {}  # side → its documents, read in another process
        self.scanning: dict[str, Any] = {}  # side → the future of its scan in another process
        self.key_format = _file_format(self.key_path, options)
        self.response_format = _file_format(self.response_path, options)

    # names first, so a missing document is reported before anything is scored
    def names(self, path: str, format: str, side: str) -> list[tuple[str, int]]:
        if format == "ua":
            index = None
            if side in self.scanning:  # scanned in another process meanwhile
                try:
                    index = self.scanning.pop(side).result()
                except (OSError, BrokenProcessPool):
                    pass
            self.indexes[side] = index = index or exploded.scan(path)
            names = index.names
            plain = [name for name, _ in names]
            if not names or "" in plain or len(set(plain)) < len(plain):
                # let the reader say what is wrong (empty file, no newdoc, duplicates, ...)
                for _ in exploded.iter_documents(path, **_exploded_settings(self.options, side)):
                    pass
            return names
        if path not in self.loaded:
            self.loaded[path] = _read_other(path, format, None, self.warnings)
        docs = self.loaded[path]
        return [(doc.name, doc.line) for doc in docs]

    def documents(self, path: str, format: str, side: str) -> Iterator[Document]:
        if side in self.ahead:  # read in another process meanwhile (`_ResponseAhead`)
            return self.ahead.pop(side)()
        if format == "ua":
            return exploded.iter_documents(path, part=self.parts.get(side),
                                           **_exploded_settings(self.options, side))
        return iter(self.loaded[path])

    def prepare(self) -> None:
        self.loaded: dict[str, list[Document]] = {}
        self.indexes: dict[str, exploded.FileIndex] = {}  # side → scan of an exploded file
        self.key_names = self.names(self.key_path, self.key_format, "key")
        self.response_names = self.names(self.response_path, self.response_format, "response")
        errors, warnings = document_pairing(self.key_path, self.key_names, self.response_path,
                                            self.response_names,
                                            self.options.missing_documents)
        if errors:
            raise errors[0]
        self.warnings.extend(warnings)

    def same_order(self) -> bool:
        """Whether the documents the files share come in the same order in both."""
        response_set = {name for name, _ in self.response_names}
        key_set = {name for name, _ in self.key_names}
        return ([name for name, _ in self.key_names if name in response_set]
                == [name for name, _ in self.response_names if name in key_set])

    def pairs(self) -> Iterator[tuple[Document, Document]]:
        """(key, response) per scored key document, in key order; checks each pair."""
        options = self.options
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
            elif options.missing_documents == "empty":
                response_doc = Document(name=key_doc.name, path=self.response_path, line=0,
                                        tokens=key_doc.tokens, token_lines=key_doc.token_lines)
            else:
                continue
            self.check(key_doc, response_doc)
            self.scored.append(key_doc.name)
            yield key_doc, response_doc

    def check(self, key_doc: Document, response_doc: Document) -> None:
        forms = self.key_format in FORM_CHECKED
        if (problem := compare_tokens(key_doc, response_doc, forms=forms)) is not None:
            raise problem
        for doc in (key_doc, response_doc):
            problems = document_checks(doc, self.options)
            if problems:
                raise problems[0]


# -- scoring ---------------------------------------------------------------------------------
def score_files(key_path: str, response_path: str, options: Sequence[str] = (), *,
                processes: int | None = None) -> dict:
    """Score a response file against a key file; return the ``--json`` object.

    ``options`` are the command-line words after KEY and RESPONSE (v1 bare words or v2 dash
    options, plus ``--per-doc`` and ``--missing-documents``; ``--json`` is accepted and has
    no effect here). The result (docs/scorer.md, "JSON output")::

        {"mode": {...effective flags...},
         "metrics": {"muc": {"recall": r, "precision": p, "f1": f}, ...selected only...},
         "conll": fraction or None,
         "non_referring": None or {"recall", "precision", "f1"},
         "bridging": None or {"anaphora_recognition": {...}, "mention": {...},
                              "entity": {...}, "by_relation": {rel: {...}}},
         "documents": [names scored], "warnings": [...],
         "per_document": {...}}        # only with --per-doc

    Raises `UsageError` for bad options and `ScoringInputError` for bad input.

    ``processes``: how many processes may score (None: the ``UA_SCORER_PROCESSES``
    environment variable, else the machine's cores). With two or more, exploded files of
    more than `PARALLEL_DOCUMENTS` key documents are read and scored in two halves at once;
    the result, warnings and errors are those of one process, number for number.
    """
    invocation = parse_options(options)
    return score_invocation(key_path, response_path, invocation, processes=processes)


def score_invocation(key_path: str, response_path: str, invocation: Invocation, *,
                     processes: int | None = None) -> dict:
    """`score_files` for options parsed already."""
    from scoring.engine import paused_gc

    with paused_gc():  # the second half's results are rebuilt and summed here too
        return _score_invocation(key_path, response_path, invocation, processes)


def _score_invocation(key_path: str, response_path: str, invocation: Invocation,
                      processes: int | None) -> dict:
    from scoring.engine import score_corpus, summarize

    pairing = _Pairing(key_path, response_path, invocation.options)
    parallel = _processes(processes) > 1
    pool = _early_pool(pairing) if parallel else None
    try:
        pairing.prepare()
        halves = _halves(pairing) if parallel else None
        outcomes = None
        if halves is not None:
            outcomes = _score_halves(pairing, halves, pool)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    if outcomes is None:
        reader = _ResponseAhead.start(pairing) if parallel else None
        try:
            result = score_corpus(pairing.pairs(), invocation.options)
        finally:
            if reader is not None:
                reader.stop()
    else:
        first, second = outcomes
        for outcome in (first, second):
            if outcome[0] == "error":
                raise ScoringInputError(*outcome[1:3], outcome[3], code=outcome[4],
                                        document=outcome[5])
        pairing.scored = first[2] + second[2]
        documents = first[1] + [document_from_values(values) for values in second[1]]
        # exploded files only: BLANC's CoNLL-2012 rule (key_links_only) never applies
        result = summarize(documents, invocation.options, key_links_only=False)
    warnings = list(invocation.notes) + pairing.warnings
    for warning in result.warnings:
        if warning not in warnings:
            warnings.append(warning)
    return result_dict(result, invocation, documents=pairing.scored, warnings=warnings)


def _processes(processes: int | None) -> int:
    if processes is None:
        setting = os.environ.get("UA_SCORER_PROCESSES", "").strip()
        processes = int(setting) if setting.isdigit() else (os.cpu_count() or 1)
    return processes


def _halves(pairing: _Pairing) -> tuple[dict, dict] | None:
    """Byte ranges of the key and the response for two halves of a run that reads them as one
    run does, or None where the run must stay whole: other formats, few documents, a
    response in another order, a file `exploded.scan` finds not partable."""
    if (pairing.key_format, pairing.response_format) != ("ua", "ua") \
            or len(pairing.key_names) <= PARALLEL_DOCUMENTS:
        return None
    if not pairing.same_order():
        return None  # the response is indexed whole
    key_names = [name for name, _ in pairing.key_names]
    response_index = {name: index for index, (name, _) in enumerate(pairing.response_names)}
    key_starts, key_whole = pairing.indexes["key"].starts, pairing.indexes["key"].partable
    response_starts = pairing.indexes["response"].starts
    response_whole = pairing.indexes["response"].partable
    if not (key_whole and response_whole and len(key_starts) == len(key_names)
            and len(response_starts) == len(pairing.response_names)):
        return None
    size = os.path.getsize(pairing.key_path)
    cut = min(range(1, len(key_starts)), key=lambda i: abs(key_starts[i][0] - size / 2))
    last = [name for name in key_names[:cut] if name in response_index]
    if not last or response_index[last[-1]] + 1 >= len(response_starts):
        return None
    # the first half reads the response up to the end of its last paired document, as one
    # run does before it turns to the second half's first key document
    after = response_index[last[-1]] + 1
    end = 1 << 62
    key_cut, response_cut = key_starts[cut], response_starts[after]
    first = {"key": (key_starts[0][0], 0, key_cut[0], 1),
             "response": (response_starts[0][0], 0, response_cut[0], 1),
             "key_names": pairing.key_names[:cut],
             "response_names": pairing.response_names[:after]}
    second = {"key": (key_starts[0][0], key_cut[0], end, key_cut[1]),
              "response": (response_starts[0][0], response_cut[0], end, response_cut[1]),
              "key_names": pairing.key_names[cut:],
              "response_names": pairing.response_names[after:]}
    return first, second


def _early_pool(pairing: _Pairing) -> ProcessPoolExecutor | None:
    """A second process for a run whose exploded files are large enough to be scored in
    halves, started at once to scan the response while this process scans the key (the
    scans come before the halves can be cut). None for other runs, or where no process can
    be forked."""
    if (pairing.key_format, pairing.response_format) != ("ua", "ua") \
            or os.path.getsize(pairing.response_path) < EARLY_SCAN_BYTES:
        return None
    try:
        pool = ProcessPoolExecutor(1, mp_context=get_context("fork"))
        pairing.scanning["response"] = pool.submit(exploded.scan, pairing.response_path)
    except (OSError, AssertionError, BrokenProcessPool):
        return None
    return pool


def _score_halves(pairing: _Pairing, halves: tuple[dict, dict],
                  pool: ProcessPoolExecutor | None = None) -> tuple | None:
    """Both halves' outcomes: the second in a forked process (of ``pool`` if given), the
    first here meanwhile. None where no process can be forked (e.g. inside a daemonic
    worker): then one process scores."""
    own = pool is None
    try:
        if own:
            pool = ProcessPoolExecutor(1, mp_context=get_context("fork"))
        try:
            second = pool.submit(_score_half, pairing, dict(halves[1]), plain=True)
            first = _score_half(copy.copy(pairing), halves[0])
            return first, second.result()
        finally:
            if own:
                pool.shutdown()
    except (OSError, AssertionError, BrokenProcessPool):
        return None


class _ResponseAhead:
    """The response of a run that is not parted, read whole in a forked process while this
    one reads the key: for few, large documents (one of 20,000 mentions, say), where parting
    by documents does not apply. The documents come back as the reader yields them, the
    reader's first error where it stopped, so the run sees what reading here would show."""

    def __init__(self, pairing: _Pairing) -> None:
        context = get_context("fork")
        self.pairing = pairing
        self.receiver, sender = context.Pipe(duplex=False)
        self.process = context.Process(target=self.read, args=(pairing, sender), daemon=True)
        self.process.start()
        sender.close()

    @classmethod
    def start(cls, pairing: _Pairing) -> _ResponseAhead | None:
        """Start reading where it pays (an exploded response of `READ_AHEAD_BYTES` or more, in
        the key's order); None where it does not or no process can be forked (e.g. in a
        daemonic worker)."""
        if pairing.response_format != "ua" or not pairing.same_order() \
                or os.path.getsize(pairing.response_path) < READ_AHEAD_BYTES:
            return None  # (in another order, the whole response is needed at once)
        try:
            ahead = cls(pairing)
        except (OSError, AssertionError):
            return None
        pairing.ahead["response"] = ahead.documents
        return ahead

    @staticmethod
    def read(pairing: _Pairing, sender) -> None:  # in the forked process
        documents: list[Document] = []
        error = None
        try:
            for doc in pairing.documents(pairing.response_path, "ua", "response"):
                documents.append(doc)
        except ScoringInputError as problem:
            error = (problem.path, problem.line, problem.message, problem.code,
                     problem.document)
        sender.send((documents, error))
        sender.close()

    def documents(self) -> Iterator[Document]:
        try:
            documents, error = self.receiver.recv()
        except (EOFError, OSError):  # the process died: read here instead
            yield from self.pairing.documents(self.pairing.response_path, "ua", "response")
            return
        yield from documents
        if error is not None:
            raise ScoringInputError(*error[:3], code=error[3], document=error[4])

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.terminate()  # the run ended before it needed the response
        self.process.join()
        self.receiver.close()


def _score_half(pairing: _Pairing, half: dict, plain: bool = False) -> tuple:
    """Per-document results of one half (as `document_values` with ``plain``, for sending
    to the parent), or its first input error as plain values (the error itself does not
    survive pickling)."""
    from scoring.engine import score_corpus

    pairing.parts = {"key": half["key"], "response": half["response"]}
    pairing.key_names = half["key_names"]
    pairing.response_names = half["response_names"]
    pairing.scored = []
    try:
        documents = score_corpus(pairing.pairs(), pairing.options).documents
    except ScoringInputError as error:
        return ("error", error.path, error.line, error.message, error.code, error.document)
    if plain:
        documents = [document_values(doc) for doc in documents]
    return ("ok", documents, pairing.scored)


def result_dict(result: CorpusResult, invocation: Invocation, *, documents: list[str],
                warnings: list[str]) -> dict:
    """The ``--json`` object of a `CorpusResult`."""
    options = invocation.options
    wanted = list(options.metrics) + list(options.extra_metrics)
    out: dict[str, Any] = {
        "mode": mode_dict(options),
        "metrics": {name: result.metrics[name].prf.as_dict()
                    for name in wanted if name in result.metrics},
        "conll": result.conll,
        "non_referring": (result.non_referring.as_dict()
                          if options.keep_non_referring and result.non_referring is not None
                          else None),
        "bridging": None,
        "documents": list(documents),
        "warnings": list(warnings),
    }
    if options.keep_bridging and result.bridging is not None:
        bridging = {kind: result.bridging[kind].as_dict() for kind in BRIDGING_KINDS
                    if kind in result.bridging}
        bridging["by_relation"] = {
            relation: {kind: prf.as_dict() for kind, prf in scores.items()}
            for relation, scores in (result.bridging_by_relation or {}).items()}
        out["bridging"] = bridging
    if invocation.per_doc:
        out["per_document"] = {doc.name: _document_dict(doc, wanted, options)
                               for doc in result.documents}
    return out


def _counts(counts: PRCounts) -> dict[str, float]:
    return {"p_num": counts.p_num, "p_den": counts.p_den, "r_num": counts.r_num,
            "r_den": counts.r_den}


def _tp(counts: TPCounts) -> dict[str, Any]:
    return {"tp": counts.tp, "fp": counts.fp, "fn": counts.fn, **counts.prf().as_dict()}


def _document_dict(doc: DocumentResult, wanted: list[str], options: ScoringOptions) -> dict:
    out: dict[str, Any] = {}
    for name in wanted:
        metric = doc.metrics.get(name)
        if metric is None:
            continue
        use_split = options.only_split_antecedent and metric.split_counts
        counts = [_counts(c) for c in (metric.split_counts if use_split else metric.counts)]
        out[name] = {**metric.prf.as_dict(),
                     "counts": counts[0] if len(counts) == 1 else counts}
    if options.keep_non_referring and doc.non_referring is not None:
        out["non_referring"] = _tp(doc.non_referring)
    if options.keep_bridging and doc.bridging is not None:
        out["bridging"] = {kind: _tp(counts) for kind, counts in doc.bridging.items()}
    return out


# -- validation ------------------------------------------------------------------------------
def validate_response(key_path: str, response_path: str, options: Sequence[str] = (),
                      max_problems: int = 50) -> list[ScoringInputError]:
    """Every problem that would stop `score_files` (up to ``max_problems``).

    Parse errors of either file, missing and extra documents, token mismatches and ElementOf
    cycles, response problems first. An empty list means the pair scores. `UsageError` is
    raised for bad options. Both files are streamed: the response keeps only its tokens per
    document while the key is read, so memory stays small for large uploads.
    """
    opts = parse_options(options).options
    problems: list[ScoringInputError] = []
    formats: dict[str, str] = {}
    for side, path in (("key", str(key_path)), ("response", str(response_path))):
        try:
            formats[side] = _file_format(path, opts)
        except ScoringInputError as problem:
            problems.append(problem)
    if len(formats) < 2:
        return problems[:max_problems]
    forms = formats["key"] in FORM_CHECKED and formats["response"] in FORM_CHECKED

    def documents(path: str, side: str) -> Iterator[Document]:
        if formats[side] == "ua":
            return exploded.iter_documents(path, collect=problems,
                                           **_exploded_settings(opts, side))
        return iter(_read_other(path, formats[side], problems))

    response_tokens: dict[str, Document] = {}
    response_names: list[tuple[str, int]] = []
    for doc in documents(str(response_path), "response"):
        response_names.append((doc.name, doc.line))
        problems.extend(document_checks(doc, opts))
        response_tokens[doc.name] = Document(
            doc.name, doc.path, doc.line, tuple(map(sys.intern, doc.tokens)),
            token_lines=array("l", doc.token_lines))  # type: ignore[arg-type]
        if len(problems) >= max_problems:
            return problems[:max_problems]
    key_names: list[tuple[str, int]] = []
    for doc in documents(str(key_path), "key"):
        key_names.append((doc.name, doc.line))
        problems.extend(document_checks(doc, opts))
        response_doc = response_tokens.pop(doc.name, None)
        if response_doc is not None:
            if (problem := compare_tokens(doc, response_doc, forms=forms)) is not None:
                problems.append(problem)
        if len(problems) >= max_problems:
            return problems[:max_problems]
    errors, _ = document_pairing(str(key_path), key_names, str(response_path),
                                 response_names, opts.missing_documents)
    problems.extend(errors)
    return problems[:max_problems]
