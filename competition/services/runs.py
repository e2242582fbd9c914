"""A run's public description: its name, description and paper/code link, set at upload and
edited later by its team (or the competition's organizers); the leaderboards show them."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import Membership, Submission
from competition.visibility import user_is_organizer

MAX_LINK = 500


def run_link_check(*, link: str) -> str:
    """The link, stripped, if it is an http(s) address; raises ``invalid_link`` otherwise (a
    ``javascript:`` or ``file:`` link never reaches a board)."""
    link = (link or "").strip()
    if not link:
        return ""
    try:
        URLValidator(schemes=["http", "https"])(link)
    except ValidationError:
        raise CompetitionError("invalid_link", link=link[:80]) from None
    if len(link) > MAX_LINK:
        raise CompetitionError("invalid_link", link=link[:80])
    return link


@transaction.atomic
def submission_describe(
    *, submission: Submission, user, run_name: str, description: str, link: str
) -> Submission:
    """Set the run's name, description and link. Its team's members and the competition's
    organizers may; the scores and the run itself are untouched."""
    competition = submission.phase.task.competition
    member = Membership.objects.filter(team_id=submission.team_id, user=user).exists()
    if not member and not user_is_organizer(competition=competition, user=user):
        raise CompetitionError("not_a_member", team=submission.team.name)
    link = run_link_check(link=link)
    Submission.objects.filter(pk=submission.pk).update(
        run_name=run_name.strip()[:100],
        description=description.strip(),
        link=link,
        updated_at=timezone.now(),
    )
    submission.refresh_from_db()
    return submission
