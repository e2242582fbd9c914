"""`scoring.score_modes`: several modes of one file pair from one reading, each result number
for number what `score` gives for that mode alone, errors included."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring import ScoringInputError, parse_options, score, score_modes, score_rows
from scoring.plan import ScoringPlan
from scoring.procedures import PROCEDURES
from tests.paths import CONFORMANCE

REPO = Path(__file__).resolve().parents[2]
CODI = REPO / "fixtures" / "data" / "codi-crac21"
BASELINES = REPO / "fixtures" / "baselines" / "codi-crac21"
COREFUD = REPO / "fixtures" / "corefud"
FIXTURES = CONFORMANCE / "ua-fixtures"

IDENTITY = [(), ("remove_singletons", "remove_split_antecedent"), ("only_split_antecedent",)]
# three readings: identity, identity + bridging, discourse deixis
CODI_CRAC = [
    *IDENTITY,
    ("keep_bridging", "keep_non_referring"),
    ("evaluate_discourse_deixis",),
    ("-m", "conll", "-s", "-l"),
]


def alone(key, response, options, per_doc):
    return [
        score(str(key), str(response), options=o, per_doc=d, processes=1)
        for o, d in zip(options, per_doc)
    ]


def assert_same(shared, separate, options):
    assert len(shared) == len(separate)
    for a, b, o in zip(shared, separate, options):
        assert a == b  # every metric, count, per-document result, warning and name
        assert score_rows(a, o, mode="m") == score_rows(b, o, mode="m")


@pytest.mark.parametrize("baseline", ["heuristic-gold", "singletons-gold", "previous"])
def test_codi_crac_modes_from_one_reading_equal_each_mode_alone(baseline):
    key = CODI / "AMI_test_partial.ES2004a.CONLLUA"
    response = BASELINES / baseline / "AMI.CONLLUA"
    options = [parse_options(list(words)).options for words in CODI_CRAC]
    per_doc = [True, False, True, False, True, True]
    assert len({ScoringPlan.compile(o).reading for o in options}) < len(options)
    assert_same(
        score_modes(str(key), str(response), options=options, per_doc=per_doc),
        alone(key, response, options, per_doc),
        options,
    )


@pytest.mark.parametrize("procedure", ["crac-2022", "crac-2023", "crac-2024", "crac-2025"])
@pytest.mark.parametrize("system", ["singletons", "string-match", "previous", "tc-za-1"])
def test_crac_procedure_modes_from_one_reading_equal_each_mode_alone(procedure, system):
    modes = PROCEDURES[procedure].modes
    options = [parse_options(list(words)).options for words in modes.values()]
    assert len({ScoringPlan.compile(o).reading for o in options}) == 1  # one reading for all
    for response in sorted((COREFUD / system).glob("*.conllu")):
        key = COREFUD / "key" / response.name
        per_doc = [name == "task" for name in modes]
        assert_same(
            score_modes(str(key), str(response), options=options, per_doc=per_doc),
            alone(key, response, options, per_doc),
            options,
        )


@pytest.mark.parametrize(
    "order", [["remove_split_antecedent", "default"], ["default", "remove_split_antecedent"]]
)
def test_an_error_only_one_mode_meets_is_the_one_scoring_mode_by_mode_raises(order):
    """The fixture's ElementOf cycle is fatal where split antecedents are followed and
    harmless where they are removed: whichever order, the error is the one a loop over the
    modes raises first, and a mode that scores alone is not refused for another's problem."""
    key, response = (
        str(FIXTURES / "elementof_cycle_hang" / f"{side}.conllua") for side in ("key", "sys")
    )
    options = [parse_options([] if name == "default" else [name]).options for name in order]
    with pytest.raises(ScoringInputError) as expected:
        for each in options:
            score(key, response, options=each, processes=1)
    with pytest.raises(ScoringInputError) as shared:
        score_modes(key, response, options=options)
    assert (shared.value.path, shared.value.line, shared.value.code, shared.value.message) == (
        expected.value.path,
        expected.value.line,
        expected.value.code,
        expected.value.message,
    )
    fine = [o for o, name in zip(options, order) if name != "default"]
    assert_same(score_modes(key, response, options=fine), alone(key, response, fine, [True]), fine)


def test_a_missing_file_is_refused_as_scoring_it_alone_refuses_it(tmp_path):
    key = str(CODI / "AMI_test_partial.ES2004a.CONLLUA")
    options = [parse_options(list(words)).options for words in IDENTITY]
    with pytest.raises(ScoringInputError) as alone_error:
        score(key, str(tmp_path / "none.CONLLUA"), options=options[0], processes=1)
    with pytest.raises(ScoringInputError) as shared:
        score_modes(key, str(tmp_path / "none.CONLLUA"), options=options)
    assert str(shared.value) == str(alone_error.value)
