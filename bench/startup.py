"""The start-up tax: CPU of a one-document command-line run against `python -c "import
scoring"`, both in fresh processes, median of repeated runs (children's CPU time)."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = {
    "no assignment to solve": (
        ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA",
        ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA",
        ("remove_split_antecedent",),
    ),
    "with Kuhn-Munkres": (
        ROOT / "fixtures/data/codi-crac21/AMI_test_partial.ES2004a.CONLLUA",
        ROOT / "fixtures/baselines/codi-crac21/heuristic-gold/AMI.CONLLUA",
        (),
    ),
}


def children_cpu(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(times)


def run(out: TextIO, repeat: int = 7) -> list[dict]:
    baseline = children_cpu([sys.executable, "-c", "import scoring"], repeat)
    out.write(
        f"\nstart-up (median of {repeat} fresh processes, CPU s): "
        f"python -c 'import scoring' {baseline:.3f}\n"
    )
    rows = []
    for label, (key, response, words) in DOCUMENTS.items():
        cpu = children_cpu(
            [sys.executable, "-m", "scoring", str(key), str(response), *words], repeat
        )
        out.write(
            f"  one-document run, {label}: {cpu:.3f} (+{cpu - baseline:.3f} over the "
            "import; goal +0.15)\n"
        )
        rows.append({"case": f"startup: {label}", "cpu": cpu, "import_cpu": baseline})
    return rows
