"""Scoring options: one frozen, validated value that says what to score and how.

`ScoringOptions` is the only thing that travels from the command line (v1 bare words or v2 dash
options) or the platform to the engine. Parsing lives in `parse_options` (below, or in the CLI
module); the engine trusts a `ScoringOptions` it is given. `parse_options` turns the words after
KEY and RESPONSE into an `Invocation`: v1 bare words (a closed vocabulary, spec §1) or v2 dash
options (argparse, differences doc §1), following docs/scoring-policy.md.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal, NoReturn

from scoring.errors import UsageError
from scoring.vocabulary import COREF_METRICS, EXTRA_METRICS

Matching = Literal["exact", "partial-corefud", "partial-craft", "head"]
MissingDocuments = Literal["error", "skip", "empty"]
Style = Literal["v1", "v2"]


@dataclass(frozen=True, slots=True)
class ScoringOptions:
    """What to score. Defaults are UA scorer v1's default mode (CODI-CRAC 2021 Task 1)."""

    keep_singletons: bool = True
    keep_split_antecedents: bool = True
    keep_non_referring: bool = False  # report non-referring identification scores
    keep_bridging: bool = False  # report bridging scores
    only_split_antecedent: bool = False
    discourse_deixis: bool = False  # score the DISCOURSE_DEIXIS layer instead of IDENTITY
    matching: Matching = "exact"  # v1 `min` means "partial-corefud" (scoring policy)
    metrics: tuple[str, ...] = COREF_METRICS  # coreference metrics, in report order
    keep_zeros: bool = False
    zero_match_method: Literal["linear", "dependent"] = "linear"
    np_only: bool = False
    remove_nested_mentions: bool = False
    allow_boundary_crossing: bool = False
    missing_documents: MissingDocuments = "error"
    format: str = "auto"  # auto | ua | corefud | conll | muc7
    style: Style = "v1"  # which reference's report layout and defaults were asked for
    extra_metrics: tuple[str, ...] = ()  # v2 metrics beyond the six: mention, mor, zero
    empty_nodes: bool = False  # CRAC 2026's empty-node measures (`scoring.empty_nodes`)

    @property
    def conll(self) -> bool:
        """The CoNLL average is reported when muc, bcub and ceafe are all selected."""
        return {"muc", "bcub", "ceafe"} <= set(self.metrics)


# -- parsing ---------------------------------------------------------------------------------

V1_WORDS: dict[str, str] = {
    "remove_singletons": "remove_singletons",
    "remove_singleton": "remove_singletons",
    "remove_split_antecedent": "remove_split_antecedent",
    "remove_split_antecedents": "remove_split_antecedent",
    "MIN": "min",
    "min": "min",
    "min_spans": "min",
    "keep_non_referring": "keep_non_referring",
    "keep_non_referrings": "keep_non_referring",
    "keep_bridging": "keep_bridging",
    "keep_bridgings": "keep_bridging",
    "only_split_antecedent": "only_split_antecedent",
    "only_split_antecedents": "only_split_antecedent",
    "evaluate_discourse_deixis": "evaluate_discourse_deixis",
    **{name: name for name in COREF_METRICS},
    "all": "all",
}
"""UA scorer v1's closed vocabulary of bare option words (with synonyms) → canonical word."""

CANONICAL_ORDER = (
    "remove_singletons",
    "remove_split_antecedent",
    "keep_non_referring",
    "keep_bridging",
    "only_split_antecedent",
    "evaluate_discourse_deixis",
    "min",
)
"""Order of the words in a canonical v1 mode string (conformance pack naming)."""

_FORCED_BY = {
    "only_split_antecedent": (
        "remove_singletons",
        "remove_split_antecedent",
        "keep_non_referring",
        "keep_bridging",
    ),
    "evaluate_discourse_deixis": (
        "remove_singletons",
        "remove_split_antecedent",
        "keep_non_referring",
        "keep_bridging",
        "only_split_antecedent",
    ),
}
"""v1 words that a mode word forces off: naming both is a conflict (spec §1, Q29)."""

PASS_THROUGH = ("--json", "--per-doc", "--missing-documents")
"""Dash options that never switch bare words to the v2 meaning (scoring policy)."""

V2_METRICS = (
    "all",
    "conll",
    *COREF_METRICS,
    "mention",
    "mor",
    "zero",
    "non-referring",
    "bridging",
    "empty-nodes",
)
V2_ALL = {
    "ua": (
        "muc",
        "bcub",
        "ceafe",
        "ceafm",
        "blanc",
        "lea",
        "mention",
        "mor",
        "non-referring",
        "bridging",
    ),
    "corefud": ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mor", "zero"),
    "conll": ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mention"),
    "muc7": ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mention"),
}
"""What ``-m all`` selects for each format (differences doc §1)."""

PRESETS: dict[str, dict[str, Any]] = {
    "conll12": {"format": "conll", "metrics": ("muc", "bcub", "ceafe")},
    "crac18": {
        "format": "ua",
        "metrics": ("muc", "bcub", "ceafe", "non-referring"),
        "keep_singletons": True,
    },
    "craft19": {"format": "ua", "metrics": ("muc", "bcub", "ceafe"), "keep_singletons": True},
    "crac22": {
        "format": "corefud",
        "metrics": ("muc", "bcub", "ceafe", "mention", "zero"),
        "keep_zeros": True,
        "matching": "partial-corefud",
    },
    "crac23": {
        "format": "corefud",
        "metrics": ("muc", "bcub", "ceafe", "mention", "zero"),
        "matching": "head",
    },
    "crac24": {
        "format": "corefud",
        "metrics": ("muc", "bcub", "ceafe", "mention", "zero"),
        "matching": "head",
    },
    "codicrac22ar": {
        "format": "ua",
        "metrics": ("muc", "bcub", "ceafe"),
        "keep_singletons": True,
        "keep_split_antecedents": True,
    },
    "codicrac22br": {"format": "ua", "metrics": ("bridging",), "keep_singletons": True},
    "codicrac22dd": {
        "format": "ua",
        "metrics": ("muc", "bcub", "ceafe"),
        "keep_singletons": True,
        "keep_split_antecedents": True,
        "discourse_deixis": True,
    },
}
"""UA scorer v2's ``-t`` presets as evidently intended: laid over the v2 defaults
(differences doc §1; v2 itself raises KeyError for every preset)."""


@dataclass(frozen=True, slots=True)
class Invocation:
    """A parsed option list: what to score plus how to report it.

    ``report_order`` lists every selected metric in the order the report prints it,
    including ``non-referring`` and ``bridging`` (v2 prints them where ``-m`` put them).
    ``notes`` are the warnings the parse produced (v2's "Auto reset" messages).
    """

    options: ScoringOptions
    as_json: bool = False
    per_doc: bool = False
    report_order: tuple[str, ...] = COREF_METRICS
    notes: tuple[str, ...] = ()


def mode_dict(options: ScoringOptions) -> dict[str, Any]:
    """The effective flags of ``options`` as plain JSON values (the ``"mode"`` object)."""
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in asdict(options).items()
    }


def _valid_words_text() -> str:
    return ", ".join(sorted(set(V1_WORDS), key=str.lower))


def _split_pass_through(words: Sequence[str]) -> tuple[list[str], dict[str, Any]]:
    """Take ``--json``, ``--per-doc`` and ``--missing-documents X`` out of ``words``."""
    rest: list[str] = []
    found: dict[str, Any] = {"as_json": False, "per_doc": False, "missing_documents": "error"}
    items = list(words)
    index = 0
    while index < len(items):
        word = items[index]
        if word == "--json":
            found["as_json"] = True
        elif word == "--per-doc":
            found["per_doc"] = True
        elif word == "--missing-documents" or word.startswith("--missing-documents="):
            if "=" in word:
                value = word.partition("=")[2]
            elif index + 1 < len(items):
                index += 1
                value = items[index]
            else:
                raise UsageError("--missing-documents needs a value: error, skip or empty")
            if value not in ("error", "skip", "empty"):
                raise UsageError(
                    f"--missing-documents {value!r} is not valid; valid: error, skip, empty"
                )
            found["missing_documents"] = value
        else:
            rest.append(word)
        index += 1
    return rest, found


def parse_options(words: Sequence[str]) -> Invocation:
    """Parse the options after KEY and RESPONSE: v1 bare words or v2 dash options.

    Any dash option other than ``--json``, ``--per-doc`` and ``--missing-documents`` switches
    to UA scorer v2's meaning and defaults; otherwise the words are v1's closed vocabulary.
    Unknown words and conflicting combinations raise `UsageError` listing what is valid.

    >>> parse_options(["remove_singletons", "remove_split_antecedent", "muc"]).options.metrics
    ('muc',)
    >>> parse_options(["-m", "conll", "-s"]).options.keep_split_antecedents
    False
    """
    rest, extra = _split_pass_through(words)
    if any(word.startswith("-") and word != "-" for word in rest):
        invocation = _parse_v2(rest)
    else:
        invocation = _parse_v1(rest)
    options = replace(invocation.options, missing_documents=extra["missing_documents"])
    return replace(invocation, options=options, as_json=extra["as_json"], per_doc=extra["per_doc"])


def _parse_v1(words: Sequence[str]) -> Invocation:
    unknown = [word for word in words if word not in V1_WORDS]
    if unknown:
        raise UsageError(
            f"unknown option word{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(w) for w in unknown)}; valid words: "
            f"{_valid_words_text()} (or UA scorer v2 dash options such as "
            "-m, -s, -l, -a, -d, -t)"
        )
    given = {V1_WORDS[word] for word in words}
    for mode_word, forced in _FORCED_BY.items():
        clash = [word for word in forced if word in given]
        if mode_word in given and clash:
            raise UsageError(
                f"{mode_word} cannot be combined with {', '.join(clash)}: it "
                "fixes singletons and split antecedents on and non-referring and "
                "bridging scores off (valid words: " + _valid_words_text() + ")"
            )
    chosen = [name for name in COREF_METRICS if name in given]
    metrics = COREF_METRICS if "all" in given or not chosen else tuple(chosen)
    only_split = "only_split_antecedent" in given
    options = ScoringOptions(
        keep_singletons="remove_singletons" not in given,
        keep_split_antecedents="remove_split_antecedent" not in given,
        keep_non_referring="keep_non_referring" in given,
        keep_bridging="keep_bridging" in given,
        only_split_antecedent=only_split,
        discourse_deixis="evaluate_discourse_deixis" in given,
        matching="partial-corefud" if "min" in given else "exact",
        metrics=metrics,
        style="v1",
    )
    return Invocation(options=options, report_order=metrics)


def canonical_mode(options: ScoringOptions) -> str:
    """The conformance pack's name of a v1 mode: its shortest word list, or ``default``."""
    words = []
    if not options.only_split_antecedent and not options.discourse_deixis:
        if not options.keep_singletons:
            words.append("remove_singletons")
        if not options.keep_split_antecedents:
            words.append("remove_split_antecedent")
        if options.keep_non_referring:
            words.append("keep_non_referring")
        if options.keep_bridging:
            words.append("keep_bridging")
    if options.only_split_antecedent:
        words.append("only_split_antecedent")
    if options.discourse_deixis:
        words.append("evaluate_discourse_deixis")
    if options.matching != "exact":
        words.append("min")
    return " ".join(words) or "default"


class _Parser(argparse.ArgumentParser):
    """argparse that raises `UsageError` instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see `python -m scoring --help`)")


def _v2_parser() -> _Parser:
    parser = _Parser(prog="python -m scoring KEY RESPONSE", add_help=False, allow_abbrev=False)
    parser.add_argument("-f", "--format", choices=("ua", "corefud", "conll", "muc7"))
    parser.add_argument("-m", "--metrics", nargs="*", choices=V2_METRICS)
    parser.add_argument(
        "-a",
        "--match",
        dest="matching",
        choices=("exact", "partial-corefud", "partial-craft", "head"),
    )
    parser.add_argument("-s", "--keep-singletons", action="store_true")
    parser.add_argument("-l", "--keep-split-antecedents", action="store_true")
    parser.add_argument("-z", "--keep-zeros", action="store_true")
    parser.add_argument("--zero-match-method", choices=("linear", "dependent"))
    parser.add_argument(
        "-d", "--evaluate-discourse-deixis", dest="discourse_deixis", action="store_true"
    )
    parser.add_argument("--only-split-antecedent", action="store_true")
    parser.add_argument("--np-only", action="store_true")
    parser.add_argument("--remove-nested-mentions", action="store_true")
    parser.add_argument("--allow-boundary-crossing", action="store_true")
    parser.add_argument("-t", "--shared-task", choices=tuple(PRESETS))
    parser.add_argument("words", nargs="*")
    return parser


def _parse_v2(words: Sequence[str]) -> Invocation:
    settings = _v2_settings(_v2_parser().parse_args(list(words)))
    fmt = settings.get("format", "ua")
    selected = _v2_metrics(fmt, settings.get("metrics") or ["conll"])
    dd = bool(settings.get("discourse_deixis"))
    _check_v2_compatibility(fmt, settings, selected)
    notes: list[str] = []
    keep_singletons, keep_split, only_split, selected = _v2_auto_resets(
        settings, selected, dd, notes
    )
    options = ScoringOptions(
        keep_singletons=keep_singletons,
        keep_split_antecedents=keep_split,
        keep_non_referring="non-referring" in selected,
        keep_bridging="bridging" in selected,
        only_split_antecedent=only_split,
        discourse_deixis=dd,
        matching=settings.get("matching") or "exact",
        metrics=tuple(name for name in selected if name in COREF_METRICS),
        keep_zeros=bool(settings.get("keep_zeros")),
        zero_match_method=settings.get("zero_match_method") or "linear",
        np_only=bool(settings.get("np_only")),
        remove_nested_mentions=bool(settings.get("remove_nested_mentions")),
        allow_boundary_crossing=bool(settings.get("allow_boundary_crossing")),
        format=fmt,
        style="v2",
        extra_metrics=tuple(name for name in selected if name in EXTRA_METRICS),
        empty_nodes="empty-nodes" in selected,
    )
    return Invocation(options=options, report_order=tuple(selected), notes=tuple(notes))


def _v2_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The options given, or the preset of ``-t``, which sets them all alone."""
    if args.words:
        raise UsageError(
            f"bare option words ({' '.join(args.words)}) cannot be mixed with "
            "dash options: use the v2 options -m, -s, -l, -a, -d, "
            "--only-split-antecedent, or only v1 words"
        )
    given = {
        key: value
        for key, value in vars(args).items()
        if key not in ("words", "shared_task") and value not in (None, False)
    }
    if not args.shared_task:
        return given
    if given:
        named = ", ".join("--" + key.replace("_", "-") for key in given)
        raise UsageError(
            f"-t {args.shared_task} sets every scoring option; it cannot be combined with {named}"
        )
    return dict(PRESETS[args.shared_task])


def _v2_metrics(fmt: str, metrics: Sequence[str]) -> list[str]:
    """The metrics of ``-m``, in order, once each: ``conll`` is MUC, B³ and CEAFe, ``all``
    every metric of the format."""
    selected: list[str] = []
    for name in metrics:
        expanded = (
            ("muc", "bcub", "ceafe")
            if name == "conll"
            else (V2_ALL[fmt] if name == "all" else (name,))
        )
        selected.extend(n for n in expanded if n not in selected)
    return selected


def _v2_auto_resets(
    settings: dict[str, Any], selected: list[str], dd: bool, notes: list[str]
) -> tuple[bool, bool, bool, list[str]]:
    """v2's auto resets, each with its note: ``only_split_antecedent`` off with
    discourse deixis; split antecedents and singletons kept, and the metrics that do not
    apply removed, with either. Returns (keep_singletons, keep_split_antecedents,
    only_split_antecedent, the metrics)."""
    keep_singletons = bool(settings.get("keep_singletons"))
    keep_split = bool(settings.get("keep_split_antecedents"))
    only_split = bool(settings.get("only_split_antecedent"))
    if dd and only_split:
        notes.append(
            "Auto reset: only_split_antecedent must be 0 when "
            "evaluate_discourse_deixis is used, reset to required value."
        )
        only_split = False
    for mode_name, active in (
        ("only_split_antecedent", only_split),
        ("evaluate_discourse_deixis", dd),
    ):
        if not active:
            continue
        if not keep_split:
            notes.append(
                f"Auto reset: keep_split_antecedents must be 1 when {mode_name} is "
                "used, reset to required value."
            )
            keep_split = True
        if not keep_singletons:
            notes.append(
                f"Auto reset: keep_singletons must be 1 when {mode_name} is used, "
                "reset to required value."
            )
            keep_singletons = True
        dropped = [name for name in ("non-referring", "bridging", "zero") if name in selected]
        if dropped:
            notes.append(f"Metrics {', '.join(dropped)} do not apply with {mode_name}; removed.")
            selected = [name for name in selected if name not in dropped]
    return keep_singletons, keep_split, only_split, selected


_UA_ONLY = {
    "keep_split_antecedents": "-l",
    "only_split_antecedent": "--only-split-antecedent",
    "discourse_deixis": "-d",
    "allow_boundary_crossing": "--allow-boundary-crossing",
}
_CONLL_ONLY = {"np_only": "--np-only", "remove_nested_mentions": "--remove-nested-mentions"}


def _check_v2_compatibility(fmt: str, settings: dict[str, Any], selected: list[str]) -> None:
    """UA scorer v2's ``compatibility_check``: options that a format cannot honour."""
    problems = []
    if fmt != "ua":
        problems += [flag for key, flag in _UA_ONLY.items() if settings.get(key)]
        problems += [f"-m {name}" for name in ("non-referring", "bridging") if name in selected]
        if settings.get("matching") == "partial-craft":
            problems.append("-a partial-craft")
    if fmt not in ("conll", "muc7"):
        problems += [flag for key, flag in _CONLL_ONLY.items() if settings.get(key)]
    if fmt != "corefud":
        problems += [f"-m {name}" for name in ("zero", "empty-nodes") if name in selected]
        if settings.get("zero_match_method") == "dependent":
            problems.append("--zero-match-method dependent")
    if problems:
        raise UsageError(f"{', '.join(problems)} cannot be used with -f {fmt}")
