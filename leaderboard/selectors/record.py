"""The official record of a phase as frozen: everything a frozen board shows beside its
runs' scores, stored in its `BoardSnapshot` with them (`leaderboard.selectors.freeze`, at the
freeze) and read back as one typed value (`FrozenRecord`).

The frozen page, the frozen JSON document, the results package and the final-runs export
render from the snapshot alone: the tracks and the ranking rules, the procedure and the
variant columns, the system-card questions and each run's answers as they stood, the
published averages, the runs that counted and the data digests. Nothing a participant or
an organizer does after the freeze (a card edit, a new run, a re-score, a key replaced, a
definition reloaded, a clone) reaches them. A snapshot written before these parts were
stored has no record (`FrozenRecord.of` is None): its boards read those parts live, as they
did.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

RECORD_KEY = "record"
"""Where `BoardSnapshot.data` keeps the record's parts."""


@dataclass(frozen=True, slots=True)
class StoredQuestion:
    slug: str
    text: str
    kind: str
    choices: tuple[str, ...]
    on_board: bool


@dataclass(frozen=True, slots=True)
class FrozenRecord:
    """The parts of a frozen board beside its runs' scores (see the module docstring)."""

    procedure: str
    scorer: str
    """The platform's scorer version at the freeze (each run says its own as well)."""
    counts: str
    missing: str
    tracks: tuple[tuple[str, str], ...]
    """(slug, name) of the task's tracks, in order."""
    variants: tuple[tuple[str, str, str], ...]
    """(mode, metric, label) of the board's variant columns."""
    questions: tuple[StoredQuestion, ...]
    answers: dict[int, dict[str, str]]
    """Each run's system-card answers, by submission id, as they stood."""
    published: tuple[dict[str, Any], ...]
    final_runs: tuple[int, ...]
    """The runs that counted for each team (and track) at the freeze."""
    participation: dict | None = None
    """`leaderboard.participation.participation_figures` at the freeze."""
    without_empty_nodes: frozenset[str] | None = None
    """The datasets whose key had no empty node at the freeze (not in an empty-node average;
    None: a snapshot from before this was kept, read live)."""

    @classmethod
    def of(cls, data: dict | None) -> FrozenRecord | None:
        raw = (data or {}).get(RECORD_KEY)
        if not raw:
            return None
        return cls(
            procedure=raw["procedure"],
            scorer=raw["scorer"],
            counts=raw["counts"],
            missing=raw["missing"],
            tracks=tuple((t["slug"], t["name"]) for t in raw["tracks"]),
            variants=tuple((v["mode"], v["metric"], v["label"]) for v in raw["variants"]),
            questions=tuple(
                StoredQuestion(
                    slug=q["slug"],
                    text=q["text"],
                    kind=q["kind"],
                    choices=tuple(q["choices"]),
                    on_board=q["on_board"],
                )
                for q in raw["questions"]
            ),
            answers={int(sid): dict(a) for sid, a in raw["answers"].items()},
            published=tuple(raw["published"]),
            final_runs=tuple(raw["final_runs"]),
            participation=raw.get("participation"),
            without_empty_nodes=(
                frozenset(raw["without_empty_nodes"]) if "without_empty_nodes" in raw else None
            ),
        )

    @property
    def board_questions(self) -> tuple[StoredQuestion, ...]:
        return tuple(q for q in self.questions if q.on_board)

    def publishes(self, *, mode: str, metric: str, track: str | None) -> bool:
        """Whether a published table of averages was kept for this mode, metric (and track,
        by its name at the freeze)."""
        names = dict(self.tracks)
        return any(
            p["mode"] == mode
            and p["metric"] == metric
            and (track is None or p["track"] == names.get(track))
            for p in self.published
        )

    def published_averages(self) -> list[SimpleNamespace]:
        """The published averages as stored, shaped as `PublishedAverage` rows are read."""
        return [
            SimpleNamespace(
                **{k: v for k, v in p.items() if k not in ("track", "track_order")},
                track=(
                    SimpleNamespace(name=p["track"], order=p["track_order"]) if p["track"] else None
                ),
            )
            for p in self.published
        ]
