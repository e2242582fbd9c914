"""Running a scoring on one or two cores: the result, warnings and errors of one process,
number for number, sooner where a second core helps.

`run` scores a prepared `Pairing`. Where the machine may use two processes
(``UA_SCORER_PROCESSES``, else the machine's cores), three paths use the second one:

- halves: exploded files of more than `PARALLEL_DOCUMENTS` key documents, in the same order
  in both files, are cut at a document boundary near the key's middle and the second half is
  read and scored in a forked process while this one does the first;
- early scan: a response of `EARLY_SCAN_BYTES` or more is scanned for its documents in a
  forked process while this one scans the key (the scans come before the halves can be cut);
- read-ahead: a response of `READ_AHEAD_BYTES` or more that is not cut in halves (few, large
  documents) is read in a forked process while this one reads the key.

Each is one call in a forked process (`scoring.forked`). A path that cannot fork (a daemonic
worker) or whose process dies falls back to one process. Errors cross processes as the
`ScoringInputError` itself (it pickles whole); the first error is the one one process would
have raised.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from typing import Any

from scoring.engine import paused_gc, score_corpus, score_corpus_modes, summarize
from scoring.errors import ScoringInputError
from scoring.forked import CannotFork, ChildDied, Forked
from scoring.model import Document
from scoring.pairing import Pairing
from scoring.readers import exploded
from scoring.results import CorpusResult, document_from_values, document_values

PARALLEL_DOCUMENTS = 200
"""Key files with more documents than this are scored in two processes where the machine
has two cores."""
EARLY_SCAN_BYTES = 16 << 20
"""Exploded responses of at least this size are scanned for their documents in a second
process while the first scans the key, where the run may be scored in halves."""
READ_AHEAD_BYTES = 1 << 20
"""Exploded responses of at least this size, in runs that are not scored in halves, are read
in a second process while the first reads the key."""


def processes_setting(processes: int | None) -> int:
    """How many processes may score: ``processes``, else ``UA_SCORER_PROCESSES``, else the
    machine's cores."""
    if processes is None:
        setting = os.environ.get("UA_SCORER_PROCESSES", "").strip()
        processes = int(setting) if setting.isdigit() else (os.cpu_count() or 1)
    return processes


def run(pairing: Pairing, *, processes: int | None = None) -> CorpusResult:
    """Prepare ``pairing`` and score every pair; the result carries the pairing's warnings
    (first) and the names of the scored documents."""
    with paused_gc():  # the second half's results are rebuilt and summed here too
        result = _run(pairing, processes_setting(processes) > 1)
    return _finished(pairing, result)


def run_modes(pairing: Pairing) -> list[CorpusResult]:
    """Prepare ``pairing`` and score every pair in its plan and in each of ``pairing.also``
    (plans that read the files alike), from one reading of both files, in this process: the
    results in that order, each the one `run` gives for its plan alone with one process."""
    with paused_gc():
        pairing.prepare()
        results = score_corpus_modes(pairing.pairs(), [pairing.plan, *pairing.also])
    return [_finished(pairing, result) for result in results]


def _finished(pairing: Pairing, result: CorpusResult) -> CorpusResult:
    warnings = list(pairing.warnings)
    for warning in result.warnings:
        if warning not in warnings:
            warnings.append(warning)
    result.warnings = warnings
    result.scored = list(pairing.scored)
    return result


def _run(pairing: Pairing, parallel: bool) -> CorpusResult:
    scan = early_scan(pairing) if parallel else None
    try:
        pairing.prepare()
        cut = halves(pairing) if parallel else None
        outcomes = score_halves(pairing, cut) if cut is not None else None
    finally:
        if scan is not None:
            scan.cancel()  # (a scan whose result was taken is already done)
    if outcomes is None:
        reader = ResponseAhead.start(pairing) if parallel else None
        try:
            return score_corpus(pairing.pairs(), pairing.plan)
        finally:
            if reader is not None:
                reader.stop()
    (first, first_scored), (second, second_scored) = outcomes
    pairing.scored = first_scored + second_scored
    documents = first + [document_from_values(values) for values in second]
    # exploded files only: BLANC's CoNLL-2012 rule (key_links_only) never applies
    return summarize(documents, pairing.plan, key_links_only=False)


def halves(pairing: Pairing) -> tuple[dict[Any, Any], dict[Any, Any]] | None:
    """Byte ranges of the key and the response for two halves of a run that reads them as one
    run does, or None where the run must stay whole: other formats, few documents, a
    response in another order, a file `exploded.scan` finds not partable."""
    if (pairing.key_format, pairing.response_format) != ("ua", "ua") or len(
        pairing.key_names
    ) <= PARALLEL_DOCUMENTS:
        return None
    if not pairing.same_order():
        return None  # the response is indexed whole
    key_names = [name for name, _ in pairing.key_names]
    response_index = {name: index for index, (name, _) in enumerate(pairing.response_names)}
    key_starts, key_whole = pairing.indexes["key"].starts, pairing.indexes["key"].partable
    response_starts = pairing.indexes["response"].starts
    response_whole = pairing.indexes["response"].partable
    if not (
        key_whole
        and response_whole
        and len(key_starts) == len(key_names)
        and len(response_starts) == len(pairing.response_names)
    ):
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
    first = {
        "key": (key_starts[0][0], 0, key_cut[0], 1),
        "response": (response_starts[0][0], 0, response_cut[0], 1),
        "key_names": pairing.key_names[:cut],
        "response_names": pairing.response_names[:after],
    }
    second = {
        "key": (key_starts[0][0], key_cut[0], end, key_cut[1]),
        "response": (response_starts[0][0], response_cut[0], end, response_cut[1]),
        "key_names": pairing.key_names[cut:],
        "response_names": pairing.response_names[after:],
    }
    return first, second


def early_scan(pairing: Pairing) -> Forked | None:
    """The response of a run whose exploded files are large enough to be scored in halves,
    scanned for its documents in a forked process while this one scans the key. None for
    other runs, or where no process can be forked."""
    if (pairing.key_format, pairing.response_format) != ("ua", "ua") or os.path.getsize(
        pairing.response_path
    ) < EARLY_SCAN_BYTES:
        return None
    try:
        scan = Forked(exploded.scan, pairing.response_path)
    except (OSError, CannotFork):
        return None
    pairing.scanning["response"] = scan
    return scan


def score_halves(
    pairing: Pairing, cut: tuple[dict[Any, Any], dict[Any, Any]]
) -> tuple[Any, ...] | None:
    """Both halves' (documents, scored names): the second in a forked process, the first
    here meanwhile. None where no process can be forked (e.g. inside a daemonic worker) or
    the child died: then one process scores. An input error of the first half is raised
    before one of the second, as one process would."""
    try:
        second = Forked(score_half, pairing, dict(cut[1]), plain=True)
    except (OSError, CannotFork):
        return None
    try:
        first = score_half(copy.copy(pairing), cut[0])
    except BaseException:
        second.cancel()
        raise
    try:
        return first, second.result()
    except ChildDied:
        return None


def score_half(
    pairing: Pairing, half: dict[Any, Any], plain: bool = False
) -> tuple[list[Any], list[str]]:
    """Per-document results of one half (as `document_values` with ``plain``, for sending to
    the parent: pickling those is a C loop) and the names it scored."""
    pairing.parts = {"key": half["key"], "response": half["response"]}
    pairing.key_names = half["key_names"]
    pairing.response_names = half["response_names"]
    pairing.scored = []
    documents = score_corpus(pairing.pairs(), pairing.plan).documents
    if plain:
        return [document_values(doc) for doc in documents], pairing.scored
    return documents, pairing.scored


class ResponseAhead:
    """The response of a run that is not parted, read whole in a forked process while this
    one reads the key: for few, large documents (one of 20,000 mentions, say), where parting
    by documents does not apply. The documents come back as the reader yields them, the
    reader's first error where it stopped, so the run sees what reading here would show."""

    def __init__(self, pairing: Pairing) -> None:
        self.pairing = pairing
        self.reading = Forked(self.read, pairing)

    @classmethod
    def start(cls, pairing: Pairing) -> ResponseAhead | None:
        """Start reading where it pays (an exploded response of `READ_AHEAD_BYTES` or more, in
        the key's order); None where it does not or no process can be forked (e.g. in a
        daemonic worker)."""
        if (
            pairing.response_format != "ua"
            or not pairing.same_order()
            or os.path.getsize(pairing.response_path) < READ_AHEAD_BYTES
        ):
            return None  # (in another order, the whole response is needed at once)
        try:
            ahead = cls(pairing)
        except (OSError, CannotFork):
            return None
        pairing.ahead["response"] = ahead.documents
        return ahead

    @staticmethod
    def read(pairing: Pairing) -> tuple[list[Document], ScoringInputError | None]:
        """In the forked process: the response's documents, and the error that stopped the
        reader if one did."""
        documents: list[Document] = []
        error = None
        try:
            for doc in pairing.documents(pairing.response_path, "ua", "response"):
                documents.append(doc)
        except ScoringInputError as problem:
            error = problem
        return documents, error

    def documents(self) -> Iterator[Document]:
        try:
            documents, error = self.reading.result()
        except ChildDied:  # the process died: read here instead
            yield from self.pairing.documents(self.pairing.response_path, "ua", "response")
            return
        yield from documents
        if error is not None:
            raise error

    def stop(self) -> None:
        self.reading.cancel()  # (nothing to stop where the run took the documents)
