"""The line-split floor: ``python -m bench.floor KEY RESPONSE``.

A Python loop that reads both files and splits every line into its fields: the cost of
touching each line once, which any reader in Python pays at least. `python -m bench` runs
it as a whole command, as it runs the scorer, and prints the scorer's CPU time over it.
"""

from __future__ import annotations

import sys


def split_every_line(paths: list[str]) -> int:
    """Fields in the files, each line read and split once."""
    fields = 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                fields += len(line.split())
    return fields


if __name__ == "__main__":
    print(split_every_line(sys.argv[1:]))
