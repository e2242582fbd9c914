"""The command line of one scoring worker node as the services tests and the bench start it
(``tests/conftest.py``, ``bench/corefud22.py``): ``celery -A config worker`` with one pool
process (a node scores one job at a time; nodes run side by side), no gossip or mingle (the
nodes need not know each other), run by this interpreter from the repository's root.
Imports nothing of Django or Celery: the bench's parent process uses it."""

from __future__ import annotations

import sys
from pathlib import Path


def worker_command(name: str, *, loglevel: str = "INFO") -> list[str]:
    """The argv of a worker node named ``name`` (Celery's ``-n``; ``%h`` is the host)."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        f"--loglevel={loglevel}",
        "--concurrency=1",
        "--pool=prefork",
        "--without-gossip",
        "--without-mingle",
        "-n",
        name,
    ]


def web_command() -> list[str]:
    """The argv of a web process as deployments run it: gunicorn with the shipped
    configuration (deploy/gunicorn.conf.py, ``GUNICORN_*`` from the environment)."""
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    return [gunicorn, "-c", "deploy/gunicorn.conf.py", "config.wsgi"]
