"""``python -m bench --cases record-1000``: the cost of the official record at 1,000 runs ×
20 datasets (an identity task: three modes, per-document counts in its own).

Seeds a throwaway database as `bench.boards` does (in bulk), then, in this process (the
database's own work is in it on SQLite, not on a PostgreSQL server), measures CPU time:

- the organizer's board page before and after a freeze (the frozen board is what the
  organizer sees by default; goal: at most 1.5× the unfrozen one), median of ``REQUESTS``
  requests after a warm-up;
- the freeze itself;
- a GET of the frozen board's JSON document, anonymous (goal ≤ 50 ms): the view's CPU; the
  body is a file sent as it lies (a WSGI server's file wrapper), which the test client does
  not read;
- the results package, built once (goal ≤ 5 s).

Nothing is asserted; the figures are printed, to be read.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import boards

NAME = "record-1000"
RUNS = 1000
DATASETS = 20
REQUESTS = 5


def _cpu_ms(call) -> tuple[float, Any]:
    began = time.process_time()
    result = call()
    return (time.process_time() - began) * 1000, result


def _requests(client, url: str, *, requests: int, **headers) -> float:
    """Median CPU ms of ``requests`` GETs of ``url`` after one warm-up."""
    response = client.get(url, **headers)
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code}")
    return statistics.median(
        _cpu_ms(lambda: client.get(url, **headers))[0] for _ in range(requests)
    )


def measure(*, phase, requests: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from leaderboard.package import phase_results_package
    from leaderboard.services import board_freeze

    competition = phase.task.competition
    organizer = get_user_model().objects.create_user("bench-organizer", password="x-bench-pw-1")
    competition.organizers.add(organizer)
    args = [competition.slug, phase.task.slug, phase.slug]
    board = reverse("leaderboard:board", args=args)
    staff = Client()
    staff.force_login(organizer)
    result = {"unfrozen_board_ms": _requests(staff, board, requests=requests)}
    result["freeze_ms"], snapshot = _cpu_ms(lambda: board_freeze(phase=phase, user=organizer))
    result["frozen_board_ms"] = _requests(staff, board, requests=requests)
    document = reverse("leaderboard:frozen_board_json", args=[*args, snapshot.pk])
    visitor = Client()
    result["json_ms"] = _requests(visitor, document, requests=requests)
    result["json_gzip_ms"] = _requests(
        visitor, document, requests=requests, HTTP_ACCEPT_ENCODING="gzip"
    )
    result["json_bytes"] = len(visitor.get(document).content)
    result["package_ms"], package = _cpu_ms(
        lambda: phase_results_package(phase=phase, viewer=organizer)
    )
    result["package_bytes"] = len(package)
    return result


def run(out=sys.stdout, *, scale: float = 1.0, requests: int = REQUESTS) -> list[dict]:
    runs = max(2, round(RUNS * scale))
    with boards.throwaway_database(NAME, out) as (private, _):
        world = boards.seed(
            runs=runs, private=private, out=out, bulk=True, name=NAME, subcorpora=DATASETS
        )
        result = measure(phase=world["phase"], requests=requests)
    from django.db import connection

    ratio = result["frozen_board_ms"] / result["unfrozen_board_ms"]
    print(
        f"{NAME}: CPU ms in this process (median of {requests} after a warm-up)\n"
        f"  organizer's board, unfrozen      {result['unfrozen_board_ms']:9.0f}\n"
        f"  organizer's board, frozen        {result['frozen_board_ms']:9.0f}  "
        f"({ratio:.2f}× the unfrozen; goal ≤ 1.5×)\n"
        f"  freeze                           {result['freeze_ms']:9.0f}\n"
        f"  frozen JSON GET                  {result['json_ms']:9.1f}  (goal ≤ 50 ms; "
        f"{result['json_bytes'] / 2**20:.1f} MiB)\n"
        f"  frozen JSON GET, gzip accepted   {result['json_gzip_ms']:9.1f}\n"
        f"  results package build            {result['package_ms']:9.0f}  (goal ≤ 5,000 ms; "
        f"{result['package_bytes'] / 2**10:.0f} KiB)",
        file=out,
        flush=True,
    )
    return [{"case": NAME, "vendor": connection.vendor, "runs": runs, **result}]
