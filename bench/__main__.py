"""``python -m bench``: scorer speed and memory against the targets, one fresh process per run.

For each case a seeded corpus is generated (bench/corpus.py), then measured twice in fresh
processes: scoring it (`scoring.score_files`) and, as the baseline of the same run, only
reading it (both files streamed through the reader, no scoring). The table gives wall seconds
and peak RSS, each as a ratio to its target where the project sets one (5,000 documents ≤ 6 s
and ≤ 250 MiB; a 20,000-mention document ≤ 1 s), and the CPU time as a ratio to the
baseline's (CPU time, because wall time on a shared machine moves with the load).
Nothing is asserted: the numbers are printed, to be read.

A second table runs whole command lines, each case's ``python -m scoring KEY RESPONSE`` and
the line-split floor (`bench.floor`: a Python loop that reads both files and splits every
line), as child processes: CPU time (children included: a forked second process counts),
wall time, peak RSS, and the CPU ratios to the floor and to UA scorer v1's CPU time on the
same corpus shapes as the reference measurement (v1 is not installed here; its seconds are those
measured on the build machine).

    python -m bench                          # every case at full size
    python -m bench --scale 0.1 --cases docs-5000,mentions-20000
    python -m bench --cases compact-1000,compact-5000   # compact vs exploded (bench/compact.py)
    python -m bench --cases modes-identity,modes-crac   # a task's modes from one reading
    DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://... python -m bench --cases corefud-22
    DATABASE_URL=... CELERY_BROKER_URL=... python -m bench --cases rush   # a deadline burst
    python -m bench --cases board-1000       # boards at 1,000 runs (bench/boards.py)
    python -m bench --cases board-10000      # and at 10,000 (seeded in bulk; slow to set up)
    python -m bench --cases record-1000      # the official record at 1,000 runs × 20 datasets
    python -m bench --cases misspelt         # the scan for misspelt attributes (bench/misspelt.py)
    python -m bench --cases rebuild-10000    # one score change at 10,000 runs: the kept views
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TextIO

from bench import (
    boards,
    compact,
    corefud22,
    misspelt,
    modes,
    rebuild,
    record,
    rush,
    scoringdb,
    startup,
)
from bench.corpus import Shape, write_pair


@dataclass(frozen=True)
class Case:
    name: str
    shape: Shape
    options: tuple[str, ...] = ()
    target_seconds: float | None = None
    target_mib: float | None = None
    note: str = ""
    v1_cpu: float | None = None  # UA scorer v1's CPU seconds on this shape (reference measurement)
    floor_ref_cpu: float | None = None  # the floor's CPU seconds in that same measurement
    command: bool = False  # also measured as a whole command line against the floor


CASES = (
    Case("docs-1000", Shape(documents=1000), v1_cpu=4.43, floor_ref_cpu=0.22, command=True),
    Case(
        "docs-5000",
        Shape(documents=5000),
        target_seconds=6.0,
        target_mib=250.0,
        v1_cpu=22.3,
        floor_ref_cpu=0.96,
        command=True,
    ),
    Case("mentions-2000", Shape(documents=1, tokens=16800, mentions=2000), command=True),
    Case(
        "mentions-5000", Shape(documents=1, tokens=42000, mentions=5000), v1_cpu=15.5, command=True
    ),
    Case(
        "mentions-20000",
        Shape(documents=1, tokens=167000, mentions=20000),
        target_seconds=1.0,
        command=True,
    ),
    Case(
        "split-heavy",
        Shape(documents=1000, split_share=0.15),
        note="15% plural entities, default mode",
    ),
    Case(
        "bridging-dd",
        Shape(documents=1000, bridging_share=0.07, dd_per_document=3),
        options=("keep_bridging", "keep_non_referring"),
        note="identity + NR + bridging",
    ),
    Case(
        "dd",
        Shape(documents=1000, bridging_share=0.07, dd_per_document=3),
        options=("evaluate_discourse_deixis",),
        note="the DD column",
    ),
)


BOARD_CASE = "board-1000"
BOARD_LARGE = "board-10000"

LEGEND = """
score s: score_files wall time after imports; cpu s: its CPU time (steadier on a shared machine)
read cpu: CPU time of only reading the same files (the baseline, same run); ×read = cpu s / read cpu
×target: wall time or peak RSS over its target at full size (≤ 1 meets it; '-': scaled or none)
peak MiB: VmHWM of the scoring process (and of any child it forks), imports included"""


def scaled(shape: Shape, scale: float) -> Shape:
    if shape.documents > 1:
        return replace(shape, documents=max(1, round(shape.documents * scale)))
    return replace(
        shape,
        tokens=max(50, round(shape.tokens * scale)),
        mentions=max(6, round(shape.mentions * scale)),
    )


def measure(what: str, key: Path, response: Path, options: tuple[str, ...]) -> dict:
    """Run bench.measure in a fresh interpreter; its JSON line."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "bench.measure", what, str(key), str(response), *options],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.measure {what} failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ratio(value: float, target: float | None) -> str:
    return f"{value / target:.2f}" if target else "-"


COMMAND_LEGEND = """
cpu s: CPU time of the whole run in fresh processes, start-up and forked children included
×floor: project cpu / floor cpu (goal ≤ 2 on docs-5000); v1 ×faster: UA scorer v1's CPU
seconds (reference measurement, same shapes, not measured here) / project cpu (goal ≥ 10);
v1 est ×: the same with v1's seconds scaled by floor cpu now / floor cpu in that measurement
(0.22 s and 0.96 s), an estimate of v1 on this machine now. Scorer and floor run in turns."""


def median(runs) -> dict:
    """The run of median CPU time."""
    ordered = sorted(runs, key=lambda r: r["cpu_seconds"])
    return ordered[len(ordered) // 2]


def project_and_floor(
    key: Path, response: Path, options: tuple[str, ...], repeat: int
) -> tuple[dict, dict]:
    """The median runs of the scorer's command line and of the floor, measured in turns (one
    of each, ``repeat`` times), so that a change in the machine's load meets both alike."""
    pairs = [
        (measure("command", key, response, options), measure("floor", key, response, ()))
        for _ in range(repeat)
    ]
    return median(p for p, _ in pairs), median(f for _, f in pairs)


def run_commands(cases: list[Case], scale: float, out, repeat: int = 1) -> list[dict]:
    """Whole command-line runs of the scorer and of the line-split floor, per case."""
    rows = []
    header = (
        f"{'command line':<15} {'cpu s':>7} {'wall s':>7} {'peak MiB':>8} "
        f"{'floor cpu':>9} {'floor wall':>10} {'floor MiB':>9} {'×floor':>7} "
        f"{'v1 cpu':>7} {'v1 ×faster':>10} {'v1 est ×':>8}"
    )
    print("\n" + header, file=out)
    print("-" * len(header), file=out)
    with tempfile.TemporaryDirectory(prefix="ua-bench-") as directory:
        for case in cases:
            shape = scaled(case.shape, scale)
            key, response = write_pair(Path(directory), shape, name=case.name)
            project, floor = project_and_floor(key, response, case.options, repeat)
            v1 = case.v1_cpu if scale == 1 else None
            # v1 on this machine now, estimated: its reference seconds scaled by how much the
            # floor's CPU time moved since that measurement
            v1_here = (
                v1 * floor["cpu_seconds"] / case.floor_ref_cpu
                if v1 and case.floor_ref_cpu
                else None
            )
            row = {
                "case": f"command: {case.name}",
                "project": project,
                "floor": floor,
                "floor_ratio": project["cpu_seconds"] / max(floor["cpu_seconds"], 1e-9),
                "v1_cpu": v1,
                "v1_ratio": v1 / project["cpu_seconds"] if v1 else None,
                "v1_estimated_ratio": v1_here / project["cpu_seconds"] if v1_here else None,
            }
            rows.append(row)
            print(
                f"{case.name:<15} {project['cpu_seconds']:>7.2f} {project['seconds']:>7.2f} "
                f"{project['peak_mib']:>8.1f} {floor['cpu_seconds']:>9.2f} "
                f"{floor['seconds']:>10.2f} {floor['peak_mib']:>9.1f} "
                f"{row['floor_ratio']:>7.2f} "
                f"{v1 if v1 else '-':>7} "
                f"{format(row['v1_ratio'], '.1f') if v1 else '-':>10} "
                f"{format(row['v1_estimated_ratio'], '.1f') if v1_here else '-':>8}",
                file=out,
                flush=True,
            )
    print(COMMAND_LEGEND, file=out)
    return rows


def run(cases: list[Case], scale: float, out) -> list[dict]:
    """Generate, measure and print every case; targets apply at full size only."""
    rows = []
    header = (
        f"{'case':<15} {'docs':>5} {'tokens':>8} {'mentions':>8} {'score s':>8} "
        f"{'cpu s':>7} {'read cpu':>8} {'×read':>6} {'×target s':>9} {'peak MiB':>9} "
        f"{'×target MiB':>11}  note"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    with tempfile.TemporaryDirectory(prefix="ua-bench-") as directory:
        generated: dict[Shape, tuple[Path, Path]] = {}
        for case in cases:
            shape = scaled(case.shape, scale)
            if shape not in generated:
                generated[shape] = write_pair(Path(directory), shape, name=case.name)
            key, response = generated[shape]
            scored = measure("score", key, response, case.options)
            read = measure("read", key, response, case.options)
            if scale != 1:
                case = replace(case, target_seconds=None, target_mib=None)
            row = {
                "case": case.name,
                "documents": shape.documents,
                "tokens": shape.tokens * shape.documents,
                "mentions": shape.mentions * shape.documents,
                "score": scored,
                "read": read,
                "target_seconds": case.target_seconds,
                "target_mib": case.target_mib,
            }
            rows.append(row)
            print(
                f"{case.name:<15} {shape.documents:>5} {row['tokens']:>8} {row['mentions']:>8} "
                f"{scored['seconds']:>8.2f} {scored['cpu_seconds']:>7.2f} "
                f"{read['cpu_seconds']:>8.2f} "
                f"{scored['cpu_seconds'] / max(read['cpu_seconds'], 1e-9):>6.2f} "
                f"{ratio(scored['seconds'], case.target_seconds):>9} "
                f"{scored['peak_mib']:>9.1f} {ratio(scored['peak_mib'], case.target_mib):>11}"
                f"  {case.note}",
                file=out,
                flush=True,
            )
    print(LEGEND, file=out)
    return rows


# The cases their own modules run, in the order they run: name → run(out, scale).
OWN_MODULE_CASES: dict[str, Callable[[TextIO, float], list]] = {
    corefud22.NAME: lambda out, scale: corefud22.run(out, scale),
    rush.NAME: lambda out, scale: rush.run(out, scale),
    "startup": lambda out, scale: startup.run(out),
    BOARD_CASE: lambda out, scale: boards.run(out, scale=scale),
    BOARD_LARGE: lambda out, scale: boards.run(
        out,
        scale=scale,
        name=BOARD_LARGE,
        runs=10 * boards.RUNS,
        bulk=True,
        requests=boards.REQUESTS // 3,
    ),
    record.NAME: lambda out, scale: record.run(out, scale=scale),
    scoringdb.NAME: lambda out, scale: scoringdb.run(out, scale),
    misspelt.NAME: lambda out, scale: misspelt.run(out, scale),
    rebuild.NAME: lambda out, scale: rebuild.run(out, scale=scale),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply corpus sizes (e.g. 0.01 for a smoke run)"
    )
    parser.add_argument(
        "--cases",
        default=",".join(
            [c.name for c in CASES] + list(compact.CASES) + list(modes.CASES) + ["startup"]
        ),
        help="comma-separated case names: "
        + ", ".join(
            [c.name for c in CASES]
            + list(compact.CASES)
            + list(modes.CASES)
            + list(OWN_MODULE_CASES)
        )
        + f". The default is "
        f"all but {corefud22.NAME} and {rush.NAME} (need PostgreSQL and Redis), "
        f"{scoringdb.NAME} (needs PostgreSQL on this machine) and "
        f"{BOARD_CASE} (boards at 1,000 runs, --scale multiplies them: it seeds "
        "a throwaway database, several minutes; a test_<name> database on the "
        f"server of DATABASE_URL when it is set, else a temporary SQLite file) "
        f"and {BOARD_LARGE} (the same at 10,000 runs, inserted in bulk) and {record.NAME} "
        f"(the frozen record's costs at 1,000 runs × 20 datasets: bench/record.py) and "
        f"{rebuild.NAME} (one score change at 10,000 runs rebuilding the kept views: "
        "bench/rebuild.py)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="whole command-line runs per case (the median CPU is shown)",
    )
    args = parser.parse_args(argv)
    by_name = {case.name: case for case in CASES}
    wanted = args.cases.split(",")
    names = [name for name in wanted if name in by_name]
    compact_names = [name for name in wanted if name in compact.CASES]
    mode_names = [name for name in wanted if name in modes.CASES]
    unknown = [
        name
        for name in wanted
        if name not in by_name
        and name not in compact.CASES
        and name not in modes.CASES
        and name not in OWN_MODULE_CASES
    ]
    if unknown:
        parser.error(
            f"unknown cases {unknown}; valid: {', '.join(by_name)}, "
            f"{', '.join(compact.CASES)}, {', '.join(modes.CASES)}, "
            f"{', '.join(OWN_MODULE_CASES)}"
        )
    rows = run([by_name[name] for name in names], args.scale, sys.stdout) if names else []
    commands = [by_name[name] for name in names if by_name[name].command]
    if commands:
        rows += run_commands(commands, args.scale, sys.stdout, args.repeat)
    if compact_names:
        rows += compact.run(compact_names, args.scale, sys.stdout)
    if mode_names:
        rows += modes.run(mode_names, args.scale, sys.stdout)
    for name, case in OWN_MODULE_CASES.items():
        if name in wanted:
            rows += case(sys.stdout, args.scale)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
