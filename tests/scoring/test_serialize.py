"""score_rows: every cell of the scorer's report becomes a score row, counts included, and the
counts read back by the same module."""

from __future__ import annotations

from pathlib import Path

import pytest

import scoring
from scoring import ScoringOptions, counts_vector, parse_options, score, score_rows

ROOT = Path(__file__).resolve().parents[2]
KEY = ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA"
RESPONSE = ROOT / "fixtures/baselines/codi-crac21/previous/AMI.CONLLUA"


def rows_for(words: list[str]) -> list:
    invocation = parse_options(words)
    result = score(str(KEY), str(RESPONSE), options=invocation.options)
    return score_rows(result, invocation.options, mode="task", per_doc=invocation.per_doc)


def test_per_document_bridging_rows_keep_their_counts():
    """Per-document bridging and non-referring rows carry tp/fp/fn, so runs can be compared."""
    report = scoring.score_files(
        str(KEY), str(RESPONSE), ["keep_bridging", "keep_non_referring", "--per-doc"]
    )
    rows = rows_for(["keep_bridging", "keep_non_referring", "--per-doc"])
    by_key = {(row.metric, row.document or ""): row for row in rows}
    for document in report["documents"]:
        for part, metric in (
            ("anaphora_recognition", "bridging_ar"),
            ("mention", "bridging_mention"),
            ("entity", "bridging_entity"),
        ):
            row = by_key[(metric, document)]
            cell = report["per_document"][document]["bridging"][part]
            assert row.counts == {"tp": cell["tp"], "fp": cell["fp"], "fn": cell["fn"]}
            assert row.f1 == cell["f1"]
        assert set(by_key[("non_referring", document)].counts) == {"tp", "fp", "fn"}
    # A single-document file: the document's entity-level F1 is the sub-corpus's.
    assert (
        by_key[("bridging_entity", report["documents"][0])].f1 == by_key[("bridging_entity", "")].f1
    )


def test_blanc_rows_keep_both_sub_metric_counts():
    rows = rows_for(["--per-doc"])
    blanc = [row for row in rows if row.metric == "blanc" and row.document]
    assert blanc and all(isinstance(row.counts, list) and len(row.counts) == 2 for row in blanc)


def test_every_row_equals_the_json_report_number_for_number():
    """The rows and the --json object come from one result: the same numbers, the CoNLL row's
    F1 is the report's CoNLL score and its recall and precision the parts' means."""
    words = ["keep_bridging", "keep_non_referring", "--per-doc"]
    report = scoring.score_files(str(KEY), str(RESPONSE), words)
    rows = {(row.metric, row.document): row for row in rows_for(words)}
    for name, cell in report["metrics"].items():
        row = rows[(name, None)]
        assert (row.recall, row.precision, row.f1) == (
            cell["recall"],
            cell["precision"],
            cell["f1"],
        )
    conll = rows[("conll", None)]
    parts = [report["metrics"][name] for name in ("muc", "bcub", "ceafe")]
    assert conll.f1 == report["conll"]
    assert conll.recall == sum(p["recall"] for p in parts) / 3
    assert conll.precision == sum(p["precision"] for p in parts) / 3
    for document, cells in report["per_document"].items():
        doc_conll = rows[("conll", document)]
        assert doc_conll.f1 == sum(cells[name]["f1"] for name in ("muc", "bcub", "ceafe")) / 3
        for name in ("muc", "bcub", "ceafe", "lea"):
            assert rows[(name, document)].counts == cells[name]["counts"]


@pytest.mark.parametrize("metric", ["muc", "blanc", "non_referring", "bridging_entity"])
def test_stored_counts_read_back_as_the_vector_of_the_numbers(metric):
    """counts_vector reads what score_rows wrote: summing the vectors of every document
    gives the corpus counts, hence the corpus F1."""
    rows = rows_for(["keep_bridging", "keep_non_referring", "--per-doc"])
    documents = [row for row in rows if row.metric == metric and row.document]
    vectors = [counts_vector(metric, row.counts) for row in documents]
    assert vectors and all(v is not None for v in vectors)
    total = [sum(column) for column in zip(*vectors)]
    corpus = next(row for row in rows if row.metric == metric and not row.document)
    if metric in ("non_referring", "bridging_entity"):
        tp, fp, fn = total
        recall = tp / (tp + fn) if tp + fn else 0.0
        assert recall == pytest.approx(corpus.recall, abs=1e-12)
    elif metric == "muc":
        p_num, p_den, r_num, r_den = total
        assert r_num / r_den == pytest.approx(corpus.recall, abs=1e-12)
        assert p_num / p_den == pytest.approx(corpus.precision, abs=1e-12)
    else:
        assert len(total) == 8  # BLANC: coreference and non-coreference links
    assert counts_vector("conll", {}) is None


def test_rows_without_per_doc_are_the_corpus_rows_only():
    options = ScoringOptions()
    result = score(str(KEY), str(RESPONSE), options=options, per_doc=False)
    rows = score_rows(result, options, per_doc=True)
    assert rows and all(row.document is None for row in rows)
    assert result.scored  # the names of the scored documents stay
