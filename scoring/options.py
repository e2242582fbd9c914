"""Scoring options: one frozen, validated value that says what to score and how.

`ScoringOptions` is the only thing that travels from the command line (v1 bare words or v2 dash
options) or the platform to the engine. Parsing lives in `parse_options` (below, or in the CLI
module); the engine trusts a `ScoringOptions` it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

COREF_METRICS = ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc")
"""The six coreference metrics, in the order v1 prints them."""

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

    @property
    def conll(self) -> bool:
        """The CoNLL average is reported when muc, bcub and ceafe are all selected."""
        return {"muc", "bcub", "ceafe"} <= set(self.metrics)
