"""Smoke test of the benchmark: it generates, measures in fresh processes and prints a table.

Nothing about speed is asserted here; `make bench` prints the numbers.
"""

from __future__ import annotations

import io

import pytest

from bench.__main__ import CASES, run, run_commands
from bench.corpus import Shape, write_pair
from scoring import score_files, validate_response


def test_the_generated_corpus_is_valid_and_scores_below_perfect(tmp_path):
    """The generator writes a well-formed pair with every layer; the response has errors."""
    key, response = write_pair(
        tmp_path, Shape(documents=5, split_share=0.1, bridging_share=0.1, dd_per_document=2)
    )
    for words in ([], ["keep_bridging", "keep_non_referring"], ["evaluate_discourse_deixis"]):
        assert validate_response(str(key), str(response), words) == []
        result = score_files(str(key), str(response), words)
        assert 0.3 < result["conll"] < 1.0
    assert (
        write_pair(
            tmp_path / ".." / tmp_path.name,
            Shape(documents=5, split_share=0.1, bridging_share=0.1, dd_per_document=2),
        )[0].read_bytes()
        == key.read_bytes()
    )


@pytest.mark.slow
def test_the_bench_prints_a_row_per_case_at_a_tiny_size():
    """One case end to end at 1% size: score and read baseline in fresh processes."""
    out = io.StringIO()
    [case] = [c for c in CASES if c.name == "bridging-dd"]
    [row] = run([case], scale=0.005, out=out)
    assert row["score"]["seconds"] > 0 and row["read"]["seconds"] > 0
    assert row["score"]["peak_mib"] >= row["score"]["import_mib"] > 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("case") and lines[2].startswith("bridging-dd")


@pytest.mark.slow
def test_the_command_line_table_times_the_scorer_and_the_floor_as_whole_runs():
    """Whole `python -m scoring` runs and the line-split floor, each a child process; the
    ratio to the floor is printed, v1's only at full size."""
    out = io.StringIO()
    [case] = [c for c in CASES if c.name == "docs-1000"]
    [row] = run_commands([case], scale=0.005, out=out)
    project, floor = row["project"], row["floor"]
    assert project["cpu_seconds"] > floor["cpu_seconds"] > 0
    assert project["peak_mib"] > 0 and floor["seconds"] > 0
    assert row["floor_ratio"] == project["cpu_seconds"] / floor["cpu_seconds"]
    assert row["v1_cpu"] is None  # scaled: v1's seconds are for the full corpus
    assert row["v1_estimated_ratio"] is None
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("command line") and lines[3].startswith("docs-1000")


def test_the_floor_splits_every_line_of_both_files(tmp_path):
    from bench.floor import split_every_line

    key, response = write_pair(tmp_path, Shape(documents=2))
    expected = sum(
        len(line.split())
        for path in (key, response)
        for line in path.read_text(encoding="utf-8").splitlines()
    )
    assert split_every_line([str(key), str(response)]) == expected


def test_the_startup_case_prints_the_import_and_the_runs(capsys):
    """`python -m bench --cases startup` prints the import's CPU and each run's overhead."""
    from bench import startup

    out = io.StringIO()
    rows = startup.run(out, repeat=1)
    assert [row["case"] for row in rows] == [f"startup: {label}" for label in startup.DOCUMENTS]
    assert all(row["cpu"] > 0 and row["import_cpu"] > 0 for row in rows)
    assert "python -c 'import scoring'" in out.getvalue()


def test_importing_the_scorer_does_not_import_scipy():
    """scipy loads on the first assignment actually solved (scoring/assignment.py)."""
    import subprocess
    import sys

    code = "import sys, scoring; print('scipy' in sys.modules)"
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip()
        == "False"
    )


@pytest.mark.slow
def test_the_compact_case_measures_the_converted_twin_of_the_same_corpus():
    """`python -m bench --cases compact-1000` at a tiny size: both formats measured, ratios
    printed."""
    from bench import compact

    out = io.StringIO()
    [row] = compact.run(["compact-1000"], scale=0.005, out=out)
    assert row["compact"]["documents"] == row["exploded"]["documents"] == 5
    assert row["peak_ratio"] > 0 and row["cpu_ratio"] > 0
    assert out.getvalue().splitlines()[2].startswith("compact-1000")


def _bench_on_sqlite(*args: str):
    """``python -m bench ARGS`` in a child process, on a throwaway SQLite file (no
    DATABASE_URL) and a cache of its own; the finished process (it must succeed)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PYTHONPATH"] = str(root)
    env.pop("CACHE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "bench", *args],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_board_case_times_three_boards_every_way_at_a_tiny_size():
    """``--cases board-1000,board-10000`` at 0.4% size (4 and 40 runs) on a throwaway SQLite
    file: seeds through the worker's service (in bulk for the larger case), prints the three
    boards as kept views, built on request and recomputed from the score rows, with the CPU
    per request and a fresh process's first request, all giving the same rows; the named
    database is not touched."""
    done = _bench_on_sqlite("--cases", "board-1000,board-10000", "--scale", "0.004")
    for case, runs in (("board-1000", 4), ("board-10000", 40)):
        lines = [line for line in done.stdout.splitlines() if line.startswith(case + " ")]
        assert [line.split(":")[0].split()[1] for line in lines] == ["rest", "html", "all-runs"]
        for line in lines:
            assert line.count("cpu p50") == 3 and line.count("fresh process: first request") == 2
            assert "before (built on request)" in line and "recomputed from score rows" in line
        assert f"{case}: seeded {runs} runs" in done.stdout
        assert f"{case}: a score change builds 4 views" in done.stdout
    assert "in bulk" in done.stdout and done.stdout.count("Same boards both ways: yes") == 2


def test_the_peak_is_the_scorers_not_the_parent_process(tmp_path):
    """A measuring child started by a large parent reports its own peak: Linux carries the
    parent's ``ru_maxrss`` across fork and exec, so that figure was the bench's own size on
    every row (issue 25, item 6)."""
    from bench.compact import convert, measure
    from bench.measure import own_peak_mib

    key, response = write_pair(tmp_path, Shape(documents=3))
    ballast = bytearray(400 * 1024 * 1024)  # the parent now holds 400 MiB, every page touched
    for offset in range(0, len(ballast), 4096):
        ballast[offset] = 1
    assert own_peak_mib() > 400
    exploded = measure(key, response, ("-f", "ua"))
    compact = measure(convert(key), convert(response), ("-f", "corefud"))
    del ballast
    for row in (exploded, compact):
        assert 0 < row["import_mib"] <= row["peak_mib"] < 300


def test_the_record_case_prints_the_record_costs_at_a_tiny_size():
    """``--cases record-1000`` at 0.2% size (2 runs × 20 datasets) on a throwaway SQLite
    file: the organizer's board before and after a freeze, the freeze, the frozen JSON GET
    (plain and gzip) and the package build, each with its goal."""
    done = _bench_on_sqlite("--cases", "record-1000", "--scale", "0.002")
    assert "record-1000: seeded 2 runs of 100 teams × 20 sub-corpora" in done.stdout
    for label in (
        "organizer's board, unfrozen",
        "organizer's board, frozen",
        "freeze",
        "frozen JSON GET  ",
        "frozen JSON GET, gzip accepted",
        "results package build",
    ):
        assert label in done.stdout, label
    assert "goal ≤ 1.5×" in done.stdout and "goal ≤ 50 ms" in done.stdout
