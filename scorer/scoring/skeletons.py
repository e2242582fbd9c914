"""Key skeletons: what a response file is checked against, without any annotation.

`key_skeleton` reads a key into its format and, per document in order, its name, its word
forms and (compact files) its sentence ids; `validate_against_skeleton` runs the checks of
`scoring.validation.validate_pair` on a response against it, so that a participant can check
files offline without the key. Re-exported by `scoring.api`, where callers import them from.
"""

from __future__ import annotations

from typing import Any

from scoring.errors import ScoringInputError
from scoring.format_check import format_mismatch
from scoring.model import Document
from scoring.options import ScoringOptions
from scoring.pairing import file_format
from scoring.plan import ScoringPlan
from scoring.validate import document_checks
from scoring.validation import (
    check_response,
    id_sentences,
    misspelt_attributes,
    read_side,
    skeleton_document,
)

__all__ = ["key_skeleton", "validate_against_skeleton"]


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
    for doc in read_side(str(key_path), kind, plan, "key", problems):
        problems.extend(document_checks(doc, plan))
        documents.append(skeleton_document(doc, kind))
    if problems:
        raise problems[0]
    return {"format": kind, "documents": documents}


def validate_against_skeleton(
    skeleton: dict[str, Any],
    response_path: str,
    *,
    options: ScoringOptions,
    key_label: str = "the key",
    max_problems: int = 50,
    warnings: list[str] | None = None,
    expected_by: str = "the key",
) -> list[ScoringInputError]:
    """`validate_pair` with the key given as its `key_skeleton`: the same readers and checks
    of the response (format, parse errors, cycles, documents, tokens, sentence ids); the
    key's own problems are not checked (the organizers' side). Messages name the key
    ``key_label``; ``warnings``: as `validate_pair`'s; a response in the other format is one
    problem saying so, naming who expects the key's format ``expected_by``
    (`scoring.format_check`)."""
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
    if warnings is not None and formats["response"] == "corefud":
        warnings.extend(misspelt_attributes(str(response_path)))
    key_docs = (
        Document(
            str(doc["name"]),
            key_label,
            0,
            tuple(map(str, doc.get("tokens", ()))),
            sentences=id_sentences(map(str, doc.get("sent_ids", ()))),
        )
        for doc in skeleton.get("documents", ())
    )
    return check_response(response_path, formats, key_docs, key_label, plan, problems, max_problems)
