"""Compact (CorefUD) against exploded files of the same content.

``python -m bench --cases compact-1000,compact-5000``: a generated exploded pair
(bench/corpus.py) is written compact too by the converter (``python -m scoring convert --to
compact``), then each pair is scored in a fresh process with the same options (``-f ua`` and
``-f corefud``). The generated documents each number their entities from 1, so a file repeats
its ids; ``compact-5000-unique`` gives every document's ids a prefix of their own in the
compact twins (``d7x1`` ...), the shape where the reader's file-wide entity order
(udapi's) would grow with the file's distinct ids. The table gives CPU seconds (children
included), wall seconds and peak RSS of both, and compact / exploded ratios. The targets:
peak ≤ 1.5 × and CPU ≤ 1 × the exploded path's. (The scores may differ a little: a
``-Pseudo`` entity is non-referring in an exploded file and an ordinary entity in a compact
one, as the CorefUD scorer reads it.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from bench.corpus import Shape, write_pair

ROOT = Path(__file__).resolve().parents[1]
CASES = {"compact-1000": 1000, "compact-5000": 5000, "compact-5000-unique": 5000}
UNIQUE_IDS = {"compact-5000-unique"}
_CHUNKS = re.compile(r"(\([^()]+\)?|[^()]+\))")  # udapi's split of an Entity= value
TARGET_PEAK = 1.5
TARGET_CPU = 1.0


def convert(exploded: Path) -> Path:
    """The compact twin of an exploded file, written by the project's converter."""
    target = exploded.with_suffix(".conllu")
    subprocess.run(
        [sys.executable, "-m", "scoring", "convert", "--to", "compact", str(exploded), str(target)],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return target


def unique_ids(compact: Path) -> Path:
    """``compact`` with each document's entity ids prefixed by its number (``1`` of the
    seventh document is ``d7x1``) in Entity= and SplitAnte=, written beside it."""
    target = compact.with_suffix(".unique.conllu")
    number = 0
    with compact.open(encoding="utf-8") as lines, target.open("w", encoding="utf-8") as out:
        for line in lines:
            if line.startswith("# newdoc"):
                number += 1
            elif line[:1].isdigit() and ("Entity=" in line or "SplitAnte=" in line):
                columns = line.rstrip("\n").split("\t")
                columns[-1] = "|".join(
                    _unique(item, f"d{number}x") for item in columns[-1].split("|")
                )
                line = "\t".join(columns) + "\n"
            out.write(line)
    return target


def _unique(item: str, prefix: str) -> str:
    name, _, value = item.partition("=")
    if name == "Entity":
        chunks = [c for c in _CHUNKS.split(value) if c]
        value = "".join(
            ("(" + prefix + c[1:]) if c.startswith("(") else (prefix + c) for c in chunks
        )
    elif name == "SplitAnte":
        value = ",".join(
            "<".join(prefix + eid for eid in pair.split("<")) for pair in value.split(",")
        )
    return f"{name}={value}"


def measure(key: Path, response: Path, options: tuple[str, ...]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "bench.measure", "score", str(key), str(response), *options],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.measure failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(names: list[str], scale: float, out: TextIO) -> list[dict]:
    header = (
        f"{'case':<19} {'docs':>5} {'expl cpu':>8} {'comp cpu':>8} {'×cpu':>5} "
        f"{'expl wall':>9} {'comp wall':>9} {'×wall':>5} {'expl MiB':>8} "
        f"{'comp MiB':>8} {'×MiB':>5}"
    )
    print(header, file=out)
    print("-" * len(header), file=out)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ua-bench-compact-") as directory:
        for name in names:
            shape = Shape(documents=max(1, round(CASES[name] * scale)))
            key, response = write_pair(Path(directory), shape, name=name)
            compact_key, compact_response = convert(key), convert(response)
            if name in UNIQUE_IDS:
                compact_key, compact_response = (
                    unique_ids(compact_key),
                    unique_ids(compact_response),
                )
            exploded = measure(key, response, ("-f", "ua"))
            compact = measure(compact_key, compact_response, ("-f", "corefud"))
            if compact["documents"] != exploded["documents"]:
                raise RuntimeError(f"{name}: the compact twin has other documents")
            row = {
                "case": name,
                "documents": shape.documents,
                "exploded": exploded,
                "compact": compact,
                "cpu_ratio": compact["cpu_seconds"] / exploded["cpu_seconds"],
                "wall_ratio": compact["seconds"] / exploded["seconds"],
                "peak_ratio": compact["peak_mib"] / exploded["peak_mib"],
            }
            rows.append(row)
            print(
                f"{name:<19} {shape.documents:>5} {exploded['cpu_seconds']:>8.2f} "
                f"{compact['cpu_seconds']:>8.2f} {row['cpu_ratio']:>5.2f} "
                f"{exploded['seconds']:>9.2f} {compact['seconds']:>9.2f} "
                f"{row['wall_ratio']:>5.2f} {exploded['peak_mib']:>8.1f} "
                f"{compact['peak_mib']:>8.1f} {row['peak_ratio']:>5.2f}",
                file=out,
                flush=True,
            )
    for row in rows:
        print(
            f"{row['case']}: peak as measured before (ru_maxrss of the scoring process, "
            f"which Linux carries over from the bench's own process across fork and exec): "
            f"exploded {row['exploded']['maxrss_mib']:.1f}, compact "
            f"{row['compact']['maxrss_mib']:.1f} MiB",
            file=out,
        )
    print(
        f"\ncompact / exploded, same content and options; targets ×MiB ≤ {TARGET_PEAK}, "
        f"×cpu ≤ {TARGET_CPU}. cpu: CPU seconds of the scoring, children included; "
        "MiB: peak RSS of the scoring process itself (VmHWM), not of this one",
        file=out,
    )
    return rows
