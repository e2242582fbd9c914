"""The official scoring procedures of the shared tasks, as named, documented option sets.

A procedure says how an edition's runs are scored: in which modes (each a list of the
scorer's option words, v1 bare words or v2 dash options), which mode is the edition's own
(``task``: its primary metric is ranked on, and it keeps per-document scores), and which
reference scorer it reproduces. The other modes are the variant columns the edition's result
tables print beside the primary score, computed in the same scoring job.

The CRAC procedures follow the task pages and the CorefUD scorer's README
(docs/crac-editions.md): 2022 partial match, 2023 head match, 2024 and 2025 head match with
zeros aligned by dependencies; singletons excluded; CoNLL F1 macro-averaged over datasets.
CRAC 2026 scores as 2025 and adds the empty-node evaluation (mode ``empty-nodes``, the ten
measures of the organizers' evaluator) and the analyses of `scoring.analyses`.
The CODI-CRAC procedures are UA scorer v1's modes of the three tasks.

Where this scorer cannot reproduce an old reference scorer, the procedure says so in
``differences`` instead of guessing: the CorefUD scorer 1.2 fixed a 1-to-n mention-matching
bug, and this scorer matches as 1.2 does, so runs of 2022 and 2023 re-scored here can differ
slightly from the numbers published then.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scoring.options import ScoringOptions, parse_options
from scoring.vocabulary import BRIDGING_METRICS, CONLL, EMPTY_NODES

TASK_MODE = "task"


@dataclass(frozen=True, slots=True)
class Procedure:
    """One edition's scoring, by name."""

    name: str
    title: str
    reference: str  # the reference scorer and version whose numbers it reproduces
    modes: dict[str, tuple[str, ...]]  # mode name → option words; "task" first
    primary_metric: str = CONLL
    labels: dict[str, str] = field(default_factory=dict)  # mode → column label
    differences: str = ""  # what this scorer cannot reproduce of the reference
    # CRAC 2026: the analyses by entity range, entity type and mention type
    # (`scoring.analyses`) are stored with each run's scores.
    analyses: bool = False

    def options(self, mode: str = TASK_MODE) -> ScoringOptions:
        """The parsed options of one mode (raises `UsageError` if a word is wrong)."""
        return parse_options(list(self.modes[mode])).options

    def label(self, mode: str) -> str:
        return self.labels.get(mode, mode)


def _corefud(
    matching: str, *, zeros: str, singletons: bool = False, extra: tuple[str, ...] = ()
) -> tuple[str, ...]:
    words = [
        "-f",
        "corefud",
        "-m",
        "muc",
        "bcub",
        "ceafe",
        *extra,
        "-a",
        matching,
        "-z",
        "--zero-match-method",
        zeros,
    ]
    if singletons:
        words.append("-s")
    return tuple(words)


def _crac(
    name: str,
    title: str,
    reference: str,
    primary: str,
    zeros: str,
    differences: str = "",
    *,
    empty_nodes: bool = False,
    analyses: bool = False,
) -> Procedure:
    variants = [m for m in ("head", "partial-corefud", "exact") if m != primary]
    modes = {TASK_MODE: _corefud(primary, zeros=zeros, extra=("mor", "zero"))}
    labels = {TASK_MODE: f"{_LABEL[primary]} match"}
    for matching in variants:
        modes[_LABEL[matching]] = _corefud(matching, zeros=zeros)
        labels[_LABEL[matching]] = f"{_LABEL[matching]} match"
    modes["with-singletons"] = _corefud(primary, zeros=zeros, singletons=True)
    labels["with-singletons"] = f"{_LABEL[primary]}, with singletons"
    if empty_nodes:
        # CRAC 2026's empty-node evaluation: ten measures of the whole file, beside
        # coreference (`scoring.empty_nodes`).
        modes[EMPTY_NODES] = ("-f", "corefud", "-m", EMPTY_NODES)
        labels[EMPTY_NODES] = "empty nodes"
    return Procedure(
        name=name,
        title=title,
        reference=reference,
        modes=modes,
        labels=labels,
        differences=differences,
        analyses=analyses,
    )


_LABEL = {"head": "head", "partial-corefud": "partial", "exact": "exact"}
_BEFORE_1_2 = (
    "CorefUD scorer 1.2 fixed a 1-to-n mention matching bug; this scorer matches "
    "as 1.2 does, so a run re-scored here can differ slightly from the number "
    "published for it."
)

PROCEDURES: dict[str, Procedure] = {
    p.name: p
    for p in (
        _crac(
            "crac-2022",
            "CRAC 2022 (CorefUD 1.0)",
            "CorefUD scorer 1.0",
            "partial-corefud",
            "linear",
            _BEFORE_1_2,
        ),
        _crac(
            "crac-2023",
            "CRAC 2023 (CorefUD 1.1)",
            "CorefUD scorer 1.1",
            "head",
            "linear",
            _BEFORE_1_2,
        ),
        _crac("crac-2024", "CRAC 2024 (CorefUD 1.2)", "CorefUD scorer 1.2", "head", "dependent"),
        _crac(
            "crac-2025", "CODI-CRAC 2025 (CorefUD 1.3)", "CorefUD scorer 1.2", "head", "dependent"
        ),
        _crac(
            "crac-2026",
            "CRAC 2026 (CorefUD 1.4)",
            "CorefUD scorer 1.2 and the CRAC 2026 empty-node evaluator",
            "head",
            "dependent",
            empty_nodes=True,
            analyses=True,
        ),
        Procedure(
            "codi-crac-2021-identity",
            "CODI-CRAC 2021/2022, identity anaphora",
            "UA scorer 1.0 (v1)",
            {
                TASK_MODE: (),
                "remove_singletons remove_split_antecedent": (
                    "remove_singletons",
                    "remove_split_antecedent",
                ),
                "only_split_antecedent": ("only_split_antecedent",),
            },
            labels={
                TASK_MODE: "with singletons and split antecedents",
                "remove_singletons remove_split_antecedent": (
                    "without singletons and split antecedents"
                ),
                "only_split_antecedent": "split antecedents only",
            },
        ),
        Procedure(
            "codi-crac-2021-bridging",
            "CODI-CRAC 2021/2022, bridging",
            "UA scorer 1.0 (v1)",
            {TASK_MODE: ("keep_bridging",)},
            primary_metric=BRIDGING_METRICS["entity"],
        ),
        Procedure(
            "codi-crac-2021-discourse-deixis",
            "CODI-CRAC 2021/2022, discourse deixis",
            "UA scorer 1.0 (v1)",
            {TASK_MODE: ("evaluate_discourse_deixis",)},
        ),
    )
}
"""Every official procedure, by name."""


def procedure(name: str) -> Procedure:
    """The procedure called ``name``; `KeyError` lists the known names."""
    try:
        return PROCEDURES[name]
    except KeyError:
        raise KeyError(
            f"unknown procedure {name!r} (expected one of {', '.join(PROCEDURES)})"
        ) from None
