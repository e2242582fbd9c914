"""The official scoring procedures (scoring.procedures): each CRAC edition's settings as its
task page and the CorefUD scorer's README give them, the variant modes beside, and the
differences this scorer cannot reproduce written down."""

from __future__ import annotations

import pytest

from scoring.procedures import PROCEDURES, TASK_MODE, procedure
from scoring.vocabulary import EMPTY_NODES

CRAC = {  # edition: (primary matching, zero matching), as published
    "crac-2022": ("partial-corefud", "linear"),
    "crac-2023": ("head", "linear"),
    "crac-2024": ("head", "dependent"),
    "crac-2025": ("head", "dependent"),
    "crac-2026": ("head", "dependent"),
}


@pytest.mark.parametrize("name, expected", CRAC.items())
def test_a_crac_edition_scores_compact_files_as_it_was_scored(name, expected):
    matching, zeros = expected
    task = procedure(name).options(TASK_MODE)
    assert task.format == "corefud"
    assert (task.matching, task.zero_match_method) == (matching, zeros)
    assert not task.keep_singletons and task.keep_zeros
    assert set(task.metrics) >= {"muc", "bcub", "ceafe"}
    assert set(task.extra_metrics) == {"mor", "zero"}  # the supplementary columns
    assert procedure(name).primary_metric == "conll"


@pytest.mark.parametrize("name", CRAC)
def test_the_variant_modes_are_the_other_matchings_and_with_singletons(name):
    matching, zeros = CRAC[name]
    modes = {mode: procedure(name).options(mode) for mode in procedure(name).modes}
    assert list(modes)[0] == TASK_MODE
    variants = {
        mode: (o.matching, o.keep_singletons)
        for mode, o in modes.items()
        if mode not in (TASK_MODE, EMPTY_NODES)
    }
    assert sorted(variants.values()) == sorted(
        [(m, False) for m in ("head", "partial-corefud", "exact") if m != matching]
        + [(matching, True)]
    )
    assert all(
        o.zero_match_method == zeros and o.format == "corefud"
        for mode, o in modes.items()
        if mode != EMPTY_NODES
    )


def test_editions_before_scorer_1_2_say_what_cannot_be_reproduced():
    for name in ("crac-2022", "crac-2023"):
        assert "1-to-n" in procedure(name).differences
    for name in ("crac-2024", "crac-2025", "crac-2026"):
        assert procedure(name).differences == ""


def test_crac_2026_evaluates_empty_nodes_and_asks_for_the_analyses():
    """The 2026 procedure adds one mode, the empty-node measures alone, and the analyses;
    the editions before have neither."""
    crac26 = procedure("crac-2026")
    empty = crac26.options(EMPTY_NODES)
    assert empty.empty_nodes and empty.format == "corefud" and not empty.metrics
    assert crac26.analyses and crac26.label(EMPTY_NODES) == "empty nodes"
    for name in ("crac-2022", "crac-2023", "crac-2024", "crac-2025"):
        assert EMPTY_NODES not in procedure(name).modes and not procedure(name).analyses


def test_every_procedure_parses_and_an_unknown_name_lists_the_known_ones():
    for item in PROCEDURES.values():
        for mode in item.modes:
            item.options(mode)
        assert item.reference and item.title
    with pytest.raises(KeyError, match="crac-2025"):
        procedure("crac-2030")
