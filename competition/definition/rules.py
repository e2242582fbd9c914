"""The rules every part of a competition's spec shares: the refusal (`SpecError`, naming
the definition's key at fault), the limits a definition is held to (`Limits`, from the
settings), and the checks of a text, a slug, a choice and a count.

Nothing here touches the database or a file (`competition.definition.spec` builds on it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.text import slugify

from competition.errors import CompetitionError


class SpecError(CompetitionError):
    """A definition breaks a rule. ``field`` names its key at fault (``end``, ``kind``);
    ``reason`` says what is wrong and what was expected."""

    def __init__(
        self, code: str, *, field: str | None = None, reason: str, where: str = ""
    ) -> None:
        self.field = field
        self.where = where
        self.reason = reason
        super().__init__(code, reason=reason)

    @property
    def message(self) -> str:
        where = getattr(self, "where", "")
        return f"{where}: {self.params['reason']}" if where else str(self.params["reason"])

    def at(self, where: str) -> SpecError:
        """The same refusal, said at ``where`` (``tasks[0]`` around ``phases[1]``)."""
        inner = f"{where}.{self.where}" if self.where else where
        return type(self)(self.code, field=self.field, reason=self.reason, where=inner)


# --- limits -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Limits:
    """How large what a definition holds may be (settings of the same names override)."""

    definition_bytes: int = 1024 * 1024  # DEFINITION_MAX_BYTES: the YAML file
    description_chars: int = 20_000  # DEFINITION_MAX_DESCRIPTION_CHARS
    page_bytes: int = 512 * 1024  # DEFINITION_MAX_PAGE_BYTES: one page
    key_bytes: int = 1024**3  # KEY_MAX_UPLOAD_BYTES: one gold key
    title_chars: int = 300  # the models' titles
    job_bytes: int = 32 * 1024 * 1024  # DEFINITION_JOB_BYTES: larger, a job

    @classmethod
    def current(cls) -> Limits:
        names = {
            "definition_bytes": "DEFINITION_MAX_BYTES",
            "description_chars": "DEFINITION_MAX_DESCRIPTION_CHARS",
            "page_bytes": "DEFINITION_MAX_PAGE_BYTES",
            "key_bytes": "KEY_MAX_UPLOAD_BYTES",
            "job_bytes": "DEFINITION_JOB_BYTES",
        }
        default = cls()
        return cls(
            **{
                name: int(getattr(settings, setting, getattr(default, name)))
                for name, setting in names.items()
            }
        )


def text_check(value: str, *, key: str, limit: int, required: bool = False) -> str:
    """Text of a definition: stripped, without NUL, at most ``limit`` characters."""
    if not isinstance(value, str):
        raise SpecError("bad_text", field=key, reason=f"'{key}' must be text")
    value = value.strip()
    if required and not value:
        raise SpecError("required", field=key, reason=f"'{key}' is required")
    if "\x00" in value:
        raise SpecError("bad_text", field=key, reason=f"'{key}' contains a NUL character")
    if len(value) > limit:
        raise SpecError(
            "too_long",
            field=key,
            reason=f"'{key}' is {len(value)} characters long; the limit is {limit}",
        )
    return value


def kept_or_text(value: Any, *, key: str, limit: int) -> Any:
    """Optional text of a definition: checked as `text_check`, or UNSET (not given: what the
    database holds is kept) as it is."""
    return value if value is UNSET else text_check(value, key=key, limit=limit)


def slug_check(value: str, *, key: str = "slug") -> str:
    value = text_check(value, key=key, limit=100, required=True)
    if slugify(value) != value:
        raise SpecError(
            "bad_slug",
            field=key,
            reason=f"'{key}' must be a URL slug "
            f"(lower-case letters, digits, - and _), not {value!r}",
        )
    return value


def choice_check(value: str, choices: list[str], *, key: str) -> str:
    if value not in choices:
        raise SpecError(
            "bad_choice",
            field=key,
            reason=f"'{key}' is {value!r}; expected one of {', '.join(choices)}",
        )
    return value


def count_check(value: Any, *, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(
            "bad_number", field=key, reason=f"'{key}' must be a whole number >= 0, not {value!r}"
        )
    return value


UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET", "__bool__": lambda s: False})()
"""A value the definition does not give: what the database holds is kept."""
