"""``python -m bench --cases misspelt``: the worker's scan of a scored compact file for
misspelt coreference attributes (`scoring.validation.misspelt_attributes`), against the line
pass it replaced (`misspelt_lines`), on a run of about 47 MiB.

The run is the compact GUM fixture repeated, each copy's entity ids made its own (so that the
MISC columns are as distinct as a large corpus's, not repeated copies), written three ways:
without a misspelling, with one on the last line only, and with the copies' ids shared (a
file whose MISC columns repeat). CPU seconds in this process (`time.process_time`), the best
of three; the warnings found must be the line pass's."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from scoring.validation import misspelt_attributes, misspelt_lines

NAME = "misspelt"
ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu"
MIB = 47
ENTITY_ID = re.compile(rb"([(|=])(\d+)([-)<>])")


def write_runs(directory: Path, scale: float) -> dict[str, Path]:
    one = SOURCE.read_bytes()
    copies = max(1, round(MIB * scale * 2**20 / len(one)))
    distinct = b"".join(ENTITY_ID.sub(rb"\g<1>%d_\g<2>\g<3>" % i, one) for i in range(copies))
    runs = {
        "distinct ids": distinct,
        "misspelt last line": distinct.rstrip(b"\n") + b"|Entitty=(e1-x-1)\n",
        "repeated ids": one * copies,
    }
    paths = {}
    for name, data in runs.items():
        paths[name] = directory / f"{name.replace(' ', '-')}.conllu"
        paths[name].write_bytes(data)
    return paths


def cpu(scan: Callable[[str], list[str]], path: Path) -> tuple[float, list[str]]:
    best, found = float("inf"), []
    for _ in range(3):
        begun = time.process_time()
        found = scan(str(path))
        best = min(best, time.process_time() - begun)
    return best, found


def run(out: TextIO, scale: float = 1.0) -> list[dict]:
    header = f"{'run':<20} {'MiB':>6} {'line pass cpu':>13} {'names first cpu':>15} {'×cpu':>5}"
    print("\n" + header, file=out)
    print("-" * len(header), file=out)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ua-bench-misspelt-") as directory:
        for name, path in write_runs(Path(directory), scale).items():
            before, expected = cpu(misspelt_lines, path)
            after, found = cpu(misspelt_attributes, path)
            if found != expected:
                raise SystemExit(f"{name}: the scans disagree: {found} != {expected}")
            size = path.stat().st_size / 2**20
            rows.append({"case": name, "mib": size, "before": before, "after": after})
            print(
                f"{name:<20} {size:>6.1f} {before:>13.3f} {after:>15.3f} {after / before:>5.2f}",
                file=out,
                flush=True,
            )
    return rows
