"""The average and rank of a team's runs on their boards (see `competition.standings`)."""

from __future__ import annotations

from collections.abc import Sequence

from competition.models import Phase, Submission
from competition.standings import Standing
from leaderboard.selectors.boards import leaderboard_board


def run_standings(
    *, phase: Phase, viewer, submissions: Sequence[Submission]
) -> dict[int, Standing]:
    """One board of all runs per track the runs were sent to (the task's primary metric, the
    board's default order), and the team board for the team rank: exactly what ``viewer``
    sees on the leaderboard pages, hidden boards included."""
    wanted = {submission.pk for submission in submissions}
    tracks = {submission.track.slug if submission.track_id else None for submission in submissions}
    found: dict[int, Standing] = {}
    for track in tracks:
        runs = leaderboard_board(phase=phase, viewer=viewer, runs=True, track=track)
        teams = leaderboard_board(phase=phase, viewer=viewer, runs=False, track=track)
        team_rank = {row.entry.submission_id: row.rank for row in teams.rows}
        ranked = sum(1 for row in runs.rows if row.rank is not None)
        for row in runs.rows:
            sid = row.entry.submission_id
            if sid in wanted:
                found[sid] = Standing(
                    average=row.average.f1 if row.average is not None else None,
                    rank=row.rank,
                    runs=ranked,
                    team_rank=team_rank.get(sid),
                )
    return found
