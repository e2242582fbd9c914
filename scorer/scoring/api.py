"""The scorer's Python interface: what the command line and the platform call.

- `score(key_path, response_path, options=ScoringOptions(...))` → a typed `CorpusResult`;
  `scoring.serialize.score_rows` turns it into flat score rows, the platform's data format;
  `score_modes(key_path, response_path, options=[...])` → one per mode, the files read once;
- `score_files(key_path, response_path, words)` → the ``--json`` object (a dict), for the
  command line and for callers that speak in option words;
- `read_documents(path, format="auto")` → list of `Document`;
- `validate_response(key_path, response_path, options)` → every problem that would stop
  scoring, for the platform's upload check (`scoring.validation`, re-exported here, as are
  `validate_pair` and the key skeletons of `scoring.skeletons`).

Nothing here prints or exits: bad input raises `ScoringInputError`, bad options `UsageError`.
How documents are paired is `scoring.pairing`; how a run uses a second core is
`scoring.runner`; how a result becomes data is `scoring.serialize`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from scoring.empty_nodes import empty_node_result
from scoring.errors import ScoringInputError
from scoring.model import Document
from scoring.options import Invocation, ScoringOptions, parse_options
from scoring.pairing import Pairing, read_other
from scoring.plan import ScoringPlan
from scoring.readers import detect_format, exploded
from scoring.results import CorpusResult
from scoring.runner import run, run_modes
from scoring.serialize import result_dict
from scoring.skeletons import key_skeleton, validate_against_skeleton
from scoring.validation import validate_pair, validate_response

__all__ = [
    "key_skeleton",
    "read_documents",
    "score",
    "score_files",
    "score_invocation",
    "score_modes",
    "validate_against_skeleton",
    "validate_pair",
    "validate_response",
]


# -- reading ---------------------------------------------------------------------------------
def read_documents(
    path: str, format: str = "auto", *, collect: list[Any] | None = None
) -> list[Document]:
    """Every document of a file, with every annotation layer and the layout.

    ``format`` is a ``-f`` name (ua, corefud, conll, muc7) or ``auto``, which picks the first
    format whose reader recognises the file (exploded CONLL-UA when none does). With
    ``collect`` a list, exploded files report every problem there instead of raising.
    """
    if format == "auto":
        format = detect_format(path) or "ua"
    if format == "ua":
        return exploded.read(path, collect=collect)
    return read_other(path, format, collect)


# -- scoring ---------------------------------------------------------------------------------
def score(
    key_path: str,
    response_path: str,
    *,
    options: ScoringOptions,
    per_doc: bool = True,
    processes: int | None = None,
) -> CorpusResult:
    """Score a response file against a key file.

    The result holds the corpus scores, the per-document results (dropped without
    ``per_doc``), the names of the scored documents and the warnings. Raises
    `ScoringInputError` for bad input.

    ``processes``: how many processes may score (None: the ``UA_SCORER_PROCESSES``
    environment variable, else the machine's cores); the result, warnings and errors are
    those of one process, number for number (`scoring.runner`).
    """
    if options.empty_nodes:
        return _with_empty_nodes(
            key_path, response_path, options, per_doc=per_doc, processes=processes
        )
    result = run(Pairing(key_path, response_path, options), processes=processes)
    if not per_doc:
        result.documents = []
    return result


def score_modes(
    key_path: str,
    response_path: str,
    *,
    options: Sequence[ScoringOptions],
    per_doc: Sequence[bool] | None = None,
) -> list[CorpusResult]:
    """Score a response file in several modes (one process), reading both files once for
    every group of modes that read them alike (`ScoringPlan.reading`): a platform that scores
    each file of a run in a task's three or four modes reads it once instead of three or
    four times.

    The results, in the order of ``options``, are number for number those of
    ``score(key_path, response_path, options=o, per_doc=d, processes=1)`` for each, warnings
    and scored documents included. Bad input raises the `ScoringInputError` that scoring the
    modes one by one, in order, raises first: where a shared reading meets a problem, the
    modes are scored one by one to find it.
    """
    keep = list(per_doc) if per_doc is not None else [True] * len(options)
    if any(each.empty_nodes for each in options):
        return _modes_with_empty_nodes(key_path, response_path, options, keep)
    plans = [ScoringPlan.compile(each) for each in options]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, plan in enumerate(plans):
        groups.setdefault(plan.reading, []).append(index)
    results: list[Any] = [None] * len(plans)
    try:
        for members in groups.values():
            pairing = Pairing(
                key_path, response_path, plans[members[0]], also=[plans[i] for i in members[1:]]
            )
            for index, result in zip(members, run_modes(pairing)):
                results[index] = result
    except ScoringInputError:
        # Which mode's problem comes first (a cycle only one mode follows, say) is what
        # scoring them one by one decides; a refused run is rare, so it is done that way.
        results = [run(Pairing(key_path, response_path, plan), processes=1) for plan in plans]
    for result, kept in zip(results, keep):
        if not kept:
            result.documents = []
    return results


def _modes_with_empty_nodes(
    key_path: str, response_path: str, options: Sequence[ScoringOptions], keep: list[bool]
) -> list[CorpusResult]:
    """`score_modes` where a mode asks for the empty-node measures, which read the files
    their own way: such a mode is scored alone, the others together, results in order."""
    results: list[Any] = []
    for index, each in enumerate(options):
        if each.empty_nodes:
            results.append(
                score(key_path, response_path, options=each, per_doc=keep[index], processes=1)
            )
        else:
            plain = [i for i, o in enumerate(options) if not o.empty_nodes]
            if index == plain[0]:
                together = iter(
                    score_modes(
                        key_path,
                        response_path,
                        options=[options[i] for i in plain],
                        per_doc=[keep[i] for i in plain],
                    )
                )
            results.append(next(together))
    return results


def _coreference_asked(options: ScoringOptions) -> bool:
    return bool(
        options.metrics
        or options.extra_metrics
        or options.keep_non_referring
        or options.keep_bridging
    )


def _with_empty_nodes(
    key_path: str,
    response_path: str,
    options: ScoringOptions,
    *,
    per_doc: bool,
    processes: int | None,
) -> CorpusResult:
    """`score` for options that ask for the empty-node measures: those of the whole files
    (`scoring.empty_nodes`), beside the coreference scores when any are asked for too."""
    measures = empty_node_result(key_path, response_path)
    if not _coreference_asked(options):
        return measures
    result = score(
        key_path,
        response_path,
        options=replace(options, empty_nodes=False),
        per_doc=per_doc,
        processes=processes,
    )
    result.metrics.update(measures.metrics)
    return result


def score_files(
    key_path: str, response_path: str, options: Sequence[str] = (), *, processes: int | None = None
) -> dict[str, Any]:
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
    """
    return score_invocation(key_path, response_path, parse_options(options), processes=processes)


def score_invocation(
    key_path: str, response_path: str, invocation: Invocation, *, processes: int | None = None
) -> dict[str, Any]:
    """`score_files` for options parsed already."""
    result = score(
        key_path,
        response_path,
        options=invocation.options,
        per_doc=invocation.per_doc,
        processes=processes,
    )
    warnings = list(invocation.notes)
    warnings += [warning for warning in result.warnings if warning not in warnings]
    return result_dict(result, invocation.options, per_doc=invocation.per_doc, warnings=warnings)
