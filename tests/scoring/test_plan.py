"""The scoring plan: options compiled once into what each stage does."""

from __future__ import annotations

import pickle

import pytest

from scoring import plan as plan_module
from scoring.api import score
from scoring.errors import UsageError
from scoring.options import ScoringOptions, parse_options
from scoring.plan import ScoringPlan
from tests.paths import CODI21

AMI = CODI21 / "AMI_test_partial.ES2004a.CONLLUA"


@pytest.mark.parametrize(
    ("matching", "key_checks", "response_checks", "reads_min"),
    [
        ("exact", False, False, False),
        ("partial-corefud", True, False, True),  # the key's minimum spans bind, not the response's
        ("head", True, True, True),
        ("partial-craft", False, False, False),
    ],
)
def test_each_side_reads_and_checks_minimum_spans_as_the_matching_needs(
    matching, key_checks, response_checks, reads_min
):
    plan = ScoringPlan.compile(ScoringOptions(matching=matching))
    assert (plan.key_reader.check_min, plan.response_reader.check_min) == (
        key_checks,
        response_checks,
    )
    assert plan.key_reader.read_min is plan.response_reader.read_min is reads_min


@pytest.mark.parametrize(
    ("words", "layers"),
    [
        ([], ("identity",)),
        (["keep_bridging"], ("identity", "bridging")),
        (["evaluate_discourse_deixis"], ("discourse_deixis",)),
    ],
)
def test_readers_keep_only_the_layers_the_mode_scores(words, layers):
    plan = ScoringPlan.compile(parse_options(words).options)
    assert plan.key_reader.layers == plan.response_reader.layers == layers
    assert plan.reader("key").settings()["layers"] == list(layers)


def test_the_plan_states_the_modes_decisions():
    plan = ScoringPlan.compile(
        parse_options(
            [
                "-f",
                "corefud",
                "-z",
                "--zero-match-method",
                "dependent",
                "-m",
                "muc",
                "bcub",
                "ceafe",
                "-a",
                "head",
            ]
        ).options
    )
    assert plan.aligns_zeros_by_dependencies and plan.keep_zeros
    assert plan.metrics == ("muc", "bcub", "ceafe") and plan.conll
    assert plan.key_reader.discontinuous  # dash options: v2 reads discontinuous mentions
    linear = ScoringPlan.compile(ScoringOptions(keep_zeros=True))
    assert not linear.aligns_zeros_by_dependencies
    dropped = ScoringPlan.compile(ScoringOptions(zero_match_method="dependent"))
    assert not dropped.aligns_zeros_by_dependencies  # zeros are not kept: nothing to align
    split = ScoringPlan.compile(parse_options(["only_split_antecedent"]).options)
    assert split.scores_split_counts and split.follows_split_antecedents
    assert not ScoringPlan.compile(
        parse_options(["remove_split_antecedent"]).options
    ).follows_split_antecedents


def test_an_unknown_metric_is_refused_when_the_plan_is_compiled():
    with pytest.raises(UsageError, match="unknown coreference metric.*nope"):
        ScoringPlan.compile(ScoringOptions(metrics=("muc", "nope")))


def test_a_plan_crosses_processes_whole_and_is_not_compiled_twice():
    plan = ScoringPlan.compile(ScoringOptions(keep_bridging=True))
    assert pickle.loads(pickle.dumps(plan)) == plan
    assert ScoringPlan.of(plan) is plan


def test_a_scoring_run_compiles_its_options_once(monkeypatch):
    compiled = []
    real = plan_module.ScoringPlan.compile.__func__

    def counting(cls, options):
        compiled.append(options)
        return real(cls, options)

    monkeypatch.setattr(plan_module.ScoringPlan, "compile", classmethod(counting))
    options = ScoringOptions(keep_non_referring=True)
    result = score(str(AMI), str(AMI), options=options, processes=1)
    assert result.metrics["muc"].prf.f1 == 1.0
    assert compiled == [options]
