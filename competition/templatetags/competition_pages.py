"""Blocks of a competition's pages, terms and announcements that other pages include:
``{% competition_pages_block competition %}`` (tabs, overview, latest announcements),
``{% participation_notice competition team %}`` (terms to accept, the team's approval) and
``{% terms_needed competition as name %}``."""

from __future__ import annotations

from django import template

from competition import selectors_pages
from competition.markdown import render_markdown
from competition.models import CompetitionPage
from competition.visibility import user_is_organizer

register = template.Library()

LATEST = 3


@register.filter
def markdown(text) -> str:
    """Organizer Markdown as safe HTML (no raw HTML, no unsafe links)."""
    return render_markdown(str(text or ""))


@register.inclusion_tag("competition/pages/_block.html", takes_context=True)
def competition_pages_block(context, competition):
    request = context.get("request")
    user = getattr(request, "user", None)
    pages = selectors_pages.pages_of(competition=competition)
    # an organizer's preview shows the pages as a participant sees them
    is_organizer = user_is_organizer(competition=competition, user=user) and not context.get(
        "preview"
    )
    in_team = bool(
        user and user.is_authenticated and competition.memberships.filter(user=user).exists()
    )
    overview = pages.get(CompetitionPage.Kind.OVERVIEW)
    return {
        "competition": competition,
        "request": request,
        "is_organizer": is_organizer,
        "tabs": [
            (kind, label, kind in pages)
            for kind, label in CompetitionPage.Kind.choices
            if kind != CompetitionPage.Kind.OVERVIEW
        ],
        "overview": overview.body if overview else "",
        "announcements": list(
            selectors_pages.announcements_of(competition=competition)[: LATEST + 1]
        ),
        "latest": LATEST,
        "in_team": in_team,
        "emails_wanted": in_team
        and selectors_pages.announcement_emails_wanted(competition=competition, user=user),
        "approval_required": selectors_pages.team_approval_required(competition=competition),
    }


@register.inclusion_tag("competition/pages/_participation.html", takes_context=True)
def participation_notice(context, competition, team=None):
    request = context.get("request")
    user = getattr(request, "user", None)
    pending = selectors_pages.terms_pending(competition=competition, user=user)
    return {
        "competition": competition,
        "request": request,
        "team": team,
        "terms_pending": pending and bool(user and user.is_authenticated),
        "terms": selectors_pages.terms_text(competition=competition) if pending else "",
        "approval": (selectors_pages.team_approval_state(team=team) if team is not None else None),
    }


@register.simple_tag(takes_context=True)
def terms_needed(context, competition) -> bool:
    request = context.get("request")
    return selectors_pages.terms_pending(
        competition=competition, user=getattr(request, "user", None)
    )
