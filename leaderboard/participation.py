"""The participation figures an overview paper reports of a phase: registered, approved and
submitting teams, runs per team and track, submissions over time (a CSV and a small SVG
plot, written here: no plotting library).

Computed from the phase's rows (`participation_figures`) and stored with a frozen board's
record at the freeze, so the results package of a frozen phase reports them as they were.
Organizer teams, baselines and published results are not participants.
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from html import escape

from django.db.models import Count, Q
from django.db.models.functions import TruncDate

from competition.models import Phase, Submission, Team, TeamApproval


def participation_figures(*, phase: Phase) -> dict:
    """JSON-able figures: ``teams`` (registered, approved, submitting), ``runs`` (one line
    per team and track: runs, scored runs) and ``days`` (submissions per day)."""
    competition = phase.task.competition
    teams = Team.objects.filter(competition=competition, is_organizer_team=False)
    rules = getattr(competition, "participation_rules", None)
    needs_approval = bool(rules and rules.team_approval)
    runs = Submission.objects.filter(
        phase=phase, is_baseline=False, is_reference=False, team__is_organizer_team=False
    )
    per_team = (
        runs.values("team__name", "track__slug")
        .annotate(runs=Count("id"), scored=Count("id", filter=Q(status=Submission.Status.SCORED)))
        .order_by("team__name", "track__slug")
    )
    days = (
        runs.annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(runs=Count("id"))
        .order_by("day")
    )
    return {
        "teams": {
            "registered": teams.count(),
            "approval_needed": needs_approval,
            "approved": (
                teams.filter(approval__status=TeamApproval.Status.APPROVED).count()
                if needs_approval
                else teams.count()
            ),
            "submitting": runs.values("team_id").distinct().count(),
        },
        "runs": [
            {
                "team": row["team__name"],
                "track": row["track__slug"] or "",
                "runs": row["runs"],
                "scored": row["scored"],
            }
            for row in per_team
        ],
        "days": [{"day": row["day"].isoformat(), "runs": row["runs"]} for row in days],
    }


def summary_rows(figures: dict) -> list[list]:
    """The summary's lines (the first the header), for a CSV."""
    teams = figures["teams"]
    tracks = Counter(line["track"] for line in figures["runs"])
    rows: list[list] = [["figure", "value"]]
    rows += [
        ["registered teams", teams["registered"]],
        ["approved teams", teams["approved"] if teams["approval_needed"] else "no approval"],
        ["submitting teams", teams["submitting"]],
        ["runs", sum(line["runs"] for line in figures["runs"])],
        ["scored runs", sum(line["scored"] for line in figures["runs"])],
    ]
    rows += [[f"teams in track {t}", n] for t, n in sorted(tracks.items()) if t]
    return rows


def runs_rows(figures: dict) -> list[list]:
    """Runs per team and track (the first line the header), for a CSV."""
    return [["team", "track", "runs", "scored"]] + [
        [r["team"], r["track"], r["runs"], r["scored"]] for r in figures["runs"]
    ]


def days_rows(figures: dict) -> list[list]:
    """Submissions per day and their running total (the first line the header), for a CSV."""
    total = 0
    rows: list[list] = [["day", "submissions", "cumulative"]]
    for line in figures["days"]:
        total += line["runs"]
        rows.append([line["day"], line["runs"], total])
    return rows


def days_svg(figures: dict, *, width: int = 480, height: int = 200) -> str:
    """Submissions per day as bars, in a small standalone SVG (days without submissions
    between the first and the last are drawn as gaps)."""
    days = [(date.fromisoformat(line["day"]), line["runs"]) for line in figures["days"]]
    left, bottom, top, right = 40, height - 30, 10, width - 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10">',
        "<title>Submissions per day</title>",
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#333"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#333"/>',
    ]
    if days:
        first, last = days[0][0], days[-1][0]
        span = (last - first).days + 1
        most = max(n for _, n in days)
        step = (right - left) / span
        for day, n in days:
            h = (bottom - top) * n / most
            x = left + (day - first).days * step
            parts.append(
                f'<rect x="{x + step * 0.1:.1f}" y="{bottom - h:.1f}" width="{step * 0.8:.1f}" '
                f'height="{h:.1f}" fill="#4a7ab5"><title>{day.isoformat()}: {n}</title></rect>'
            )
        parts += [
            f'<text x="{left - 4}" y="{top + 8}" text-anchor="end">{most}</text>',
            f'<text x="{left - 4}" y="{bottom}" text-anchor="end">0</text>',
            f'<text x="{left}" y="{height - 12}">{escape(first.isoformat())}</text>',
            f'<text x="{right}" y="{height - 12}" text-anchor="end">'
            f"{escape(last.isoformat())}</text>",
        ]
    else:
        parts.append(f'<text x="{left + 10}" y="{(top + bottom) // 2}">no submissions</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
