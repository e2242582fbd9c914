"""Scoring programs of a bundle: recognised, never run.

A scoring program is code (a zip or a folder with a ``metadata`` file naming a ``command``).
The platform never runs it: it only recognises the three scorers of the anaphora shared
tasks, by a file the program holds or by its command, reads the command's options as that
scorer reads them, and maps them to the built-in procedure that scores alike, or else to the
same options as scorer words:

- the CorefUD scorer (``corefud-scorer.py``, v1.2: ``-m``, ``-s``, ``-a exact|partial|head``,
  ``-x``, ``-z``/``--zero-match-method linear|dependent``; head match, singletons dropped and
  zeros matched by dependencies by default): a CorefUD task. The CRAC procedure whose options
  are the command's (CoNLL F1 alike: the metrics listed do not matter) is used, the latest
  first (`CURRENT_COREFUD`); a command no procedure equals (``-s``, ``-a exact``...) is scored
  with its own options, and each flag that differs from `CURRENT_COREFUD` is proposed;
- the UA scorer (``ua-scorer.py``, v1 bare words such as ``keep_bridging``,
  ``remove_singletons``, ``keep_non_referring``, ``min``, or v2 dash options ``-s``, ``-l``,
  ``-a``, ``-z``, ``--zero-match-method``, ``-m``, ``-d``): identity anaphora, bridging or
  discourse deixis as the options say, scored with the kind's CODI-CRAC procedure when the
  options are its own, else with the command's options, each difference proposed;
- the CoNLL reference scorer (``scorer.pl``): MUC, B³ and CEAFe with exact matching, as that
  scorer computes them.

Anything else is not imported: the organizer chooses a procedure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from competition.models import Task
from competition.task_scoring import KIND_PROCEDURE
from scoring.errors import UsageError
from scoring.options import PRESETS, V1_WORDS, V2_METRICS, ScoringOptions, parse_options
from scoring.procedures import PROCEDURES

CURRENT_COREFUD = "crac-2025"
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
    proposed: tuple[str, ...] = ()  # each flag with no exact equivalent in the procedure
    ignored: tuple[str, ...] = ()  # options of the command that were not understood


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
    after = _after_script(words, scorer)
    assumed = () if by_command else (_ASSUMED,)
    if scorer == "corefud":
        return (
            replace(_corefud(after, reason), proposed=assumed)
            if assumed
            else _corefud(after, reason)
        )
    if scorer == "ua":
        return replace(_ua(after, reason), proposed=assumed) if assumed else _ua(after, reason)
    return ProgramMatch(
        scorer,
        f"{reason}: MUC, B³ and CEAFe, exact match",
        kind=Task.Kind.IDENTITY,
        words=CONLL_REFERENCE_WORDS,
    )


_ASSUMED = (
    "the command does not call the scorer itself (a wrapper script holds it), so its "
    "options are unknown: the scorer's defaults are assumed"
)


def _after_script(words: list[str], scorer: str) -> list[str]:
    """The command's words after the scorer's script (none when only its files name it)."""
    for index, word in enumerate(words):
        if SCORER_FILES.get(PurePosixPath(word).name.lower()) == scorer:
            return words[index + 1 :]
    return []


# --- the CorefUD scorer -------------------------------------------------------------------

COREFUD_METRICS = ("all", "lea", "muc", "bcub", "ceafe", "ceafm", "blanc", "mor", "zero")
COREFUD_MATCH = {"exact": "exact", "partial": "partial-corefud", "head": "head"}
COREFUD_ORDER = ("crac-2025", "crac-2024", "crac-2023", "crac-2022")
"""The procedures a CorefUD scorer command may equal, the latest first (2024 and 2025 score
alike; 2026 adds the empty-node evaluation, which no command of this scorer asks for)."""


@dataclass(slots=True)
class _CorefudCommand:
    metrics: list[str]
    match: str = "head"
    exact: bool = False
    singletons: bool = False
    zeros: str = "dependent"
    ignored: tuple[str, ...] = ()


def _corefud_command(words: list[str]) -> _CorefudCommand:
    """The options of a ``corefud-scorer.py`` command line, as its argparse reads them;
    KEY and SYS (and the shell's variables) are left out."""
    command = _CorefudCommand(metrics=[])
    ignored: list[str] = []
    index = 0
    while index < len(words):
        word, value = words[index].partition("=")[::2]
        if word in ("-m", "--metrics"):
            while index + 1 < len(words) and words[index + 1] in COREFUD_METRICS:
                index += 1
                command.metrics.append(words[index])
        elif word in ("-a", "--match", "-z", "--zero-match-method"):
            if not value and index + 1 < len(words):
                index += 1
                value = words[index]
            if not _corefud_choice(command, word, value):
                ignored.append(f"{word} {value}".strip())
        elif word in ("-s", "--keep-singletons"):
            command.singletons = True
        elif word in ("-x", "--exact-match"):
            command.exact = True
        elif word.startswith("-"):
            ignored.append(words[index])
        index += 1
    command.ignored = tuple(ignored)
    return command


def _corefud_choice(command: _CorefudCommand, option: str, value: str) -> bool:
    """Set the matching (``-a``) or the zeros' matching (``-z``) that ``value`` names;
    False when it names none the scorer knows."""
    if option in ("-a", "--match") and value in COREFUD_MATCH:
        command.match = value
    elif option in ("-z", "--zero-match-method") and value in ("linear", "dependent"):
        command.zeros = value
    else:
        return False
    return True


def _corefud(words: list[str], reason: str) -> ProgramMatch:
    command = _corefud_command(words)
    match = "exact" if command.exact else COREFUD_MATCH[command.match]
    metrics = command.metrics or ["all"]
    ours = ["-f", "corefud", "-m", *metrics, "-a", match, "-z", "--zero-match-method"]
    ours.append(command.zeros)
    if command.singletons:
        ours.append("-s")
    options = parse_options(ours).options
    if not options.conll:  # the board ranks CoNLL F1: its three metrics are needed
        ours[4:4] = [m for m in ("muc", "bcub", "ceafe") if m not in metrics]
        options = parse_options(ours).options
    how = f"{match} match, zeros by {'position' if command.zeros == 'linear' else 'dependencies'}"
    how += ", singletons kept" if command.singletons else ""
    for name in COREFUD_ORDER:
        if _essence(options) == _essence(PROCEDURES[name].options()):
            return ProgramMatch(
                "corefud",
                f"{reason} ({how}): procedure {name}",
                kind=Task.Kind.COREFUD,
                procedure=name,
                ignored=command.ignored,
            )
    return ProgramMatch(
        "corefud",
        f"{reason} ({how}): scored with its own options, {' '.join(ours)}",
        kind=Task.Kind.COREFUD,
        words=tuple(ours),
        proposed=tuple(_differences(options, CURRENT_COREFUD, corefud=True)),
        ignored=command.ignored,
    )


# --- the UA scorer ------------------------------------------------------------------------

UA_VALUED = {"-a", "--match", "-f", "--format", "-t", "--shared-task", "--zero-match-method"}
UA_VALUES = {"exact", "partial-corefud", "partial-craft", "head", "ua", "corefud", "conll"}
UA_VALUES |= {"muc7", "linear", "dependent", *PRESETS}


def _ua_words(words: list[str]) -> list[str]:
    """The option words of a ``ua-scorer.py`` command: v1 bare words or v2 dash options
    with their values; KEY, SYS and other paths are left out."""
    kept: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-m", "--metrics"):
            kept.append(word)
            while index + 1 < len(words) and words[index + 1] in V2_METRICS:
                index += 1
                kept.append(words[index])
        elif word in UA_VALUED:
            kept.append(word)
            if index + 1 < len(words) and words[index + 1] in UA_VALUES:
                index += 1
                kept.append(words[index])
        elif word.startswith("-") or word in V1_WORDS:
            kept.append(word)
        index += 1
    return kept


def _ua(words: list[str], reason: str) -> ProgramMatch:
    kept = _ua_words(words)
    try:
        options = parse_options(kept).options
    except UsageError as exc:
        return ProgramMatch(
            None, f"{reason}, but its options are refused ({exc}): choose a procedure"
        )
    if options.discourse_deixis:
        kind, what = Task.Kind.DISCOURSE_DEIXIS, "discourse deixis"
    elif options.keep_bridging:
        kind, what = Task.Kind.BRIDGING, "bridging"
    else:
        kind, what = Task.Kind.IDENTITY, "identity anaphora"
    procedure = KIND_PROCEDURE[kind]
    if _essence(options) == _essence(PROCEDURES[procedure].options()):
        return ProgramMatch("ua", f"{reason} ({what}): procedure {procedure}", kind=kind)
    return ProgramMatch(
        "ua",
        f"{reason} ({what}): scored with its own options, {' '.join(kept)}",
        kind=kind,
        words=tuple(kept),
        proposed=tuple(_differences(options, procedure, corefud=False)),
    )


# --- what differs from a procedure --------------------------------------------------------


def _essence(options: ScoringOptions) -> ScoringOptions:
    """What changes the primary score: options without the metric list and report style."""
    return replace(
        options,
        metrics=(),
        extra_metrics=(),
        style="v1",
        format="auto",
        missing_documents="error",
        empty_nodes=False,
    )


DESCRIBED = {
    "keep_singletons": lambda on: "singletons kept" if on else "singletons excluded",
    "keep_split_antecedents": lambda on: (
        "split antecedents kept" if on else "split antecedents removed"
    ),
    "keep_zeros": lambda on: "zeros kept" if on else "zeros dropped",
    "zero_match_method": lambda how: (
        f"zeros matched by {'position' if how == 'linear' else 'dependencies'}"
    ),
    "matching": lambda how: f"{how} match",
    "keep_non_referring": lambda on: "non-referring scores" if on else "no non-referring scores",
    "only_split_antecedent": lambda on: "only split antecedents" if on else "every mention",
    "np_only": lambda on: "noun phrases only" if on else "every mention",
    "remove_nested_mentions": lambda on: (
        "nested mentions removed" if on else "nested mentions kept"
    ),
    "allow_boundary_crossing": lambda on: (
        "boundary crossing allowed" if on else "no boundary crossing"
    ),
}
"""What each option that changes the scores means, on or off (for the report)."""
V2_FLAGS = {
    "keep_singletons": "-s",
    "keep_split_antecedents": "-l",
    "keep_zeros": "-z",
    "zero_match_method": "--zero-match-method",
    "matching": "-a",
    "keep_non_referring": "-m non-referring",
    "only_split_antecedent": "--only-split-antecedent",
    "np_only": "--np-only",
    "remove_nested_mentions": "--remove-nested-mentions",
    "allow_boundary_crossing": "--allow-boundary-crossing",
}
V1_FLAGS = {
    "keep_singletons": "remove_singletons",
    "keep_split_antecedents": "remove_split_antecedent",
    "matching": "min",
    "keep_non_referring": "keep_non_referring",
    "only_split_antecedent": "only_split_antecedent",
}
COREFUD_FLAGS = {"zero_match_method": "-z", "matching": "-a"}


def _flag(name: str, value: object, options: ScoringOptions, *, corefud: bool) -> str:
    """The command's words that give an option its value ("-s", "no -s", "-a exact")."""
    if corefud or options.style == "v2":
        flag = (COREFUD_FLAGS if corefud else {}).get(name) or V2_FLAGS[name]
        if isinstance(value, bool):
            return flag if value else f"no {flag}"
        return f"{flag} {value}"
    return V1_FLAGS.get(name, name)


def _differences(options: ScoringOptions, procedure: str, *, corefud: bool) -> list[str]:
    """One sentence per option of the command that changes the scores and that the
    procedure does not share."""
    theirs = PROCEDURES[procedure].options()
    lines = []
    for name, describe in DESCRIBED.items():
        ours, its = getattr(options, name), getattr(theirs, name)
        if ours == its:
            continue
        variant = _variant(procedure, options, name)
        lines.append(
            f"no exact equivalent: {_flag(name, ours, options, corefud=corefud)} "
            f"({describe(ours)}), where procedure {procedure} has {describe(its)}"
            + (f"; its {variant!r} column scores so" if variant else "")
        )
    return lines


def _variant(procedure: str, options: ScoringOptions, name: str) -> str:
    """The procedure's variant column whose options share this one's value, if any."""
    found = PROCEDURES[procedure]
    for mode in found.modes:
        if mode != "task" and getattr(found.options(mode), name) == getattr(options, name):
            return found.label(mode)
    return ""


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
