"""Each metric on hand-computed examples: Pradhan et al. 2014 (spec §13.1) and the plural tests
(§13.2)."""

from __future__ import annotations

import doctest

import pytest

import scoring.metrics.contingency
import scoring.metrics.coref
import scoring.metrics.mentions
from scoring.clusters import Partition
from scoring.engine import score_corpus
from scoring.metrics import COREF_METRICS, Contingency
from scoring.options import ScoringOptions

A, B, C, D, E, F, G, H, I = range(9)  # noqa: E741 -- mention codes of the Pradhan example


def pradhan_table() -> Contingency:
    key = Partition([[A, B, C], [D, E, F, G]], [None, None])
    response = Partition([[A, B], [C, D], [F, G, H, I]], [None, None, None])
    return Contingency(key, response)


@pytest.mark.parametrize(
    "name, recall, precision",
    [
        ("muc", 2 / 5, 2 / 5),  # R = ((3-2)+(4-3))/(2+3), P = ((2-1)+(2-2)+(4-3))/(1+1+3)
        ("bcub", 35 / 84, 1 / 2),  # R = (4/9*... ) ; paper rounds F to .46 (Q28)
        ("ceafm", 4 / 7, 1 / 2),  # best alignment K1-R1 (2), K2-R3 (2)
        ("ceafe", 0.65, 1.3 / 3),  # φ4(K1,R1) = 0.8, φ4(K2,R3) = 0.5
        ("lea", (3 * 1 / 3 + 4 * 1 / 6) / 7, (2 * 1 + 2 * 0 + 4 * 1 / 6) / 8),
    ],
)
def test_pradhan_example(name, recall, precision):
    """The worked example of Pradhan et al. 2014 / Moosavi & Strube 2016, from the formulas."""
    (metric,) = COREF_METRICS[name]
    counts = metric(pradhan_table())
    assert counts.recall == pytest.approx(recall, abs=1e-12)
    assert counts.precision == pytest.approx(precision, abs=1e-12)


def test_pradhan_blanc_sub_metrics():
    """BLANC-c: 2 of 9 key links and 2 of 8 response links; BLANC-n: 8 of 12 and 8 of 20."""
    coref, noncoref = (m(pradhan_table()) for m in COREF_METRICS["blanc"])
    assert (coref.r_num, coref.r_den, coref.p_den) == (2, 9, 8)
    assert (noncoref.r_num, noncoref.r_den, noncoref.p_den) == (8, 12, 20)


def test_pradhan_corpus_scores(make_doc):
    """Through the engine: BLANC F is the mean of its sub-F (0.367647), CoNLL 0.458182."""
    key = make_doc({"1": [0, 1, 2], "2": [3, 4, 5, 6]})
    response = make_doc({"1": [0, 1], "2": [2, 3], "3": [5, 6, 7, 8]})
    result = score_corpus([(key, response)], ScoringOptions())
    assert result.metrics["blanc"].prf.f1 == pytest.approx((4 / 17 + 0.5) / 2)
    assert result.metrics["blanc"].prf.recall == pytest.approx((2 / 9 + 8 / 12) / 2)
    assert result.metrics["bcub"].prf.f1 == pytest.approx(2 * (35 / 84) * 0.5 / (35 / 84 + 0.5))
    assert result.conll == pytest.approx((0.4 + 0.4545454545 + 0.52) / 3, abs=1e-9)


def test_lone_singleton_scores_zero_in_link_metrics(make_doc):
    """Q17: a perfect response to a key with no links gets MUC 0 and BLANC 0, others 1."""
    key = make_doc({"1": [3]})
    result = score_corpus([(key, key)], ScoringOptions())
    assert result.metrics["muc"].prf.f1 == 0
    assert result.metrics["blanc"].prf.f1 == 0
    for name in ("bcub", "ceafe", "ceafm", "lea"):
        assert result.metrics[name].prf.f1 == 1, name


def test_blanc_drops_a_sub_metric_without_links(make_doc):
    """Q20: with only singletons, BLANC is the non-coreference part alone, not half of it."""
    key = make_doc({"1": [0], "2": [2]})
    result = score_corpus([(key, key)], ScoringOptions())
    assert result.metrics["blanc"].prf.f1 == 1.0


# TC-PA key: {a b} {c d} {e} {P f g} with P = {a|b, c|d} (spec §13.2)
PA_KEY = {"1": [0, 3], "2": [1, 4], "3": [6], "4": [9, 11]}
PA_ELEMENTS = {"1": ("4",), "2": ("4",)}


def _plural(make_doc, spec, elements):
    return make_doc(spec, element_of=elements)


@pytest.mark.parametrize(
    "system, elements, expected",
    [
        # PA-5 {{ace}fg}: LEA 1/.95, MUC 1/.91667, B³ 1/.95167, CEAFe .98333, CEAFm .98611
        (
            {"1": [0, 3], "2": [1, 4], "3": [6], "4": [9, 11]},
            {"1": ("4",), "2": ("4",), "3": ("4",)},
            {
                "lea": (1, 0.95),
                "muc": (1, 0.91667),
                "bcub": (1, 0.95167),
                "ceafe": (0.98333, 0.98333),
                "ceafm": (0.98611, 0.98611),
            },
        ),
        # PA-4 plural missing: {ab} {cd} {e} {fg}
        (
            {"1": [0, 3], "2": [1, 4], "3": [6], "4": [9, 11]},
            {},
            {
                "lea": (0.75, 1),
                "muc": (0.75, 1),
                "bcub": (0.79167, 1),
                "ceafe": (0.95, 0.95),
                "ceafm": (0.875, 1),
            },
        ),
        # PA-6 {{ae}fg}: MUC .875/.875 (counts 3.5/4), LEA .875 (v2 rule: 7/8)
        (
            {"1": [0, 3], "2": [1, 4], "3": [6], "4": [9, 11]},
            {"1": ("4",), "3": ("4",)},
            {
                "lea": (0.875, 0.91667),
                "muc": (0.875, 0.875),
                "bcub": (0.88542, 0.92130),
                "ceafe": (0.95833, 0.95833),
                "ceafm": (0.94643, 0.94643),
            },
        ),
    ],
)
def test_plural_cases(make_doc, system, elements, expected):
    """Split antecedents with partial credit, against the oracle values of spec §13.2."""
    key = _plural(make_doc, PA_KEY, PA_ELEMENTS)
    response = _plural(make_doc, system, elements)
    result = score_corpus([(key, response)], ScoringOptions())
    for name, (recall, precision) in expected.items():
        prf = result.metrics[name].prf
        assert (prf.recall, prf.precision) == pytest.approx((recall, precision), abs=5e-6), name


def test_plural_only_split_counts_pa6(make_doc):
    """PA-6 only_split_antecedent: LEA split counts 2/3 (P) and 2/4 (R), MUC 1/2 both ways."""
    key = _plural(make_doc, PA_KEY, PA_ELEMENTS)
    response = _plural(make_doc, PA_KEY, {"1": ("4",), "3": ("4",)})
    result = score_corpus([(key, response)], ScoringOptions(only_split_antecedent=True))
    lea = result.metrics["lea"].split_counts[0]
    assert (lea.p_num, lea.p_den, lea.r_num, lea.r_den) == (2, 3, 2, 4)
    muc = result.metrics["muc"].split_counts[0]
    assert (muc.p_num, muc.p_den, muc.r_num, muc.r_den) == (1, 2, 1, 2)
    assert result.metrics["lea"].prf.recall == pytest.approx(0.5)


def test_identical_plurals_merge(make_doc):
    """PA-8: two plural entities with the same member sets are one cluster (score 1)."""
    key = _plural(make_doc, PA_KEY, PA_ELEMENTS)
    response = make_doc(
        {"1": [0, 3], "2": [1, 4], "3": [6], "4": [9], "5": [11]},
        element_of={"1": ("4", "5"), "2": ("4", "5")},
    )
    result = score_corpus([(key, response)], ScoringOptions())
    for name in ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc"):
        assert result.metrics[name].prf.f1 == pytest.approx(1.0), name


@pytest.mark.parametrize(
    "module", [scoring.metrics.coref, scoring.metrics.contingency, scoring.metrics.mentions]
)
def test_doctests(module):
    """The examples in the metric docstrings hold."""
    failures, _ = doctest.testmod(module)
    assert failures == 0


def test_blanc_with_a_split_antecedent_is_the_mean_over_mention_orders(make_doc):
    """PA-6: the references give BLANC-c numerators 3, 3.67 or 4.33 (of 5) by mention order
    (Q15). Ours: ab and cd links 1 each, f-g 1, and each pair of the set with f or g the
    mean of its two orders, (2/3 + 0) / 2, where 2/3 is BLANC-c's F for {ab, cd} vs {ab, e}."""
    key = _plural(make_doc, PA_KEY, PA_ELEMENTS)
    response = _plural(make_doc, PA_KEY, {"1": ("4",), "3": ("4",)})
    result = score_corpus([(key, response)], ScoringOptions())
    coref = result.metrics["blanc"].counts[0]
    assert coref.r_num == pytest.approx(3 + 2 / 3)
    assert coref.r_den == 5
    assert 3 / 5 <= coref.recall <= (4 + 1 / 3) / 5


def random_matrices(*, seed: int, rows: int, cols: int, each: int):
    """``each`` random matrices of every shape up to rows × cols: half of small integers (many
    ties), half of floats."""
    import numpy as np

    rng = np.random.default_rng(seed)
    for n in range(1, rows + 1):
        for m in range(1, cols + 1):
            for _ in range(each):
                yield (
                    rng.integers(0, 3, (n, m)).astype(float)
                    if rng.random() < 0.5
                    else rng.random((n, m))
                )


def test_the_assignment_shortcut_returns_what_scipy_returns(monkeypatch):
    """Where the solver is not compiled and every row has a strictly best cell in a column
    of its own, the assignment is taken without scipy; it must be the indices scipy returns,
    on random matrices with ties."""
    from scipy.optimize import linear_sum_assignment as reference

    from scoring import assignment

    monkeypatch.setattr(assignment, "_solve", None)
    shortcuts = 0
    for matrix in random_matrices(seed=7, rows=5, cols=6, each=60):
        flat = matrix.ravel().tolist()
        for maximize in (True, False):
            ours = assignment.linear_sum_assignment(flat, *matrix.shape, maximize=maximize)
            theirs = reference(matrix, maximize=maximize)
            assert ours == (theirs[0].tolist(), theirs[1].tolist())
            shortcuts += assignment._only_optimum(matrix, maximize) is not None
    assert shortcuts > 100  # the shortcut is exercised, not only the fallback


def test_the_solver_is_scipys_own_and_gives_its_assignments():
    """`scoring.assignment.solver` loads scipy's compiled ``linear_sum_assignment`` from its
    module file (not through ``scipy.optimize``); it must be that function, giving scipy's
    indices on random matrices with ties, rectangular ones included."""
    from scipy.optimize import linear_sum_assignment as reference

    from scoring.assignment import _compiled_solver

    solve = _compiled_solver()  # fails loudly if scipy's layout changes (solver falls back)
    assert solve.__name__ == reference.__name__ and solve.__doc__ == reference.__doc__
    for matrix in random_matrices(seed=11, rows=6, cols=6, each=20):
        for maximize in (True, False):
            ours, theirs = solve(matrix, maximize=maximize), reference(matrix, maximize=maximize)
            assert [a.tolist() for a in ours] == [a.tolist() for a in theirs]


def test_the_solver_falls_back_to_scipys_public_import(monkeypatch):
    from scipy.optimize import linear_sum_assignment as public

    from scoring import assignment

    def unavailable():
        raise ImportError("no compiled _lsap module")

    monkeypatch.setattr(assignment, "_SOLVE", None)
    monkeypatch.setattr(assignment, "_compiled_solver", unavailable)
    assert assignment.solver() is public
