"""Who organizes a competition, as a definition writes it: one rule for every door.

Only the owner and staff add or remove organizers or change the owner
(`competition_may_manage_organizers`); an operator on the command line (``manage.py
load_competition``, ``import_bundle``) answers for what they load. Whoever creates a
competition owns it, listed first, and may bring its organizers (cloning one they organize
brings that one's). A definition from
anyone else that would add an organizer is refused, naming ``organizers:``; one that lists
the organizers as they are (the download, uploaded back) changes nothing and goes through.
A definition never removes an organizer (the Organizers page does), and it names the owner
only of a competition that has none yet: its first listed organizer.

Every change is written to the audit log in the same transaction, with the door it came
through ("the uploaded definition.yaml", "the bundle import", ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser

from competition.definition.spec import SpecError
from competition.models import AuditEntry, Competition
from competition.selectors_publish import competition_may_manage_organizers
from competition.services.audit import audit_record


@dataclass(frozen=True, slots=True)
class Door:
    """Who writes a definition (``actor``), through which front door (``name``, said in
    the audit log), and whether an operator on the command line answers for it."""

    name: str
    actor: AbstractBaseUser | None = None
    operator: bool = False

    @classmethod
    def of(cls, actor: AbstractBaseUser | None, name: str) -> Door:
        """A service's door where, as everywhere in the services, no actor means an
        operator on the command line."""
        return cls(name=name, actor=actor, operator=actor is None)


def organizers_apply(
    *,
    competition: Competition,
    listed: tuple[str, ...],
    door: Door | None,
    created: bool,
) -> None:
    """Add the users ``listed`` as organizers of ``competition`` (the first owns it when it
    has no owner yet), if ``door`` may; raises `SpecError` on ``organizers`` otherwise.
    ``door`` None: a write no one answers for, which may change nobody's rights."""
    users = _users(listed)
    current = set(competition.organizers.values_list("pk", flat=True))
    added = [user for user in users if user.pk not in current]
    owner = users[0] if users and competition.owner_id is None else None
    if not added and owner is None:
        return
    if not _may_change(competition=competition, door=door, users=users, created=created):
        if not added:
            return  # an ownerless competition keeps no owner until staff name one
        names = ", ".join(user.get_username() for user in added)
        raise SpecError(
            "not_owner",
            field="organizers",
            reason=(
                f"organizers: only the competition's owner and staff add organizers; this file "
                f"adds {names}. Keep the list as it is, or ask the owner (the Organizers page)."
            ),
        )
    assert door is not None  # (`_may_change` says no without a door)
    competition.organizers.add(*added)
    if owner is not None:
        competition.owner = owner
        competition.save(update_fields=["owner"])
    for user in added if owner is None or owner in added else [*added, owner]:
        name = user.get_username()
        detail = f"{name}, owner" if user == owner else name
        _audit(competition, door, detail)


def _users(listed: tuple[str, ...]) -> list[AbstractBaseUser]:
    """The users listed, in order; refuses names that are no user."""
    found = {
        user.get_username(): user
        for user in get_user_model().objects.filter(username__in=set(listed))
    }
    if missing := sorted(set(listed) - set(found)):
        raise SpecError(
            "unknown_user",
            field="organizers",
            reason=f"organizers {', '.join(missing)} do not exist (create the users first)",
        )
    return list({name: found[name] for name in listed}.values())


def _may_change(*, competition: Competition, door: Door | None, users: list, created: bool) -> bool:
    if door is None:
        return False
    if door.operator:
        return True
    actor = door.actor
    if actor is None or not actor.is_authenticated:
        return False
    if created and users[0].pk == actor.pk:
        return True  # the owner of what one creates (a clone), first listed

    return competition_may_manage_organizers(competition=competition, user=actor)


def _audit(competition: Competition, door: Door, detail: str) -> None:
    audit_record(
        competition=competition,
        actor=door.actor,
        action=str(AuditEntry.Action.ORGANIZER_ADDED),  # (its value: mypy reads a tuple)
        detail=f"{detail} ({door.name})",
    )
