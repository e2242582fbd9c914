"""The gold keys a run is scored against, and those replaced since its files were checked
(a run whose files no longer fit a replaced key is set aside, not failed)."""

from __future__ import annotations

from competition.models import ScoringRun, SubCorpus, Submission
from competition.scoring.results import scored_files


def scoring_keys(submission: Submission) -> dict[str, str]:
    """{sub-corpus id: SHA-256 of its gold key} for the sub-corpora a submission is scored
    on now."""
    rows = scored_files(submission).values_list("subcorpus_id", "subcorpus__sha256")
    return {str(subcorpus_id): sha for subcorpus_id, sha in rows}


def submission_replaced_keys(*, submission: Submission) -> list[str]:
    """The sub-corpora (names) whose gold key was replaced since the run's files were
    checked: against the keys of its upload, or, for runs stored before those were kept,
    of its current scoring. Empty when nothing says so."""
    before: dict[str, str] = submission.validated_keys or next(
        iter(
            ScoringRun.objects.filter(submission=submission, is_current=True).values_list(
                "keys", flat=True
            )
        ),
        {},
    )
    if not before:
        return []
    now = scoring_keys(submission)
    changed = [int(pk) for pk, sha in now.items() if pk in before and before[pk] != sha]
    return list(
        SubCorpus.objects.filter(pk__in=changed)
        .order_by("order", "pk")
        .values_list("name", flat=True)
    )


def set_aside_message(*, names: list[str], problem: str) -> str:
    keys = (
        "the gold key of " + ", ".join(names)
        if len(names) == 1
        else "the gold keys of " + ", ".join(names)
    )
    return (
        f"The organizers replaced {keys} after this run was uploaded, and the run's "
        f"files do not fit the new key ({problem}). The run is set aside for the "
        "organizers to look at; it does not count against your team's limits."
    )
