"""A staged part (``competition.scoring.parts.StagedPart``) reads back as it was written:
the scored rows, in order and exact, and every way a part can end, with the message the
team reads."""

import json

import pytest

from competition.scoring import Kind, Outcome, PartResults, ScoreValue, StagedPart
from scoring import ScoreRow, ScoringInputError

ROWS = (
    ScoreValue(7, ScoreRow("task", "muc", "", 0.5, 0.25, 1 / 3, {"rn": 3, "rd": 6})),
    ScoreValue(7, ScoreRow("task", "muc", "doc-1", 1.0, 0.1, 0.18181818181818182, {"rn": 1})),
    ScoreValue(7, ScoreRow("head", "bcub", None, None, None, 0.0, {})),
)


def roundtrip(outcome: Outcome) -> Outcome:
    stored = json.loads(json.dumps(StagedPart(7, outcome).encode()))  # as the JSON column keeps it
    return StagedPart.decode(7, stored).outcome


def test_a_scored_part_reads_back_row_for_row():
    results = PartResults(7, key="abc", scores=ROWS, warnings=("w1",), log=("l1", "l2"))
    back = roundtrip(Outcome(Kind.SCORED, results=results))
    assert back.kind is Kind.SCORED and back.results == results


def test_a_scored_part_keeps_its_upload_warnings():
    warning = {"file": "run.conllu", "subcorpus": "en_gum", "line": 5, "message": "misspelt"}
    results = PartResults(
        7, key="abc", scores=ROWS, warnings=(), log=("l1",), upload_warnings=(warning,)
    )
    back = roundtrip(Outcome(Kind.SCORED, results=results))
    assert back.results == results and back.results.upload_warnings == (warning,)


def test_a_part_staged_before_upload_warnings_reads_without_any():
    """Parts staged before the field (a worker stopped during an upgrade) decode."""
    results = PartResults(7, key="abc", scores=ROWS, warnings=(), log=("l1",))
    stored = StagedPart(7, Outcome(Kind.SCORED, results=results)).encode()
    del stored["upload_warnings"]
    back = StagedPart.decode(7, stored).outcome
    assert back.results == results and back.results.upload_warnings == ()


def test_a_refused_part_keeps_file_line_and_message():
    refusal = ScoringInputError("run.conllu", 12, "bad column", code="columns", document="d1")
    back = roundtrip(Outcome(Kind.REFUSED, refusal=refusal, log="LIGHT: refused"))
    assert back.kind is Kind.REFUSED and back.log == "LIGHT: refused"
    assert str(back.refusal) == str(refusal) and back.message == str(refusal)
    assert not back.platform_failure


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        (Kind.SCORER, "could not score this run (key broken)"),
        (Kind.TIME, "time limit"),
        (Kind.MEMORY, "memory limit"),
        (Kind.CRASH, "internal error"),
    ],
)
def test_a_part_that_failed_keeps_the_platforms_message(kind, says):
    back = roundtrip(Outcome(kind, detail="key broken" if kind is Kind.SCORER else ""))
    assert back.kind is kind and back.platform_failure and says in back.message
    assert (back.crash is not None) == (kind is Kind.CRASH)


def test_a_part_staged_by_the_earlier_form_still_reads():
    """Parts written before the packed form (a worker stopped during an upgrade) decode."""
    rows = [["task", "muc", "", 0.5, 0.25, 1 / 3, {"rn": 3}]]
    scored = {"key": "abc", "warnings": [], "log": ["l1"], "scores": rows}
    back = StagedPart.decode(7, scored).outcome
    assert back.kind is Kind.SCORED and back.results is not None
    assert back.results.scores == (ScoreValue(7, ScoreRow(*rows[0])),)
    refused = {
        "error": {
            "kind": "input",
            "file": "run.conllu",
            "line": 3,
            "message": "bad",
            "code": "columns",
            "document": None,
            "log": "x",
        }
    }
    back = StagedPart.decode(7, refused).outcome
    assert back.kind is Kind.REFUSED and back.log == "x" and "run.conllu" in back.message
    assert StagedPart.decode(7, {"error": {"kind": "time"}}).outcome.kind is Kind.TIME
    failed = StagedPart.decode(7, {"error": {"kind": "scorer", "message": "key"}}).outcome
    assert failed.kind is Kind.SCORER and "(key)" in failed.message
