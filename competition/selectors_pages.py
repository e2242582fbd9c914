"""Reads behind a competition's pages, terms, team approval and announcements."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet

from competition.models import (
    Announcement,
    AnnouncementOptOut,
    Competition,
    CompetitionPage,
    Membership,
    ParticipationRules,
    Team,
    TeamApproval,
    TermsAcceptance,
)

PAGE_KINDS = [kind for kind, _ in CompetitionPage.Kind.choices]


def pages_of(*, competition: Competition) -> dict[str, CompetitionPage]:
    """The competition's non-empty pages by kind."""
    return {
        page.kind: page
        for page in CompetitionPage.objects.filter(competition=competition)
        if page.body.strip()
    }


def page_body(*, competition: Competition, kind: str) -> str:
    page = CompetitionPage.objects.filter(competition=competition, kind=kind).first()
    return page.body if page else ""


def terms_text(*, competition: Competition) -> str:
    """The competition's terms (Markdown), "" when it has none."""
    terms = CompetitionPage.Kind.TERMS
    return page_body(competition=competition, kind=terms).strip()  # type: ignore[arg-type]


def terms_digest(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()


def terms_accepted_at(*, competition: Competition, user):
    """When ``user`` accepted the current terms; None if not (or not logged in). A
    competition without terms needs no acceptance: its answer is None too."""
    if user is None or not user.is_authenticated:
        return None
    text = terms_text(competition=competition)
    if not text:
        return None
    acceptance = TermsAcceptance.objects.filter(
        competition=competition, user=user, terms_sha256=terms_digest(text)
    ).first()
    return acceptance.accepted_at if acceptance else None


def terms_pending(*, competition: Competition, user) -> bool:
    """True when the competition has terms that ``user`` has not accepted as they read now."""
    return (
        bool(terms_text(competition=competition))
        and terms_accepted_at(competition=competition, user=user) is None
    )


def team_approval_required(*, competition: Competition) -> bool:
    rules = ParticipationRules.objects.filter(competition=competition).first()
    return bool(rules and rules.team_approval)


def deadline_reminders_on(*, competition: Competition) -> bool:
    rules = ParticipationRules.objects.filter(competition=competition).first()
    return bool(rules and rules.deadline_reminders)


@dataclass(frozen=True)
class ApprovalState:
    """A team's standing: 'approved' (or approval not needed), 'pending' or 'rejected'."""

    status: str
    reason: str = ""

    @property
    def may_submit(self) -> bool:
        return self.status == "approved"


def team_approval_state(*, team: Team) -> ApprovalState:
    if team.is_organizer_team or not team_approval_required(competition=team.competition):
        return ApprovalState("approved")
    decision = TeamApproval.objects.filter(team=team).first()
    if decision is None:
        return ApprovalState("pending")
    return ApprovalState(decision.status, decision.reason)


def data_access_block(*, competition: Competition, user) -> str | None:
    """What keeps ``user`` (not an organizer) from a competition's released data: the same
    as from submitting. None: nothing; "login"; "terms" (the current terms are not accepted);
    "team" (the competition approves teams and the user is in none); "team_pending" or
    "team_rejected" (the user's team is not approved)."""
    if user is None or not user.is_authenticated:
        return "login"
    if terms_pending(competition=competition, user=user):
        return "terms"
    if not team_approval_required(competition=competition):
        return None
    membership = (
        Membership.objects.filter(competition=competition, user=user).select_related("team").first()
    )
    if membership is None:
        return "team"
    state = team_approval_state(team=membership.team)
    return None if state.may_submit else f"team_{state.status}"


def teams_for_approval(*, competition: Competition) -> list[dict]:
    """Every team with its members (oldest first: the captain leads) and its standing,
    pending first; the organizers' own team last, needing no approval."""
    members = Membership.objects.select_related("user").order_by("joined_at", "id")
    teams = (
        Team.objects.filter(competition=competition)
        .select_related("approval")
        .prefetch_related(Prefetch("memberships", queryset=members))
        .order_by("created", "name")
    )
    rows = []
    for team in teams:
        decision = getattr(team, "approval", None)  # None: no decision yet
        status = (
            "organizers" if team.is_organizer_team else decision.status if decision else "pending"
        )
        memberships = list(team.memberships.all())
        rows.append(
            {
                "team": team,
                "status": status,
                "reason": decision.reason if decision else "",
                "decided_at": decision.decided_at if decision else None,
                "memberships": memberships,
                "members": [m.user.username for m in memberships],
            }
        )
    order = {"pending": 0, "rejected": 1, "approved": 2, "organizers": 3}
    rows.sort(key=lambda row: order[row["status"]])
    return rows


def announcements_of(*, competition: Competition) -> QuerySet[Announcement]:
    return Announcement.objects.filter(competition=competition).order_by("-created_at", "-id")


def announcement_emails_wanted(*, competition: Competition, user) -> bool:
    return not AnnouncementOptOut.objects.filter(competition=competition, user=user).exists()


def announcement_recipients(*, competition: Competition) -> list:
    """Members of the competition's participant teams with an e-mail address who did not opt
    out, each once."""
    opted_out = AnnouncementOptOut.objects.filter(competition=competition).values("user_id")
    memberships = (
        Membership.objects.filter(competition=competition, team__is_organizer_team=False)
        .exclude(user__email="")
        .exclude(user_id__in=opted_out)
        .select_related("user")
        .order_by("user_id")
    )
    return [m.user for m in memberships]
