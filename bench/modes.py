"""A task's modes, one by one against from one reading (`scoring.score_modes`).

``python -m bench --cases modes-identity,modes-crac``: the platform scores each file of a
run in every mode of its task: a CODI-CRAC identity task in three (its own and two analysis
modes), a CRAC edition in four (head, partial and exact matching, with singletons). For a
generated 1,000-document pair (bench/corpus.py; written compact by the converter for the CRAC
case), each way runs in a fresh process, as a worker scores: `scoring.score` once per mode
(one process each), then `scoring.score_modes` with every mode at once. The table gives CPU
seconds (after imports), peak RSS, and the ratio; the results must be equal both ways.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from bench.compact import convert
from bench.corpus import Shape, write_pair

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = 1000
CASES = {
    "modes-identity": ("codi-crac-2021-identity", False),
    "modes-crac": ("crac-2025", True),
}

PROBE = """
import json, sys, time
import scoring.engine
from bench.measure import own_peak_mib
from scoring import parse_options, score, score_modes
from scoring.procedures import PROCEDURES
way, procedure, key, response = sys.argv[1:]
modes = PROCEDURES[procedure].modes
options = [parse_options(list(words)).options for words in modes.values()]
per_doc = [name == "task" for name in modes]
start = time.process_time()
if way == "alone":
    results = [score(key, response, options=o, per_doc=d, processes=1)
               for o, d in zip(options, per_doc)]
else:
    results = score_modes(key, response, options=options, per_doc=per_doc)
cpu = time.process_time() - start
print(json.dumps({"cpu_seconds": cpu, "modes": len(options),
                  "peak_mib": own_peak_mib(),
                  "f1": [r.conll for r in results]}))
"""


def _measure(way: str, procedure: str, key: Path, response: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, way, procedure, str(key), str(response)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"modes bench failed: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(names: list[str], scale: float, out: TextIO) -> list[dict]:
    header = (
        f"{'case':<15} {'modes':>5} {'one by one cpu':>14} {'one reading cpu':>15} "
        f"{'×cpu':>5} {'one by one MiB':>14} {'one reading MiB':>15}"
    )
    print("\n" + header, file=out)
    print("-" * len(header), file=out)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ua-bench-modes-") as directory:
        key, response = write_pair(
            Path(directory), Shape(documents=max(1, round(DOCUMENTS * scale))), name="modes"
        )
        compact = (convert(key), convert(response))
        for name in names:
            procedure, is_compact = CASES[name]
            files = compact if is_compact else (key, response)
            alone = _measure("alone", procedure, *files)
            shared = _measure("shared", procedure, *files)
            if alone["f1"] != shared["f1"]:
                raise RuntimeError(f"{name}: the modes scored from one reading differ")
            ratio = shared["cpu_seconds"] / alone["cpu_seconds"]
            rows.append({"case": name, "alone": alone, "shared": shared, "cpu_ratio": ratio})
            print(
                f"{name:<15} {alone['modes']:>5} {alone['cpu_seconds']:>14.2f} "
                f"{shared['cpu_seconds']:>15.2f} {ratio:>5.2f} {alone['peak_mib']:>14.1f} "
                f"{shared['peak_mib']:>15.1f}",
                file=out,
                flush=True,
            )
    print(
        f"\n{DOCUMENTS:,} generated documents (× --scale); CPU seconds after imports, one "
        "process; ×cpu = one reading / one by one",
        file=out,
    )
    return rows
