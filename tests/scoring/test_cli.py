"""The command line: the reference's report lines, v2's layout, JSON, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import scoring.engine
from scoring import score_files
from scoring.cli import main
from tests.paths import CONFORMANCE, REPO

FIXTURES = CONFORMANCE / "ua-fixtures"


def fixture(name: str) -> tuple[str, str]:
    return str(FIXTURES / name / "key.conllua"), str(FIXTURES / name / "sys.conllua")


def expected_v1(name: str, mode: str) -> dict:
    return json.loads((FIXTURES / name / "expected-v1.json").read_text())["modes"][mode]


def line(scores: dict) -> str:
    return (
        f"Recall: {scores['recall'] * 100:.2f}  Precision: {scores['precision'] * 100:.2f}  "
        f"F1: {scores['f1'] * 100:.2f}"
    )


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_default_report_is_the_reference_output_for_pradhan2014(capsys):
    """Banner (double space, trailing space), metric lines in v1 order, CoNLL: exact text."""
    key, response = fixture("pradhan2014")
    expected = expected_v1("pradhan2014", "default")
    status, out, err = run(capsys, key, response)
    lines = [expected["banner"].rstrip("\n")]
    for name in ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc"):
        lines += [name, line(expected["scores"][name])]
    lines.append(f"CoNLL score: {expected['conll_percent']:.2f}")
    assert status == 0 and err == ""
    assert out == "\n".join(lines) + "\n"
    assert "CoNLL score: 45.82" in out


def test_non_referring_and_bridging_blocks_follow_the_reference(capsys):
    """keep_non_referring keep_bridging appends both blocks, each after a rule line."""
    key, response = fixture("bridging_basic")
    expected = expected_v1("bridging_basic", "keep_non_referring keep_bridging")
    status, out, _ = run(capsys, key, response, "keep_bridging", "keep_non_referring")
    bridging = expected["bridging"]
    tail = [
        "============================================",
        "Non-referring markable identification scores:",
        line(expected["non_referring"]),
        "============================================",
        "Bridging anaphora recognition scores:",
        line(bridging["anaphora_recognition"]),
        "Full bridging scores (Markable Level):",
        line(bridging["mention"]),
        "Full bridging scores (Entity Level):",
        line(bridging["entity"]),
    ]
    assert status == 0
    assert out.splitlines()[0] == expected["banner"].rstrip("\n")
    assert out.splitlines()[-len(tail) :] == tail


def test_selected_metrics_print_in_v1_order_and_conll_needs_all_three(capsys):
    """`blanc muc` prints muc before blanc and no CoNLL line."""
    key, response = fixture("pradhan2014")
    _, out, _ = run(capsys, key, response, "blanc", "muc", "min")
    lines = out.splitlines()
    assert lines[0].endswith("  using the minimum span evaluation setting ")
    assert [lines[1], lines[3]] == ["muc", "blanc"] and len(lines) == 5


@pytest.mark.parametrize(
    "argv",
    [
        "-m muc bcub ceafe ceafm blanc lea -s -l",
        "-m muc bcub ceafe ceafm blanc lea --only-split-antecedent",
        "-m muc bcub ceafe ceafm blanc lea -d",
        "-m non-referring bridging -s -l",
        "-m bridging",
        "-m muc bcub ceafe ceafm blanc lea -s -l -a partial-corefud",
    ],
)
def test_dash_options_print_v2s_banner(capsys, argv):
    """The v2 banner and metric list, as recorded in the pack, then the metric lines."""
    key, response = fixture("bridging_basic")
    expected = json.loads((FIXTURES / "bridging_basic" / "expected-v2.json").read_text())
    banner = expected["runs"][argv]["banner"]
    status, out, _ = run(capsys, key, response, *argv.split())
    assert status == 0 and out.startswith(banner)
    first = expected["runs"][argv]["metrics_selected"][0]
    if first in ("muc", "lea"):
        assert out[len(banner) :].splitlines()[:2] == [
            first,
            line(expected["runs"][argv]["scores"][first]),
        ]


def test_json_output_is_the_api_result(capsys):
    """--json prints exactly what score_files returns."""
    key, response = fixture("pradhan2014")
    status, out, _ = run(capsys, key, response, "--json", "remove_singletons")
    assert status == 0
    assert json.loads(out) == score_files(key, response, ["remove_singletons"])


def test_warnings_go_to_stderr_and_the_report_stays_clean(capsys, tmp_path):
    """--missing-documents skip: the report on stdout, the skipped document on stderr."""
    key, response = fixture("missing_doc")
    status, out, err = run(capsys, key, response, "--missing-documents", "skip")
    assert status == 0 and "warning:" in err and "d2" in err
    assert out.splitlines()[1:3] == ["lea", "Recall: 100.00  Precision: 100.00  F1: 100.00"]


def test_an_internal_error_exits_3_naming_the_inputs_without_a_traceback(capsys, monkeypatch):
    """A bug of ours is called one, with the files, never a traceback."""
    key, response = fixture("pradhan2014")

    def broken(pairs, options):
        raise RuntimeError("boom")

    monkeypatch.setattr(scoring.runner, "score_corpus", broken)
    status, out, err = run(capsys, key, response)
    assert status == 3 and out == ""
    assert err.startswith("internal error") and key in err and response in err
    assert "Traceback" not in err and "boom" in err


def test_usage_errors_exit_2(capsys):
    """No files, files after options, or an unknown option: exit 2 with the usage."""
    assert run(capsys)[0] == 2
    assert run(capsys, "-m", "muc", "a", "b")[0] == 2
    status, out, _ = run(capsys, "--help")
    assert status == 0 and out.startswith("usage: python -m scoring KEY RESPONSE")


def test_convert_is_handed_to_the_converter(capsys, monkeypatch):
    """`python -m scoring convert ...` calls scoring.convert.main with the rest of argv."""
    import scoring.cli

    calls = []
    monkeypatch.setattr(scoring.cli, "convert_main", lambda argv: calls.append(argv) or 0)
    assert main(["convert", "--to", "compact", "in", "out"]) == 0
    assert calls == [["--to", "compact", "in", "out"]]


def test_python_m_scoring_runs_as_a_program(tmp_path):
    """`python -m scoring` in a fresh process: report on stdout, status 0."""
    key, response = fixture("pradhan2014")
    done = subprocess.run(
        [sys.executable, "-m", "scoring", key, response, "muc"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["muc", "Recall: 40.00  Precision: 40.00  F1: 40.00"]
