"""What a freeze stores: the board's material (`snapshot_board_material`: its runs' scores,
every mode and metric) and the record's parts beside it (`frozen_record_parts`: procedure,
scorer version, rules, tracks, variant columns, system cards as they stood, published
averages, final runs, participation, the datasets without empty nodes), read back as one
typed value by `leaderboard.selectors.record.FrozenRecord`."""

from __future__ import annotations

from competition.models import Phase, PublishedAverage, SystemCardAnswer, SystemCardQuestion
from competition.services.boards import variant_columns
from leaderboard.participation import participation_figures
from leaderboard.selectors.averaged import datasets_without_empty_nodes
from leaderboard.selectors.boards import final_run_ids, snapshot_board_material
from leaderboard.selectors.record import RECORD_KEY
from leaderboard.selectors.variants import column_has_nothing_to_score
from scoring import __version__


def snapshot_material(*, phase: Phase) -> dict:
    """Everything a frozen board of ``phase`` shows, as JSON-able data for its snapshot."""
    material = snapshot_board_material(phase=phase)
    material[RECORD_KEY] = frozen_record_parts(phase=phase, material=material)
    return material


def frozen_record_parts(*, phase: Phase, material: dict) -> dict:
    """The record's parts of ``phase`` now, as JSON-able data, for its snapshot; ``material``
    is the snapshot's board material (its runs, read in the same transaction)."""
    task = phase.task
    scored = [e["submission_id"] for e in material["entries"] if e.get("status") == "scored"]
    questions = list(SystemCardQuestion.objects.filter(competition_id=task.competition_id))
    answers: dict[str, dict[str, str]] = {}
    slugs = {q.pk: q.slug for q in questions}
    for sid, question, value in SystemCardAnswer.objects.filter(
        submission__phase=phase, question_id__in=list(slugs)
    ).values_list("submission_id", "question_id", "value"):
        answers.setdefault(str(sid), {})[slugs[question]] = value
    published = (
        PublishedAverage.objects.filter(phase_id=phase.pk)
        .select_related("track")
        .order_by("order", "id")
    )
    return {
        "procedure": task.procedure,
        "scorer": __version__,
        "counts": phase.counts,
        "missing": phase.missing,
        "tracks": [{"slug": t.slug, "name": t.name} for t in task.tracks.all()],
        "variants": [
            {"mode": c.mode, "metric": c.metric, "label": c.label}
            for c in variant_columns(procedure=task.procedure)
            if not column_has_nothing_to_score(c, scored)
        ],
        "questions": [
            {
                "slug": q.slug,
                "text": q.text,
                "kind": q.kind,
                "choices": list(q.choices),
                "on_board": q.on_board,
            }
            for q in questions
        ],
        "answers": answers,
        "published": [
            {
                "track": a.track.name if a.track else "",
                "track_order": a.track.order if a.track else 0,
                "mode": a.mode,
                "metric": a.metric,
                "team": a.team,
                "system": a.system,
                "is_baseline": a.is_baseline,
                "average": a.average,
                "source": a.source,
                "order": a.order,
            }
            for a in published
        ],
        "final_runs": final_run_ids(material, phase=phase),
        "participation": participation_figures(phase=phase),
        "without_empty_nodes": sorted(datasets_without_empty_nodes(phase=phase)),
    }
