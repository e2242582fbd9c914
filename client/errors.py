"""The command line's errors: one line for the user, and the exit code."""

from __future__ import annotations

from collections.abc import Sequence


class CliError(Exception):
    """A user-facing error: ``str`` is the one-line message, ``code`` the exit code."""

    def __init__(self, message: str, code: int = 1, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.details = list(details)


class Unreachable(CliError):
    """The server did not answer: not reached, the connection broke, or no answer in time."""
