"""The CoNLL-2012 reference scorer's own suite (tests/data/conformance/conll-reference).

All 36 cases, every value of expected.json: 1e-9 for exact expressions, 0.5·10^-d for
values the config writes with d decimals. CoNLL-2012 semantics: every mention counts,
singletons included (v2 ``-f conll -s``), no split antecedents; a span repeated in the
response is read once (scorer.pl de-duplicates, TC-A-8/A-9).

BLANC: scorer.pl uses a sub-metric when the *key* has links of its kind (TC-M-3/M-6/N-3/N-6
have a response with links of a kind the key lacks; UA scorer v2 halves BLANC there).

scorer.pl compares no words, and eleven responses of its suite change them (``x`` for
``jnk``, TC-A-3…A-13): for CoNLL-2012 files the API compares only the number of tokens.
`test_reader_and_engine_reproduce_the_suite` also checks every case straight from our reader
and the engine, without the API.
"""

from __future__ import annotations

import json

import pytest

from scoring import score_files
from scoring.engine import score_corpus
from scoring.options import parse_options
from scoring.readers import conll2012
from tests.paths import CONFORMANCE

BASE = CONFORMANCE / "conll-reference"
CASES = sorted(p.name for p in BASE.iterdir() if p.is_dir())
OPTIONS = ["-f", "conll", "-s", "-m", "muc", "bcub", "ceafe", "ceafm", "blanc"]


def expected_values(case: str):
    data = json.loads((BASE / case / "expected.json").read_text(encoding="utf-8"))
    for metric, values in data["metrics"].items():
        for field, spec in values.items():
            tol = (
                0.5 * 10 ** -spec["rounded_to_decimals"] if "rounded_to_decimals" in spec else 1e-9
            )
            yield metric, field, spec["value"], tol


def test_the_suite_has_36_cases():
    assert len(CASES) == 36


@pytest.mark.parametrize("case", CASES)
def test_score_files_matches_scorer_pl(case):
    result = score_files(
        str(BASE / case / "key.conll"), str(BASE / case / "response.conll"), OPTIONS
    )
    for metric, field, value, tol in expected_values(case):
        assert result["metrics"][metric][field] == pytest.approx(value, abs=tol), (metric, field)


@pytest.mark.parametrize("case", CASES)
def test_reader_and_engine_reproduce_the_suite(case):
    options = parse_options(OPTIONS).options
    keys = conll2012.read(BASE / case / "key.conll")
    responses = {d.name: d for d in conll2012.read(BASE / case / "response.conll")}
    result = score_corpus([(k, responses[k.name]) for k in keys], options)
    for metric, field, value, tol in expected_values(case):
        got = result.metrics[metric].prf.as_dict()[field]
        assert got == pytest.approx(value, abs=tol), (metric, field)
