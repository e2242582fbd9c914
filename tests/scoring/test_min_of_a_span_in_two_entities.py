"""A span annotated in two entities with different Mins takes the Min of the first entity
scored, as UA scorer v2 keeps the first of equal mentions (repro orderdep-min-residue,
tests/data/repros/orderdep-min-residue/README.md, whose numbers are v2's)."""

from __future__ import annotations

import pytest

from scoring import parse_options, score
from tests.paths import TEST_DATA

REPRO = TEST_DATA / "repros" / "orderdep-min-residue"
WORDS = ["-f", "ua", "-m", "muc", "bcub", "ceafe", "lea", "-s", "-l", "-a", "partial-corefud"]


@pytest.mark.parametrize(
    "key, response, expected",
    [
        ("min-key", "min-sys", [0, 0, 0.125, 0.25, 0.25, 0.5, 0, 0]),
        (
            "key",
            "sys",
            [0.275641, 0.458333, 0.444574, 0.641241, 0.557699, 0.592555, 0.242009, 0.357143],
        ),
    ],
)
def test_the_repro_scores_as_ua_scorer_v2(key, response, expected):
    result = score(
        str(REPRO / f"{key}.conllua"),
        str(REPRO / f"{response}.conllua"),
        options=parse_options(WORDS).options,
    )
    got = [
        value
        for name in ("muc", "bcub", "ceafe", "lea")
        for value in (result.metrics[name].prf.recall, result.metrics[name].prf.precision)
    ]
    assert got == pytest.approx(expected, abs=5e-7)


def test_v1_min_is_the_same():
    result = score(
        str(REPRO / "key.conllua"),
        str(REPRO / "sys.conllua"),
        options=parse_options(["min"]).options,
    )
    assert result.metrics["muc"].prf.recall == pytest.approx(0.275641, abs=5e-7)
