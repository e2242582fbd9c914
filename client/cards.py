"""System-card files: read a team's answers, write a template to fill in."""

from __future__ import annotations

from pathlib import Path

from client.errors import CliError
from client.output import CARD_PREFIX


def read_card(path: Path, phase: dict) -> dict[str, str]:
    """The answers of a system-card file (YAML ``question: answer``), as the upload's
    ``card.<question>`` fields. A blank answer is left out; YAML's ``yes``/``true`` and
    ``no``/``false`` are yes and no. Unknown questions are usage errors, told before any
    upload; whether the answers are complete and right is the server's to say."""
    data = _card_data(path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CliError(f"{path}: a card is lines of `question: answer`", 2)
    known = {q["slug"] for q in phase.get("card_questions") or []}
    answers: dict[str, str] = {}
    for key, value in data.items():
        if str(key) not in known:
            listing = ", ".join(sorted(known)) or "none (the phase asks no questions)"
            raise CliError(f"{path}: no question {key!r} in the card; expected {listing}", 2)
        if isinstance(value, (dict, list)):
            raise CliError(f"{path}: {key}: one answer, not a list or a mapping", 2)
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        answers[CARD_PREFIX + str(key)] = str(value)
    return answers


def _card_data(path: Path) -> object:
    """The card file's YAML, or the usage error saying why it cannot be read."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"{path}: cannot read the card: {exc.strerror or exc}", 2) from None
    except UnicodeDecodeError:
        raise CliError(f"{path}: the card is not UTF-8 text", 2) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise CliError(f"{path}{where}: the card is not valid YAML ({problem})", 2) from None
    return data


KIND_HINTS = {"yes_no": "yes or no", "url": "a link (https://...)", "text": "text"}


def card_template(phase: dict) -> str:
    """A system-card file to fill in: each question as a comment over its blank answer."""
    questions = phase.get("card_questions") or []
    if not questions:
        return f"# Phase {phase['id']} asks no system-card questions.\n"
    lines = [
        f"# System card for runs of phase {phase['id']} ({phase.get('title', '')}, "
        f"{phase.get('competition', '')}).",
        "# Write each answer after its colon; quote text holding ': ' or starting with",
        "# a special character. Send it with:",
        f"#   codicrac submit --phase {phase['id']} --card card.yaml FILES...",
    ]
    if any(q.get("required") for q in questions):
        lines.append("# (required): a run of this phase is refused without it.")
    for q in questions:
        hint = KIND_HINTS.get(q["kind"], "text")
        if q["kind"] == "choice":
            hint = "one of: " + ", ".join(q.get("choices") or [])
        required = " (required)" if q.get("required") else ""
        lines += ["", f"# {q['text']}{required}", f"#   {hint}"]
        if when := q.get("when"):
            said = " and ".join(f"{slug}: {answer}" for slug, answer in when.items())
            lines.append(f"#   only when {said}; otherwise leave it blank")
        lines.append(f"{q['slug']}:")
    return "\n".join(lines) + "\n"
