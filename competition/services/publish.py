"""Publishing a draft competition, taking it back to draft, and who organizes it.

A competition is a draft until an organizer publishes it (``competition.visibility``): the
checklist (``selectors_publish.publish_checklist``) must be met or its items waived first.
Publishing can be undone until a participant has joined (a team or a terms acceptance). Only
the owner or staff change the organizers. Each action is recorded in the audit log.
"""

from __future__ import annotations

from collections.abc import Collection

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from competition.errors import CompetitionError
from competition.models import AuditEntry, Competition
from competition.selectors_publish import (
    CheckItem,
    checklist_unmet,
    competition_may_manage_organizers,
    competition_participants_joined,
    publish_checklist,
)
from competition.services.audit import audit_record
from competition.visibility import user_is_organizer

Action = AuditEntry.Action


def _check_organizer(*, competition: Competition, actor: AbstractBaseUser | None) -> None:
    """``actor`` None is an operator on the command line: allowed."""
    if actor is not None and not user_is_organizer(competition=competition, user=actor):
        raise CompetitionError("not_organizer", competition=competition.title)


@transaction.atomic
def competition_publish(
    *, competition: Competition, actor: AbstractBaseUser | None, waived: Collection[str] = ()
) -> Competition:
    """Make a draft public. ``waived`` names the checklist items (their ``key``) the
    organizers knowingly publish without; any other unmet item refuses."""
    _check_organizer(competition=competition, actor=actor)
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    if locked.published_at is not None:
        raise CompetitionError("already_published", competition=locked.title)
    items = publish_checklist(competition=locked)
    unmet = checklist_unmet(items=items, waived=set(waived))
    if unmet:
        raise CompetitionError(
            "publish_unmet",
            competition=locked.title,
            items="; ".join(f"{i.label} ({i.detail})" for i in unmet),
        )
    locked.published_at = competition.published_at = timezone.now()  # the caller's too
    locked.save(update_fields=["published_at"])
    used = [item.label for item in items if not item.ok and item.key in set(waived)]
    audit_record(
        competition=competition,
        actor=actor,
        action=Action.PUBLISH,
        detail=("Waived: " + "; ".join(used)) if used else "Every item was met.",
    )
    return competition


@transaction.atomic
def competition_unpublish(
    *, competition: Competition, actor: AbstractBaseUser | None
) -> Competition:
    """Take a published competition back to draft, while no participant has joined."""
    _check_organizer(competition=competition, actor=actor)
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    if locked.published_at is None:
        raise CompetitionError("not_published", competition=locked.title)
    joined = competition_participants_joined(competition=locked)
    if joined:
        raise CompetitionError(
            "participants_joined",
            competition=locked.title,
            count=joined,
            plural="" if joined == 1 else "s",
        )
    locked.published_at = competition.published_at = None  # the caller's too
    locked.save(update_fields=["published_at"])
    audit_record(
        competition=competition,
        actor=actor,
        action=Action.UNPUBLISH,
        detail="Back to draft: only the organizers and staff see it.",
    )
    return competition


def competition_publish_waiving(*, competition: Competition) -> list[CheckItem]:
    """Publish a draft from the command line (an operator's explicit act: ``load_competition
    --publish``, the demo), waiving every unmet item that may be waived; returns them. An
    item that cannot be waived (no phase, dates out of order) still refuses."""
    unmet = checklist_unmet(items=publish_checklist(competition=competition))
    competition_publish(competition=competition, actor=None, waived={item.key for item in unmet})
    return unmet


def _check_owner(*, competition: Competition, actor: AbstractBaseUser | None) -> None:
    if actor is not None and not competition_may_manage_organizers(
        competition=competition, user=actor
    ):
        raise CompetitionError("not_owner", competition=competition.title)


@transaction.atomic
def competition_organizer_add(
    *, competition: Competition, actor: AbstractBaseUser | None, username: str
) -> AbstractBaseUser:
    """The owner or staff make the user named ``username`` an organizer."""
    _check_owner(competition=competition, actor=actor)
    username = username.strip()
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CompetitionError("unknown_organizer", username=username)
    if competition.organizers.filter(pk=user.pk).exists():
        raise CompetitionError(
            "already_organizer", username=user.get_username(), competition=competition.title
        )
    competition.organizers.add(user)
    audit_record(
        competition=competition,
        actor=actor,
        action=Action.ORGANIZER_ADDED,
        detail=user.get_username(),
    )
    return user


@transaction.atomic
def competition_organizer_remove(
    *, competition: Competition, actor: AbstractBaseUser | None, user: AbstractBaseUser
) -> None:
    """The owner or staff take an organizer's rights away (never the owner's)."""
    _check_owner(competition=competition, actor=actor)
    if competition.owner_id == user.pk:
        raise CompetitionError(
            "remove_owner", username=user.get_username(), competition=competition.title
        )
    if not competition.organizers.filter(pk=user.pk).exists():
        raise CompetitionError(
            "not_an_organizer", username=user.get_username(), competition=competition.title
        )
    competition.organizers.remove(user)
    audit_record(
        competition=competition,
        actor=actor,
        action=Action.ORGANIZER_REMOVED,
        detail=user.get_username(),
    )
