"""Metric registry: every coreference metric and the non-referring and bridging scores.

``COREF_METRICS[name]`` is the tuple of functions whose counts make up the metric: one for
all metrics but BLANC, which has two (coreference links, non-coreference links) and is
reported as their average (spec §3, Q20). Names follow the UA scorer's report order.
"""

from scoring.metrics.contingency import Contingency
from scoring.metrics.coref import (
    NO_SPLITS,
    SplitMaps,
    b_cubed,
    blanc_coref,
    blanc_noncoref,
    ceafe,
    ceafm,
    lea,
    muc,
)

COREF_METRICS = {
    "lea": (lea,),
    "muc": (muc,),
    "bcub": (b_cubed,),
    "ceafe": (ceafe,),
    "ceafm": (ceafm,),
    "blanc": (blanc_coref, blanc_noncoref),
}

__all__ = [
    "COREF_METRICS",
    "NO_SPLITS",
    "Contingency",
    "SplitMaps",
    "b_cubed",
    "blanc_coref",
    "blanc_noncoref",
    "ceafe",
    "ceafm",
    "lea",
    "muc",
]
