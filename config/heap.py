"""The web process's heap, settled once it has loaded.

A board of a thousand runs builds tens of thousands of short-lived objects per request. Each
time enough of them have been allocated, CPython's cyclic collector runs, and now and then it
runs over every object of the process: the whole of Django, DRF, numpy and the project, some
hundreds of thousands of objects that live as long as the process. Measured on the
board-1000 bench, those full collections are most of a board's p95 (about twice its p50).
`settle` loads what the first request would (the URLconf, hence every view), collects once,
and freezes what is left: the collector then leaves those objects alone for the life of the
process. Nothing is lost: frozen objects are freed as usual when their count drops to zero;
only garbage cycles among them would stay, and a freshly loaded process has none to speak of.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Load the URLconf and every view, collect, and freeze the surviving objects out of the
    cyclic collector's sight; the number of objects frozen."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 -- imports every view module, as the first request would
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
