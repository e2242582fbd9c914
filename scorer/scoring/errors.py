"""Errors the scoring library raises. Nothing below the command line prints or exits."""

from __future__ import annotations


class ScoringError(Exception):
    """Base class of every error the scoring library raises on purpose."""

    # What a caller that scored several files logged before this error, if it wants to keep
    # it with the failure (the platform's worker stores it); the scorer itself never sets it.
    scoring_log: str = ""


class UsageError(ScoringError):
    """Options that are unknown or conflict: the message lists what is valid."""


class ScoringInputError(ScoringError):
    """Bad input: ``str(error)`` is ``FILE:LINE: what is wrong (what was expected)``."""

    def __init__(
        self,
        path: str,
        line: int | None,
        message: str,
        *,
        code: str = "invalid",
        document: str | None = None,
    ) -> None:
        self.path = str(path)
        self.line = line
        self.message = message
        self.code = code
        self.document = document
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"

    def __reduce__(self) -> tuple[type, tuple[str, int | None, str], dict[str, str | None]]:
        """Pickled whole (a run in two processes sends its errors to the first)."""
        return (
            type(self),
            (self.path, self.line, self.message),
            {"code": self.code, "document": self.document},
        )


FormatError = ScoringInputError
