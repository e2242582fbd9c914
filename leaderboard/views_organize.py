"""The organizer's follow-up of a phase re-scoring, and the bulk export of final runs with
their scores. Both answer 404 to everyone but the competition's organizers (and staff)."""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from competition.lookups import batch_or_404 as _batch_or_404
from competition.lookups import organizer_phase_or_404 as _organizer_phase_or_404
from competition.services.organize import rescore_progress
from leaderboard import exports
from leaderboard.selectors.boards import phase_final_runs


@require_GET
def rescore_progress_page(
    request: HttpRequest, competition: str, task: str, phase: str, batch_id: int
) -> HttpResponse:
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    batch = _batch_or_404(phase_obj, batch_id)
    return render(
        request,
        "leaderboard/rescore_progress.html",
        {
            "phase": phase_obj,
            "task": phase_obj.task,
            "competition": phase_obj.task.competition,
            "batch": batch,
            "progress": rescore_progress(batch=batch),
        },
    )


@require_GET
def rescore_progress_json(
    request: HttpRequest, competition: str, task: str, phase: str, batch_id: int
) -> JsonResponse:
    """What the progress page polls: n of m runs re-scored."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    progress = rescore_progress(batch=_batch_or_404(phase_obj, batch_id))
    return JsonResponse(
        {
            "total": progress.total,
            "done": progress.done,
            "failed": progress.failed,
            "finished": progress.finished,
        }
    )


def member_name(original: str, slug: str, taken: set[str]) -> str:
    """A safe archive member name for an uploaded file: its own base name (no folders, no
    control characters), or ``<sub-corpus>-<name>`` when that is taken or empty."""
    base = (
        "".join(ch for ch in PurePosixPath(original.replace("\\", "/")).name if ch.isprintable())
        .strip()
        .lstrip(".")
    )
    name = base if base and base.lower() not in taken else f"{slug}-{base or 'response'}"
    taken.add(name.lower())
    return name


@require_GET
def final_runs_zip(request: HttpRequest, competition: str, task: str, phase: str) -> HttpResponse:
    """Every team's final run of the phase (the counts rule; in a task with tracks, one per
    team and track) as one zip: the response files teams uploaded, as uploaded and under
    their own names, in a folder per run; ``MANIFEST.csv`` (file by file, with the track
    and the name it was uploaded as), ``scores.csv`` (run × mode × sub-corpus × metric,
    every measure stored, the primary metric marked) and, where the competition asks them,
    ``system-cards.csv`` (each run's system-card answers, per track's final run). Gold keys
    are never in it."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    final = phase_final_runs(phase=phase_obj)
    # On disk, not in memory: a phase's final runs can add up to gigabytes.
    buffer = tempfile.TemporaryFile()
    manifest = [
        ["team", "track", "submission_id", "run_name", "subcorpus", "file", "uploaded_as", "sha256"]
    ]
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for run in final.runs:
            submission = run.submission
            folder = "-".join(
                filter(None, [slugify(run.team) or "team", run.track, str(submission.pk)])
            )
            taken: set[str] = set()
            for f in submission.files.all():
                path = Path(f.absolute_path)
                if not path.is_file():
                    continue
                # The bytes as uploaded, under the name they were uploaded with.
                member = f"{folder}/{member_name(f.original_name, f.subcorpus.slug, taken)}"
                archive.write(path, member)
                manifest.append(
                    [
                        run.team,
                        run.track,
                        submission.pk,
                        run.run_name,
                        f.subcorpus.slug,
                        member,
                        f.original_name,
                        f.sha256,
                    ]
                )
        archive.writestr("MANIFEST.csv", exports.rows_csv(manifest))
        if final.questions:
            archive.writestr("system-cards.csv", exports.final_run_cards_csv(final=final))
        archive.writestr("scores.csv", exports.final_run_scores_csv(final=final))
    buffer.seek(0)
    name = slugify(f"{competition}-{task}-{phase}-final-runs")
    return FileResponse(
        buffer, as_attachment=True, filename=f"{name}.zip", content_type="application/zip"
    )
