"""The real CODI-CRAC 2021/2022 files: they parse, score in all 36 v1 modes, and pair up.

The files are in fixtures/data (see their SOURCE.md files). Counts are those of
data-formats.md §1.1.
"""

from __future__ import annotations

import itertools
import re
from functools import cache
from pathlib import Path

import pytest

from scoring import score_files
from scoring.engine import score_corpus
from scoring.options import CANONICAL_ORDER, canonical_mode, parse_options
from scoring.readers import exploded
from scoring.validate import document_checks
from tests.paths import CORPORA

# file: (documents, tokens, identity markables, bridging links, DD-column markables)
FILES = {
    "codi-crac21/light_test.CONLLUA": (21, 11824, 3931, 415, 176),
    "codi-crac21/Persuasion_test.CONLLUA": (28, 12629, 3839, 288, 257),
    "codi-crac21/AMI_test_partial.ES2004a.CONLLUA": (1, 3308, 888, 108, 50),
    "codi-crac22/light_dev.2022.CONLLUA": (21, 11824, 3941, 424, 183),
    "codi-crac22/Persuasion_dev.2022.CONLLUA": (27, 12198, 3697, 316, 277),
    "codi-crac22/AMI_dev_v2.2022.ES2004a.CONLLUA": (1, 3308, 887, 111, 50),
    "codi-crac22/AMI_test.2022.ES2014a.CONLLUA": (1, 2633, 583, 29, 41),
}
SMALL = [name for name in FILES if "AMI" in name]
LARGE = [name for name in FILES if "AMI" not in name]
PAIRS = [  # 2021 file, its 2022 re-annotation
    ("codi-crac21/light_test.CONLLUA", "codi-crac22/light_dev.2022.CONLLUA"),
    ("codi-crac21/Persuasion_test.CONLLUA", "codi-crac22/Persuasion_dev.2022.CONLLUA"),
    ("codi-crac21/AMI_test_partial.ES2004a.CONLLUA", "codi-crac22/AMI_dev_v2.2022.ES2004a.CONLLUA"),
]


def data_file(name: str) -> Path:
    return CORPORA / name


@cache
def documents(name: str):
    return exploded.read(str(data_file(name)), check_min=True, layout=False)


def all_modes() -> list[str]:
    modes = set()
    for n in range(len(CANONICAL_ORDER) + 1):
        for words in itertools.combinations(CANONICAL_ORDER, n):
            try:
                modes.add(canonical_mode(parse_options(list(words)).options))
            except Exception:
                continue
    return sorted(modes)


MODES = all_modes()


@pytest.mark.parametrize("name", FILES)
def test_it_reads_the_published_counts(name):
    """Documents, tokens, identity markables, bridging links and DD markables as published;
    no reader problem, Min values inside their documents."""
    problems: list = []
    docs = exploded.read(str(data_file(name)), collect=problems, check_min=True)
    counts = (
        len(docs),
        sum(len(d.tokens) for d in docs),
        sum(len(d.identity) for d in docs),
        sum(len(d.bridging) for d in docs),
        sum(len(d.discourse_deixis) for d in docs),
    )
    assert problems == [] and counts == FILES[name]


def assert_perfect(name: str, mode: str) -> None:
    options = parse_options([] if mode == "default" else mode.split()).options
    docs = documents(name)
    for doc in docs:
        assert document_checks(doc, options) == []
    result = score_corpus([(doc, doc) for doc in docs], options)
    assert len(result.metrics) == 6 and (result.conll is not None)
    for metric in result.metrics.values():
        counts = metric.split_counts if options.only_split_antecedent else metric.counts
        if any(c.r_den for c in counts):  # defined: there is something to find
            assert (metric.prf.recall, metric.prf.precision, metric.prf.f1) == pytest.approx(
                (1.0, 1.0, 1.0), abs=1e-12
            ), (name, mode, metric.name)
    if options.keep_non_referring:
        assert result.non_referring.f1 == pytest.approx(1.0)
    if options.keep_bridging:
        assert all(prf.f1 == pytest.approx(1.0) for prf in result.bridging.values())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", SMALL)
def test_a_small_file_scores_perfectly_against_itself_in_every_mode(name, mode):
    """All 36 effective v1 modes run on the AMI files; self-scores are 1 where defined."""
    assert len(MODES) == 36
    assert_perfect(name, mode)


@pytest.mark.slow
@pytest.mark.parametrize("name", LARGE)
def test_a_large_file_scores_perfectly_against_itself_in_every_mode(name):
    """The same for the LIGHT and Persuasion files (all 36 modes, one test per file)."""
    for mode in MODES:
        assert_perfect(name, mode)


def renamed_copy(name: str, directory: Path) -> str:
    """A copy whose document ids lose their split prefix (light_test/x → x)."""
    text = data_file(name).read_bytes()
    renamed = re.sub(rb"(# newdoc id = )[^/\r\n]*/", rb"\1", text)
    target = directory / Path(name).name
    target.write_bytes(renamed)
    return str(target)


@pytest.mark.parametrize("first, second", PAIRS, ids=["light", "persuasion", "ami"])
def test_the_2021_and_2022_annotations_score_against_each_other(tmp_path, first, second):
    """The natural pairs score between 0 and 1, and swapping key and response swaps recall
    and precision of every metric but LEA and BLANC (whose split handling is asymmetric)."""
    old, new = renamed_copy(first, tmp_path), renamed_copy(second, tmp_path)
    options = ["--missing-documents", "skip", "keep_bridging", "keep_non_referring"]
    forward = score_files(old, new, options)
    backward = score_files(new, old, options)
    assert 0.5 < forward["conll"] < 1.0
    for metric in ("muc", "bcub", "ceafe", "ceafm"):
        f, b = forward["metrics"][metric], backward["metrics"][metric]
        assert (f["recall"], f["precision"]) == pytest.approx(
            (b["precision"], b["recall"]), abs=1e-12
        ), metric
    assert forward["non_referring"]["recall"] == pytest.approx(
        backward["non_referring"]["precision"]
    )
    ar_f, ar_b = (r["bridging"]["anaphora_recognition"] for r in (forward, backward))
    assert ar_f["recall"] == pytest.approx(ar_b["precision"])
    assert forward["documents"] == backward["documents"] or "Persuasion" in first
