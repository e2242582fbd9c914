"""Scoring programs of a bundle: recognised, never run.

A scoring program is code (a zip with a ``metadata`` file naming a ``command``). The platform
never runs it: it only recognises the three scorers of the anaphora shared tasks, by a file
the program holds or by its command, and maps each to the built-in procedure and options that
score as it does:

- the CorefUD scorer (``corefud-scorer.py``): a CorefUD task; the command's matching
  (``-a``/``--match`` or the word ``partial``/``exact``/``head``) chooses the procedure; head
  match, the scorer's default, is the latest edition's (`CURRENT_COREFUD`);
- the UA scorer (``ua-scorer.py``): identity anaphora, or bridging with ``keep_bridging``,
  or discourse deixis with ``evaluate_discourse_deixis``, as the command says;
- the CoNLL reference scorer (``scorer.pl``): MUC, B³ and CEAFe with exact matching, as that
  scorer computes them.

Anything else is not imported: the organizer chooses a procedure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from competition.models import Task

CURRENT_COREFUD = "crac-2025"
COREFUD_BY_MATCH = {
    "partial": "crac-2022",
    "head": CURRENT_COREFUD,
    "exact": "",
}  # exact: scorer options, no edition used it
CONLL_REFERENCE_WORDS = ("-f", "corefud", "-m", "muc", "bcub", "ceafe", "-a", "exact")
SCORER_FILES = {"corefud-scorer.py": "corefud", "ua-scorer.py": "ua", "scorer.pl": "conll"}
SCORER_NAMES = {
    "corefud": "the CorefUD scorer",
    "ua": "the UA scorer",
    "conll": "the CoNLL reference scorer",
}


@dataclass(frozen=True, slots=True)
class ProgramMatch:
    """What a scoring program was recognised as: ``scorer`` (None: not recognised), the task
    kind it scores (for CONLL-UA keys; a CoNLL-U key makes a CorefUD task), the procedure or
    scorer words it maps to, and ``reason`` (how it was recognised, for the report)."""

    scorer: str | None
    reason: str
    kind: str = ""
    procedure: str = ""
    words: tuple[str, ...] | None = None


def command_of(metadata: str) -> str:
    """The ``command:`` line of a program's metadata (YAML-like ``key: value`` text)."""
    for line in metadata.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "command":
            return value.strip().strip("'\"")
    return ""


def recognise(*, files: list[str], command: str) -> ProgramMatch:
    """Recognise a program by the files it holds (names only) and its command."""
    by_file = {
        SCORER_FILES[PurePosixPath(f).name.lower()]
        for f in files
        if PurePosixPath(f).name.lower() in SCORER_FILES
    }
    words = command.split()
    by_command = {
        scorer
        for name, scorer in SCORER_FILES.items()
        if any(PurePosixPath(w).name.lower() == name for w in words)
    }
    found = set(by_command or by_file)
    if len(found) != 1:
        what = (
            "names more than one scorer" if len(found) > 1 else "is not a scorer the platform knows"
        )
        return ProgramMatch(None, f"the program {what}: not imported, choose a procedure")
    scorer = found.pop()
    how = "its command" if by_command else "its files"
    reason = f"recognised as {SCORER_NAMES[scorer]} by {how}"
    if scorer == "corefud":
        match = _match(command)
        procedure = COREFUD_BY_MATCH[match]
        if procedure:
            return ProgramMatch(
                scorer,
                f"{reason} ({match} match): procedure {procedure}",
                kind=Task.Kind.COREFUD,
                procedure=procedure,
            )
        return ProgramMatch(
            scorer,
            f"{reason} (exact match): scorer options",
            kind=Task.Kind.COREFUD,
            words=CONLL_REFERENCE_WORDS,
        )
    if scorer == "ua":
        if "keep_bridging" in words:
            return ProgramMatch(scorer, f"{reason} (bridging)", kind=Task.Kind.BRIDGING)
        if "evaluate_discourse_deixis" in words:
            return ProgramMatch(
                scorer, f"{reason} (discourse deixis)", kind=Task.Kind.DISCOURSE_DEIXIS
            )
        return ProgramMatch(scorer, f"{reason} (identity anaphora)", kind=Task.Kind.IDENTITY)
    return ProgramMatch(
        scorer,
        f"{reason}: MUC, B³ and CEAFe, exact match",
        kind=Task.Kind.IDENTITY,
        words=CONLL_REFERENCE_WORDS,
    )


def _match(command: str) -> str:
    text = command.lower()
    option = re.search(r"(?:-a|--match(?:ing)?)[ =]+(partial|head|exact)", text)
    if option:
        return option.group(1)
    for word in ("partial", "exact"):
        if re.search(rf"\b{word}\b", text):
            return word
    return "head"
