"""A competition's pages, terms, team approval and announcements: the writes.

Pages are Markdown written by the organizers (rendered by ``competition.markdown``, never as
raw HTML). When a competition has terms, creating or joining a team and submitting need the
acting user's acceptance of the terms as they read now (recorded with its time and the text's
SHA-256). A competition may ask its organizers to approve each team before it submits.
Announcements are e-mailed, after the transaction commits, to the members of its teams who did
not opt out; every mail carries a signed link that opts out without logging in.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives, get_connection, send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from competition.definition.spec import Limits
from competition.errors import CompetitionError, SubmissionRejected, TeamError
from competition.markdown import render_markdown
from competition.models import (
    Announcement,
    AnnouncementOptOut,
    AuditEntry,
    Competition,
    CompetitionPage,
    ParticipationRules,
    Team,
    TeamApproval,
    TermsAcceptance,
)
from competition.selectors_pages import (
    PAGE_KINDS,
    announcement_recipients,
    team_approval_state,
    terms_digest,
    terms_pending,
    terms_text,
)
from competition.services.audit import audit_record
from competition.services.dispatch import announcement_email_enqueue
from competition.visibility import competition_visible

logger = logging.getLogger(__name__)

UNSUBSCRIBE_SALT = "competition.announcements.unsubscribe"


def _absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


# --- pages ------------------------------------------------------------------------------


def page_save(*, competition: Competition, kind: str, body: str, user=None) -> CompetitionPage:
    """Set the Markdown of one of the competition's pages (an empty body hides the page).
    A page is text of at most ``DEFINITION_MAX_PAGE_BYTES`` (the limit of a definition's
    pages), without NUL."""
    if kind not in PAGE_KINDS:
        raise CompetitionError("unknown_page", kind=kind, kinds=", ".join(PAGE_KINDS))
    body = body.replace("\r\n", "\n").strip()
    limit = Limits.current().page_bytes
    if len(body.encode("utf-8", "surrogatepass")) > limit or "\x00" in body:
        raise CompetitionError("page_too_large", kind=kind, limit=limit)
    page, _ = CompetitionPage.objects.update_or_create(
        competition=competition,
        kind=kind,
        defaults={"body": body, "updated_at": timezone.now(), "updated_by": user},
    )
    return page


# --- terms ------------------------------------------------------------------------------


def terms_accept(*, competition: Competition, user) -> TermsAcceptance | None:
    """Record that ``user`` accepts the competition's terms as they read now (once per
    version of the text). None when the competition has no terms."""
    if not competition_visible(competition=competition, user=user):
        raise CompetitionError("no_competition")  # a draft: its organizers only
    text = terms_text(competition=competition)
    if not text:
        return None
    digest = terms_digest(text)
    try:
        with transaction.atomic():
            acceptance, _ = TermsAcceptance.objects.get_or_create(
                competition=competition, user=user, terms_sha256=digest
            )
    except IntegrityError:  # the same user accepting twice at once
        acceptance = TermsAcceptance.objects.get(
            competition=competition, user=user, terms_sha256=digest
        )
    return acceptance


def terms_check(*, competition: Competition, user, error=TeamError) -> None:
    """Refuse (``terms_not_accepted``) a user who has not accepted the current terms, and
    (``no_competition``) anyone but its organizers in a draft: nobody else takes part in a
    competition that is not published (its pages answer 404 before this)."""
    if user is not None and not competition_visible(competition=competition, user=user):
        raise error("no_competition")
    if user is not None and terms_pending(competition=competition, user=user):
        url = _absolute(
            reverse("competition:page", kwargs={"slug": competition.slug, "kind": "terms"})
        )
        raise error("terms_not_accepted", competition=competition.title, url=url)


def participation_check(*, team: Team, user) -> None:
    """What a participant team's member needs before submitting beyond limits and dates:
    accepted terms and, where the competition asks for it, an approved team."""
    terms_check(competition=team.competition, user=user, error=SubmissionRejected)
    state = team_approval_state(team=team)
    if state.status == "pending":
        raise SubmissionRejected("team_pending", team=team.name)
    if state.status == "rejected":
        raise SubmissionRejected(
            "team_rejected", team=team.name, reason=state.reason or "no reason was given"
        )


# --- team approval ----------------------------------------------------------------------


def team_approval_require(*, competition: Competition, required: bool) -> ParticipationRules:
    """Turn the approval of teams on or off. Teams without a decision wait while it is on."""
    rules, _ = ParticipationRules.objects.update_or_create(
        competition=competition, defaults={"team_approval": required}
    )
    return rules


def deadline_reminders_set(*, competition: Competition, enabled: bool) -> ParticipationRules:
    """Turn on or off the e-mail to teams with no run 48 hours before a test phase closes
    (competition.services.reminders)."""
    rules, _ = ParticipationRules.objects.update_or_create(
        competition=competition, defaults={"deadline_reminders": enabled}
    )
    return rules


def team_decide(*, team: Team, approve: bool, reason: str = "", user=None) -> TeamApproval:
    """Approve or reject a team (a rejection says why; the team sees the reason). Its members
    are told by e-mail when the decision changes (a second click sends nothing)."""
    if team.is_organizer_team:
        raise CompetitionError(
            "invalid_status",
            submission=team.name,
            status="organizers",
            expected="a participant team",
        )
    status = TeamApproval.Status.APPROVED if approve else TeamApproval.Status.REJECTED
    before = TeamApproval.objects.filter(team=team).values_list("status", "reason").first()
    decision, _ = TeamApproval.objects.update_or_create(
        team=team,
        defaults={
            "status": status,
            "reason": "" if approve else reason.strip(),
            "decided_at": timezone.now(),
            "decided_by": user,
        },
    )
    if before != (decision.status, decision.reason):
        _team_decision_mail(team=team, decision=decision)
        audit_record(
            competition=team.competition,
            actor=user,
            action=str(
                AuditEntry.Action.TEAM_APPROVED if approve else AuditEntry.Action.TEAM_REJECTED
            ),
            detail=team.name + ("" if approve else f": {decision.reason or 'no reason given'}"),
        )
    return decision


def _mail_on_commit(*, subject: str, body: str, to: list[str]) -> None:
    """Send one plain mail once the transaction commits; a mail server that fails is logged,
    never the user's error (the page already says what the mail says)."""
    if not to:
        return

    def send() -> None:
        try:
            send_mail(subject, body, None, to)
        except Exception:  # noqa: BLE001 - any transport error
            logger.exception("could not send %r to %d recipients", subject, len(to))

    transaction.on_commit(send)


def team_approval_request_mail(*, team: Team) -> None:
    """Tell the competition's organizers (those with an address) that ``team`` waits for
    their approval, with the page where they decide."""
    competition = team.competition
    to = sorted({u.email for u in competition.organizers.exclude(email="")})
    url = _absolute(reverse("competition:organize_teams", kwargs={"slug": competition.slug}))
    members = ", ".join(
        team.memberships.select_related("user").values_list("user__username", flat=True)
    )
    _mail_on_commit(
        subject=f"[{competition.title}] team {team.name} waits for approval",
        body=(
            f"The team {team.name} ({members or 'no members yet'}) registered for "
            f"{competition.title} and waits for your approval before it may download the "
            f"data and submit.\n\nApprove or reject it here:\n{url}\n"
        ),
        to=to,
    )


def _team_decision_mail(*, team: Team, decision: TeamApproval) -> None:
    competition = team.competition
    to = sorted({m.user.email for m in team.memberships.select_related("user") if m.user.email})
    page = _absolute(reverse("competition:competition", kwargs={"slug": competition.slug}))
    if decision.status == TeamApproval.Status.APPROVED:
        subject = f"[{competition.title}] your team {team.name} is approved"
        body = (
            f"The organizers of {competition.title} approved your team {team.name}: it may "
            f"now download the data and submit runs.\n\n{page}\n"
        )
    else:
        subject = f"[{competition.title}] your team {team.name} was not approved"
        body = (
            f"The organizers of {competition.title} did not approve your team {team.name}."
            f"\n\nTheir reason: {decision.reason or 'none was given'}\n\n"
            f"Reply to the organizers if you think this is a mistake.\n{page}\n"
        )
    _mail_on_commit(subject=subject, body=body, to=to)


# --- announcements ----------------------------------------------------------------------


def announcement_post(
    *, competition: Competition, title: str, body: str, user=None
) -> Announcement:
    """Publish an announcement on the competition page and queue its e-mail."""
    title = " ".join(title.split())
    if not title:
        raise CompetitionError("empty_announcement")
    with transaction.atomic():
        announcement = Announcement.objects.create(
            competition=competition,
            title=title[:200],
            body=body.replace("\r\n", "\n").strip(),
            created_by=user,
        )
        announcement_email_enqueue(announcement_id=announcement.pk)
    return announcement


def unsubscribe_token(*, competition: Competition, user) -> str:
    return signing.dumps({"c": competition.pk, "u": user.pk}, salt=UNSUBSCRIBE_SALT)


def unsubscribe_url(*, competition: Competition, user) -> str:
    return _absolute(
        reverse(
            "competition:unsubscribe",
            kwargs={
                "slug": competition.slug,
                "token": unsubscribe_token(competition=competition, user=user),
            },
        )
    )


def announcement_emails_set(*, competition: Competition, user, wanted: bool) -> None:
    """Opt in to (``wanted``) or out of a competition's announcement e-mails."""
    if wanted:
        AnnouncementOptOut.objects.filter(competition=competition, user=user).delete()
    else:
        AnnouncementOptOut.objects.get_or_create(competition=competition, user=user)


def announcement_unsubscribe(*, competition: Competition, token: str):
    """Opt the user a signed link names out of the competition's announcement e-mails;
    returns the user. The link needs no login, so only the signature vouches for it."""
    from django.contrib.auth import get_user_model

    try:
        data = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        raise CompetitionError("bad_unsubscribe_link") from None
    if not isinstance(data, dict) or data.get("c") != competition.pk:
        raise CompetitionError("bad_unsubscribe_link")
    user = get_user_model().objects.filter(pk=data.get("u")).first()
    if user is None:
        raise CompetitionError("bad_unsubscribe_link")
    announcement_emails_set(competition=competition, user=user, wanted=False)
    return user


def announcement_email_send(*, announcement_id: int) -> int:
    """E-mail an announcement to every recipient once (a second run sends nothing); returns
    the number of mails sent."""
    claimed = Announcement.objects.filter(pk=announcement_id, emailed_at__isnull=True).update(
        emailed_at=timezone.now()
    )
    if claimed != 1:
        return 0  # sent already, or deleted
    announcement = Announcement.objects.select_related("competition").get(pk=announcement_id)
    competition = announcement.competition
    page = _absolute(reverse("competition:competition", kwargs={"slug": competition.slug}))
    html_body = render_markdown(announcement.body)
    messages = []
    for user in announcement_recipients(competition=competition):
        unsubscribe = unsubscribe_url(competition=competition, user=user)
        text = (
            f"{announcement.body}\n\n--\n{competition.title}: {page}\n"
            f"You receive this as a member of a team of {competition.title}. "
            f"No more announcements by e-mail: {unsubscribe}\n"
        )
        message = EmailMultiAlternatives(
            subject=f"[{competition.title}] {announcement.title}",
            body=text,
            to=[user.email],
            headers={"List-Unsubscribe": f"<{unsubscribe}>"},
        )
        message.attach_alternative(
            html_body
            + format_html(
                '<hr><p><a href="{}">{}</a> · <a href="{}">No more announcements by e-mail</a></p>',
                page,
                competition.title,
                unsubscribe,
            ),
            "text/html",
        )
        messages.append(message)
    try:
        sent = get_connection().send_messages(messages) if messages else 0
    except Exception:
        # Release the claim so a retry sends it; the job retries with backoff.
        Announcement.objects.filter(pk=announcement_id).update(emailed_at=None)
        raise
    Announcement.objects.filter(pk=announcement_id).update(emailed_to=sent or 0)
    return sent or 0
