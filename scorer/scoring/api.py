"""The scorer's Python interface: what the command line and the platform call.

- `score(key_path, response_path, options=ScoringOptions(...))` → a typed `CorpusResult`;
  `scoring.serialize.score_rows` turns it into flat score rows, the platform's data format;
  `score_modes(key_path, response_path, options=[...])` → one per mode, the files read once;
- `score_files(key_path, response_path, words)` → the ``--json`` object (a dict), for the
  command line and for callers that speak in option words;
- `read_documents(path, format="auto")` → list of `Document`;
- `validate_response(key_path, response_path, options)` → every problem that would stop
  scoring, for the platform's upload check (the same readers and checks as `score`, so the
  validator and the scorer never disagree).

Nothing here prints or exits: bad input raises `ScoringInputError`, bad options `UsageError`.
How documents are paired is `scoring.pairing`; how a run uses a second core is
`scoring.runner`; how a result becomes data is `scoring.serialize`.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import partial
from itertools import repeat
from typing import Any

from scoring.empty_nodes import empty_node_result
from scoring.errors import ScoringInputError
from scoring.format_check import format_mismatch
from scoring.model import Document, Sentence
from scoring.options import Invocation, ScoringOptions, parse_options
from scoring.pairing import FORM_CHECKED, Pairing, file_format, read_other
from scoring.plan import ScoringPlan
from scoring.readers import compact, detect_format, exploded
from scoring.results import CorpusResult
from scoring.runner import run, run_modes
from scoring.serialize import result_dict
from scoring.validate import (
    compare_sentences,
    compare_tokens,
    document_checks,
    document_pairing,
    sentence_ids,
)

__all__ = [
    "read_documents",
    "score",
    "score_files",
    "score_invocation",
    "score_modes",
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
        # The empty-node measures read the files their own way: such a mode is scored alone
        # and the others together, in order, as below.
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
    plans = [ScoringPlan.compile(each) for each in options]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, plan in enumerate(plans):
        groups.setdefault(plan.reading, []).append(index)
    results = [None] * len(plans)
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


# -- validation ------------------------------------------------------------------------------
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
) -> list[ScoringInputError]:
    """`validate_response` for options given as a `ScoringOptions`. With ``key_documents``
    a list, the key's documents are appended to it as they are read: (name, number of
    tokens), in file order (a gold key checked as a run of itself needs no other reading).
    With ``skeleton`` a dict, it receives the key's `key_skeleton` from the same reading
    (what is read of the key is its skeleton where the key has no problem)."""
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

    read = key_documents
    if skeleton is not None:
        skeleton.update(format=formats["key"], documents=[])

    def key_docs() -> Iterator[Document]:
        for doc in _documents(str(key_path), formats["key"], plan, "key", problems):
            if read is not None:
                read.append((doc.name, len(doc.tokens)))
            if skeleton is not None:
                skeleton["documents"].append(_skeleton_document(doc, formats["key"]))
            problems.extend(document_checks(doc, plan))
            yield doc

    return _check_response(
        response_path, formats, key_docs(), str(key_path), plan, problems, max_problems
    )


def key_skeleton(key_path: str, *, options: ScoringOptions) -> dict[str, Any]:
    """What a response file is checked against, without any annotation: the key's format and,
    per document in order, its name, its word forms and (compact files) its sentence ids.
    `validate_against_skeleton` runs `validate_pair`'s checks of a response against it, so a
    participant can check files offline without the key. Raises the key's first problem,
    as `validate_pair` finds it (a reading problem, or a cycle the options follow)."""
    plan = ScoringPlan.compile(options)
    problems: list[ScoringInputError] = []
    kind = file_format(str(key_path), plan)
    documents = []
    for doc in _documents(str(key_path), kind, plan, "key", problems):
        problems.extend(document_checks(doc, plan))
        documents.append(_skeleton_document(doc, kind))
    if problems:
        raise problems[0]
    return {"format": kind, "documents": documents}


def _skeleton_document(doc: Document, kind: str) -> dict[str, Any]:
    return {
        "name": doc.name,
        "tokens": list(doc.tokens),
        "sent_ids": sentence_ids(doc) if kind == "corefud" else [],
    }


def validate_against_skeleton(
    skeleton: dict[str, Any],
    response_path: str,
    *,
    options: ScoringOptions,
    key_label: str = "the key",
    max_problems: int = 50,
    expected_by: str = "the key",
) -> list[ScoringInputError]:
    """`validate_pair` with the key given as its `key_skeleton`: the same readers and checks
    of the response (format, parse errors, cycles, documents, tokens, sentence ids); the
    key's own problems are not checked (the organizers' side). Messages name the key
    ``key_label``; a response in the other format is one problem saying so, naming who
    expects the key's format ``expected_by`` (`scoring.format_check`)."""
    plan = ScoringPlan.compile(options)
    problems: list[ScoringInputError] = []
    formats = {"key": str(skeleton.get("format", "ua"))}
    wrong = format_mismatch(str(response_path), formats["key"], expected_by=expected_by)
    if wrong is not None:
        return [wrong]
    try:
        formats["response"] = file_format(str(response_path), plan)
    except ScoringInputError as problem:
        return [problem]
    key_docs = (
        Document(
            str(doc["name"]),
            key_label,
            0,
            tuple(map(str, doc.get("tokens", ()))),
            sentences=_id_sentences(map(str, doc.get("sent_ids", ()))),
        )
        for doc in skeleton.get("documents", ())
    )
    return _check_response(
        response_path, formats, key_docs, key_label, plan, problems, max_problems
    )


_new_sentence = partial(tuple.__new__, Sentence)


def _id_sentences(ids: Iterable[str]) -> tuple[Sentence, ...]:
    """A sentence holding only ``# sent_id = ID`` for each id: what a response's sentences
    are compared with the key's by (`compare_sentences`); made by C-level steps, as a
    document can have thousands."""
    comments = zip(map("# sent_id = {}".format, ids))
    return tuple(map(_new_sentence, zip(comments, repeat(()))))


def _documents(
    path: str, kind: str, plan: ScoringPlan, side: str, problems: list[ScoringInputError]
) -> Iterator[Document]:
    if kind == "ua":
        return exploded.iter_documents(path, collect=problems, **plan.reader(side).settings())
    if kind == "corefud":
        return compact.iter_documents(path, collect=problems, layout=False)
    return iter(read_other(path, kind, problems))


def _check_response(
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
    for doc in _documents(str(response_path), formats["response"], plan, "response", problems):
        response_names.append((doc.name, doc.line))
        problems.extend(document_checks(doc, plan))
        # keep only what the key is compared with: tokens (and sentence ids, compact files)
        layout = _id_sentences(sentence_ids(doc)) if sentences else ()
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
