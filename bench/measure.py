"""One measurement in a fresh process.

``python -m bench.measure score|read KEY RESPONSE [options]``
``python -m bench.measure command|floor KEY RESPONSE [options]``

Prints one JSON line: the wall and CPU seconds the work took (after imports), the peak
resident set size of the whole process and the size right after the imports, both in MiB
(`peak_mib`). CPU time and peak include the children (`scoring.score_files` scores large
inputs in two processes; ``UA_SCORER_PROCESSES=1`` keeps one). ``score`` runs
`scoring.score_files`; ``read`` streams both files through the reader with the same settings
and no scoring: the baseline.

``command`` runs the whole command line, ``python -m scoring KEY RESPONSE [options]``, and
``floor`` the line-split floor (`bench.floor`), each as a child process: the seconds are then
those of the whole run, start-up included, and the CPU time that of the child and of every
process it forked.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def own_peak_mib() -> float:
    """The peak resident set size of this process's own program, in MiB: ``VmHWM`` of
    /proc/self/status, the high-water mark of the memory the program mapped since its
    ``exec``. Not ``getrusage(RUSAGE_SELF).ru_maxrss``: Linux keeps that peak across fork and
    exec, so in a process started by a large parent (the bench itself, having generated a
    corpus) it reports the parent's size, not the scorer's. ``ru_maxrss`` where there is no
    /proc (not Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB


def peak_mib() -> float:
    """The larger peak of this process and of its children (the scorer may fork one; a
    forked child starts from this process's size, which is the scorer's own)."""
    return max(own_peak_mib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)  # KiB


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(what: str, key: str, response: str, options: list[str]) -> dict:
    """A whole run as a child process: its wall and CPU seconds (its children's included)
    and its peak RSS (the largest of it and its children)."""
    import subprocess

    module = "scoring" if what == "command" else "bench.floor"
    start, cpu_start = time.perf_counter(), children_cpu()
    subprocess.run(
        [sys.executable, "-m", module, key, response, *(options if what == "command" else ())],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return {
        "seconds": time.perf_counter() - start,
        "cpu_seconds": children_cpu() - cpu_start,
        "peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def main(argv: list[str]) -> int:
    what, key, response, *options = argv
    if what in ("command", "floor"):
        print(json.dumps(command(what, key, response, options)))
        return 0
    import scoring.engine  # noqa: F401  (imported before the clock starts, as in a worker)
    from scoring.api import score_files
    from scoring.options import parse_options
    from scoring.plan import ScoringPlan
    from scoring.readers import exploded

    imported = peak_mib()
    start, cpu_start = time.perf_counter(), time.process_time() + children_cpu()
    if what == "score":
        result = score_files(key, response, options)
        documents = len(result["documents"])
    else:
        plan = ScoringPlan.compile(parse_options(options).options)
        documents = 0
        for path, side in ((key, "key"), (response, "response")):
            for _ in exploded.iter_documents(path, **plan.reader(side).settings()):
                documents += side == "key"
    seconds = time.perf_counter() - start
    cpu = time.process_time() + children_cpu() - cpu_start
    print(
        json.dumps(
            {
                "seconds": seconds,
                "cpu_seconds": cpu,
                "peak_mib": peak_mib(),
                "import_mib": imported,
                "documents": documents,
                # the figure printed before: ru_maxrss, which carries the parent's peak
                "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
