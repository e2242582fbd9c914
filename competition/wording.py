"""Small helpers for the platform's own sentences."""


def plural(count: int, noun: str) -> str:
    """``1 task``, ``2 tasks``, ``0 baseline runs``: a count with its noun in the right number
    (regular English plurals only)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
