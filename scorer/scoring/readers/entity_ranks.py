"""udapi's rank of every entity id a compact file has met, in bounded memory.

udapi keeps one entity per id for the whole file and orders the entities by their first
mention, so a document's order depends on the documents before it: an id met in an earlier
document sorts before the ids the document brings, by its rank there. What a document needs
is the rank of each of its ids met before; the reader asks for those (`EntityRanks.known`)
and then adds the ranks of the ids it brings (`EntityRanks.add`).

The ranks of the last ids met stay in a dict; past `IN_MEMORY` of them, the dict is moved
into a temporary SQLite file (deleted when the reader closes it), so that memory does not
grow with the number of distinct ids in the file (a file whose every document names its
entities apart: ids unique across 5,000 documents).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping

IN_MEMORY = 1 << 14  # ranks kept in the dict before it moves to the file
_QUERY_SIZE = 500  # ids asked for at once (SQLite's older limit of variables is 999)


class EntityRanks:
    """Entity id → udapi's rank among the ids met so far (an int, growing with the file)."""

    def __init__(self) -> None:
        self.recent: dict[str, int] = {}
        self.stored: sqlite3.Connection | None = None  # the ranks moved out of `recent`

    def known(self, ids: Collection[str]) -> dict[str, int]:
        """The ranks of those of ``ids`` met before."""
        recent = self.recent
        found = {eid: recent[eid] for eid in ids if eid in recent}
        if self.stored is not None and len(found) < len(ids):
            rest = [eid for eid in ids if eid not in found]
            for start in range(0, len(rest), _QUERY_SIZE):
                chunk = rest[start : start + _QUERY_SIZE]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT eid, rank FROM ranks WHERE eid IN ({marks})"  # noqa: S608
                found.update(self.stored.execute(query, chunk))
        return found

    def add(self, ranks: Mapping[str, int]) -> None:
        """Keep the ranks of ids not met before."""
        self.recent.update(ranks)
        if len(self.recent) > IN_MEMORY:
            self.store()

    def store(self) -> None:
        """Move the dict's ranks into the SQLite file (made on the first move)."""
        if self.stored is None:
            self.stored = sqlite3.connect("")  # "": a private file, deleted on close
            self.stored.execute("CREATE TABLE ranks (eid TEXT PRIMARY KEY, rank INT) WITHOUT ROWID")
        self.stored.executemany("INSERT INTO ranks VALUES (?, ?)", self.recent.items())
        self.recent = {}

    def close(self) -> None:
        if self.stored is not None:
            self.stored.close()
            self.stored = None
        self.recent = {}
