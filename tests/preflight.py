"""What `make test` needs beside the virtual environment, checked before the first test: one
line naming whatever is missing, and exit status 1. `.ci/run` installs and starts all of it.

    python tests/preflight.py
"""

from __future__ import annotations

import shutil
import socket
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")  # the browser tests drive the system Chromium (tests/e2e)


def reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def missing() -> list[str]:
    """What is absent, each with what to do about it."""
    out = []
    if not sys.platform.startswith("linux"):
        out.append("Linux (the tests fork and read /proc)")
    if not CHROMIUM.exists():
        out.append(f"Chromium at {CHROMIUM} (apt-get install chromium)")
    if not reachable("127.0.0.1", 5432):
        out.append(
            "PostgreSQL on 127.0.0.1:5432, user postgres without password "
            "(apt-get install postgresql, then start it)"
        )
    if shutil.which("redis-server") is None:
        out.append("redis-server (apt-get install redis-server)")
    elif not reachable("127.0.0.1", 6379):
        out.append("Redis on 127.0.0.1:6379 (start redis-server)")
    for module in ("_speedups", "_exploded", "_tables", "_assign"):
        try:
            __import__(f"scoring.native.{module}")
        except ImportError:
            out.append(
                f"the compiled scoring.native.{module} (a C compiler and the Python "
                "headers, then `make venv`)"
            )
    return out


def main() -> int:
    problems = missing()
    if problems:
        print(
            "make test needs: " + "; ".join(problems) + ". `.ci/run` provides them.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
