"""report_to_scores: every cell of the scorer's report becomes a score row, counts included."""

from __future__ import annotations

from pathlib import Path

import scoring

from competition.services.scoring import report_to_scores

ROOT = Path(__file__).resolve().parents[3]
KEY = ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA"
RESPONSE = ROOT / "fixtures/baselines/codi-crac21/previous/AMI.CONLLUA"


def test_per_document_bridging_rows_keep_their_counts():
    """Per-document bridging and non-referring rows carry tp/fp/fn, so runs can be compared."""
    report = scoring.score_files(str(KEY), str(RESPONSE),
                                 ["keep_bridging", "keep_non_referring", "--per-doc"])
    rows = report_to_scores(report, subcorpus_id=1, mode="task", per_document=True)
    by_key = {(row.metric, row.document): row for row in rows}
    for document in report["documents"]:
        for part, metric in (("anaphora_recognition", "bridging_ar"),
                             ("mention", "bridging_mention"), ("entity", "bridging_entity")):
            row = by_key[(metric, document)]
            cell = report["per_document"][document]["bridging"][part]
            assert row.counts == {"tp": cell["tp"], "fp": cell["fp"], "fn": cell["fn"]}
            assert row.f1 == cell["f1"]
        assert set(by_key[("non_referring", document)].counts) == {"tp", "fp", "fn"}
    # A single-document file: the document's entity-level F1 is the sub-corpus's.
    assert by_key[("bridging_entity", report["documents"][0])].f1 == by_key[
        ("bridging_entity", "")].f1


def test_blanc_rows_keep_both_sub_metric_counts():
    report = scoring.score_files(str(KEY), str(RESPONSE), ["--per-doc"])
    rows = report_to_scores(report, subcorpus_id=1, mode="task", per_document=True)
    blanc = [row for row in rows if row.metric == "blanc" and row.document]
    assert blanc and all(isinstance(row.counts, list) and len(row.counts) == 2 for row in blanc)
