"""HTML pages and downloads of the leaderboard app. Views stay thin: parse, select, render.

Organizer pages answer 404 to everyone who is not an organizer of the competition (or staff),
so they do not even reveal that the page exists.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from competition import services as competition_services
from competition.errors import CompetitionError
from competition.lookups import organizer_phase_or_404 as _organizer_phase_or_404
from competition.lookups import phase_or_404 as _phase_or_404
from competition.lookups import submission_or_404 as _submission_or_404
from competition.models import Competition, Phase, RescoreBatch, Submission
from competition.selectors import (
    competition_detail,
    submissions_scored_on_old_input,
)
from competition.services.organize import phase_rescore_start
from competition.visibility import user_is_organizer
from leaderboard import charts, exports, services
from leaderboard.board_views import (
    board_languages_content,
    board_page_content,
    board_track_name,
)
from leaderboard.models import BoardSnapshot
from leaderboard.params import board_params
from leaderboard.selectors import (
    TASK_MODE,
    BoardQueryError,
    leaderboard_board,
    metric_label,
    phase_run_scores,
    submission_analysis,
    submission_compare,
    task_gap_table,
)
from leaderboard.selectors.precomputed import kept_view
from leaderboard.significance import DEFAULT_SAMPLES, DEFAULT_SEED

MAX_COMPARE_SAMPLES = 10_000


@require_GET
def competition_boards(request: HttpRequest, competition: str) -> HttpResponse:
    """Every task and phase of a competition, with the predicted-versus-gold tables."""
    try:
        comp = competition_detail(slug=competition, user=request.user)
    except Competition.DoesNotExist:
        raise Http404("No such competition.") from None
    tasks = [
        {
            "task": task,
            "phases": list(task.phases.all()),
            "tracks": list(task.tracks.all()),
            "gap": task_gap_table(task=task, viewer=request.user),
        }
        for task in comp.tasks.all()
    ]
    frozen = set(
        BoardSnapshot.objects.filter(phase__task__competition=comp, active=True).values_list(
            "phase_id", flat=True
        )
    )
    return render(
        request,
        "leaderboard/competition.html",
        {
            "competition": comp,
            "tasks": tasks,
            "frozen": frozen,
            "is_organizer": user_is_organizer(competition=comp, user=request.user),
        },
    )


def _kept(phase: Phase, request: HttpRequest, view: str, build) -> tuple[str, bool]:
    found = kept_view(phase=phase, viewer=request.user, view=view, query=request.GET, build=build)
    return found.content, found.error


@require_GET
def board(request: HttpRequest, competition: str, task: str, phase: str) -> HttpResponse:
    phase_obj = _phase_or_404(request, competition, task, phase)
    content, error = _kept(
        phase_obj,
        request,
        "page",
        lambda: board_page_content(phase=phase_obj, viewer=request.user, query=request.GET),
    )
    return render(
        request,
        "leaderboard/board.html",
        {
            # the board part: our own template's output, rendered with its escaping
            "phase": phase_obj,
            "task": phase_obj.task,
            "content": mark_safe(content),
            "track_name": board_track_name(phase=phase_obj, query=request.GET, viewer=request.user),
        },
        status=400 if error else 200,
    )


@require_GET
def board_languages_page(
    request: HttpRequest, competition: str, task: str, phase: str
) -> HttpResponse:
    """The board by language and as a team × dataset heatmap (same rows, same parameters);
    a public one is kept as the board is."""
    phase_obj = _phase_or_404(request, competition, task, phase)
    content, error = _kept(
        phase_obj,
        request,
        "languages",
        lambda: board_languages_content(phase=phase_obj, viewer=request.user, query=request.GET),
    )
    return render(
        request,
        "leaderboard/languages.html",
        {
            # the by-language part: our own template's output, rendered with its escaping
            "phase": phase_obj,
            "task": phase_obj.task,
            "content": mark_safe(content),
        },
        status=400 if error else 200,
    )


@require_GET
def board_export(
    request: HttpRequest, competition: str, task: str, phase: str, fmt: str
) -> HttpResponse:
    """The same board as the page (same parameters, same viewer) as CSV or JSON."""
    phase_obj = _phase_or_404(request, competition, task, phase)
    try:
        params = board_params(request.GET)
        result = leaderboard_board(
            phase=phase_obj,
            viewer=request.user,
            groups=request.GET.get("groups") == "1",
            **params.as_kwargs(),
        )
    except BoardQueryError as exc:
        return HttpResponse(f"{exc}\n", status=400, content_type="text/plain; charset=utf-8")
    name = f"{competition}-{task}-{phase}-{result.mode.replace(' ', '_')}-{result.metric}"
    if fmt == "csv":
        response = HttpResponse(exports.board_csv(result), content_type="text/csv; charset=utf-8")
    else:
        response = HttpResponse(exports.board_json(result), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{slugify(name)}.{fmt}"'
    return response


@require_GET
def analysis(request: HttpRequest, submission_id: int) -> HttpResponse:
    submission = _submission_or_404(request, submission_id)
    result = submission_analysis(
        submission=submission, viewer=request.user, document_metric=request.GET.get("metric")
    )
    if result is None:
        raise Http404("No scores to show.")
    return render(
        request,
        "leaderboard/analysis.html",
        {
            "analysis": result,
            "submission": submission,
            **analysis_charts(result),
            "is_organizer": user_is_organizer(
                competition=submission.phase.task.competition, user=request.user
            ),
        },
    )


def analysis_charts(result) -> dict:
    """The two charts of the analysis: primary F1 per sub-corpus, F1 per metric (average)."""
    primary = result.line(result.primary)
    per_subcorpus = None
    if primary is not None:
        values = [
            (c.name, primary.cells[c.slug].f1 if c.slug in primary.cells else None)
            for c in result.columns
            if c.available
        ]
        values.append(("Average", primary.average.f1 if primary.average else None))
        per_subcorpus = charts.bar_chart(values, width=max(320, 90 * len(values) + 40))
    profile_values = [
        (line.label, line.average.f1 if line.average else None)
        for line in result.lines
        if line.mode == TASK_MODE and ":" not in line.metric
    ]
    profile = (
        charts.bar_chart(profile_values, width=max(320, 70 * len(profile_values) + 40))
        if profile_values
        else None
    )
    return {
        "subcorpus_chart": per_subcorpus,
        "profile_chart": profile,
        "primary_label": metric_label(result.primary),
    }


@require_GET
def documents_export(request: HttpRequest, submission_id: int, fmt: str) -> HttpResponse:
    submission = _submission_or_404(request, submission_id)
    result = submission_analysis(
        submission=submission, viewer=request.user, document_metric=request.GET.get("metric")
    )
    if result is None:
        raise Http404("No scores to show.")
    if fmt == "csv":
        response = HttpResponse(
            exports.documents_csv(result), content_type="text/csv; charset=utf-8"
        )
    else:
        response = HttpResponse(exports.documents_json(result), content_type="application/json")
    name = f"submission-{submission.pk}-documents-{result.document_metric}"
    response["Content-Disposition"] = f'attachment; filename="{slugify(name)}.{fmt}"'
    return response


def _int_param(request: HttpRequest, name: str, default: int | None = None) -> int | None:
    raw = request.GET.get(name)
    if raw in (None, ""):
        return default
    try:
        return int(raw)
    except ValueError:
        return None


@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """Paired significance of two runs of one phase: ``?a=ID&b=ID[&metric=&samples=&seed=]``."""
    a_id, b_id = _int_param(request, "a"), _int_param(request, "b")
    samples = _int_param(request, "samples", DEFAULT_SAMPLES)
    seed = _int_param(request, "seed", DEFAULT_SEED)
    if a_id is not None and request.GET.get("b") in (None, ""):
        return _compare_choose(request, _submission_or_404(request, a_id))
    if (
        a_id is None
        or b_id is None
        or samples is None
        or seed is None
        or not 1 <= samples <= MAX_COMPARE_SAMPLES
    ):
        return render(
            request,
            "leaderboard/compare.html",
            {
                "error": f"Give two submission ids (?a=ID&b=ID); samples between 1 and "
                f"{MAX_COMPARE_SAMPLES}."
            },
            status=400,
        )
    a, b = _submission_or_404(request, a_id), _submission_or_404(request, b_id)
    metric = request.GET.get("metric") or None
    results = submission_compare(
        a=a, b=b, viewer=request.user, metric=metric, samples=samples, seed=seed
    )
    if results is None:
        raise Http404("These runs cannot be compared.")
    return render(
        request,
        "leaderboard/compare.html",
        {
            "a": a,
            "b": b,
            "results": results,
            "samples": samples,
            "seed": seed,
            "documents": _document_pairs(
                a, b, viewer=request.user, metric=metric or a.phase.task.primary_metric
            ),
            "metric": metric or a.phase.task.primary_metric,
            "metric_label": metric_label(metric or a.phase.task.primary_metric),
        },
    )


def _document_pairs(a: Submission, b: Submission, *, viewer, metric: str) -> list[dict]:
    """Both runs' F1 on every document they share, largest difference first."""
    left = submission_analysis(submission=a, viewer=viewer, document_metric=metric)
    right = submission_analysis(submission=b, viewer=viewer, document_metric=metric)
    if left is None or right is None or left.document_metric != right.document_metric:
        return []
    theirs = {(d.subcorpus, d.document): d.f1 for d in right.documents}
    pairs: list[dict[str, Any]] = [
        {
            "subcorpus": d.subcorpus,
            "document": d.document,
            "a": d.f1,
            "b": theirs[(d.subcorpus, d.document)],
            "difference": d.f1 - theirs[(d.subcorpus, d.document)],
        }
        for d in left.documents
        if (d.subcorpus, d.document) in theirs
    ]
    pairs.sort(key=lambda p: (-abs(p["difference"]), p["subcorpus"], p["document"]))
    return pairs


def _compare_choose(request: HttpRequest, a: Submission) -> HttpResponse:
    """Run A is known: offer the other runs of its phase the viewer may see as run B."""
    board = leaderboard_board(phase=a.phase, viewer=request.user, runs=True)
    if a.pk not in {r.entry.submission_id for r in board.rows}:
        raise Http404("No such run.")
    choices = [r for r in board.rows if r.entry.submission_id != a.pk and r.average]
    return render(
        request,
        "leaderboard/compare.html",
        {
            "a": a,
            "choices": choices,
            "board": board,
            "samples": DEFAULT_SAMPLES,
            "seed": DEFAULT_SEED,
        },
    )


# --- organizers -----------------------------------------------------------------------------


def organize_phase(request: HttpRequest, competition: str, task: str, phase: str) -> HttpResponse:
    """GET: the phase's organizer page. POST ``action``: rescore, reveal, hide, freeze,
    unfreeze."""
    phase_obj = _organizer_phase_or_404(request, competition, task, phase)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "rescore":  # returns at once; its page shows the progress
            batch = phase_rescore_start(phase=phase_obj, user=request.user)
            messages.success(
                request,
                f"{len(batch.submission_ids)} submissions queued for "
                "re-scoring; earlier scores are kept.",
            )
            return redirect(
                "leaderboard:rescore_progress",
                competition=competition,
                task=task,
                phase=phase,
                batch_id=batch.pk,
            )
        try:
            message = _phase_action(request, phase_obj, action)
        except CompetitionError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, message)
        return redirect(request.path)
    submissions = list(
        Submission.objects.filter(phase=phase_obj)
        .select_related("team", "track")
        .prefetch_related("runs")
        .order_by("-created_at", "-id")[:500]
    )
    return render(
        request,
        "leaderboard/organize.html",
        {
            "scores": phase_run_scores(phase=phase_obj, submission_ids=[s.pk for s in submissions]),
            "has_tracks": phase_obj.task.tracks.exists(),
            "phase": phase_obj,
            "task": phase_obj.task,
            "competition": phase_obj.task.competition,
            "submissions": submissions,
            "stale": submissions_scored_on_old_input(phase=phase_obj),
            "snapshots": BoardSnapshot.objects.filter(phase=phase_obj).select_related("created_by"),
            "is_public": phase_obj.leaderboard_is_public(at=_now()),
            "last_batch": RescoreBatch.objects.filter(phase=phase_obj).first(),
        },
    )


def _now():
    from django.utils import timezone

    return timezone.now()


def _phase_action(request: HttpRequest, phase: Phase, action: str) -> str:
    if action == "reveal":
        competition_services.phase_reveal(phase=phase, actor=request.user)
        return "The leaderboard is now public."
    if action == "hide":
        competition_services.phase_hide(phase=phase, actor=request.user)
        return "The leaderboard is hidden from participants."
    if action == "freeze":
        snapshot = services.board_freeze(
            phase=phase, user=request.user, note=request.POST.get("note", "")
        )
        return f"The board was frozen at {snapshot.created_at:%Y-%m-%d %H:%M} UTC."
    if action == "unfreeze":
        services.board_unfreeze(phase=phase, user=request.user)
        return "The live board is shown again; the frozen boards are kept."
    return f"Unknown action {action!r}."


@require_POST
def organize_submission(request: HttpRequest, submission_id: int) -> HttpResponse:
    """POST ``action``: rescore, cancel, disqualify (with ``reason``)."""
    submission = _submission_or_404(request, submission_id)
    phase = submission.phase
    if not user_is_organizer(competition=phase.task.competition, user=request.user):
        raise Http404("No such page.")
    action = request.POST.get("action", "")
    try:
        if action == "rescore":
            competition_services.submission_rescore(submission=submission, actor=request.user)
            messages.success(request, f"Submission #{submission.pk} queued for re-scoring.")
        elif action == "cancel":
            competition_services.submission_cancel(submission=submission, user=request.user)
            messages.success(request, f"Submission #{submission.pk} cancelled.")
        elif action == "disqualify":
            competition_services.submission_disqualify(
                submission=submission, reason=request.POST.get("reason", ""), actor=request.user
            )
            messages.success(request, f"Submission #{submission.pk} disqualified.")
        else:
            messages.error(request, f"Unknown action {action!r}.")
    except CompetitionError as exc:
        messages.error(request, exc.message)
    return redirect(
        reverse(
            "leaderboard:organize_phase",
            kwargs={
                "competition": phase.task.competition.slug,
                "task": phase.task.slug,
                "phase": phase.slug,
            },
        )
    )
