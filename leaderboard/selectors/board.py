"""The value a board request returns: `Board`, its `Column` and `TrackTab` parts, and the
error a request for a board that does not exist raises (`BoardQueryError`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from competition.models import Phase
from competition.visibility import Visibility
from leaderboard.models import BoardSnapshot
from leaderboard.ranking import MissingRule, Row, sort_columns
from leaderboard.selectors.cards import BoardCards
from leaderboard.selectors.record import FrozenRecord
from scoring.vocabulary import metric_label

WIDE_COLUMNS = 6


class BoardQueryError(ValueError):
    """A board was asked for with a parameter that does not exist (unknown metric, column)."""


@dataclass(frozen=True)
class Column:
    slug: str
    name: str
    available: bool
    language: str = ""
    note: str = ""
    """Why a column is not averaged, when it is for another reason than a missing key."""


@dataclass(frozen=True)
class TrackTab:
    slug: str
    name: str


@dataclass(frozen=True)
class Board:
    """One leaderboard view, ready for a template, a serializer or a DataFrame."""

    phase: Phase
    mode: str
    metric: str
    metrics: list[str]
    modes: list[str]
    columns: list[Column]
    rows: list[Row]
    runs: bool
    sort: str
    descending: bool
    visibility: Visibility
    snapshot: BoardSnapshot | None = None
    """The frozen board shown, if any (None: live scores)."""
    frozen: BoardSnapshot | None = None
    """The phase's active snapshot, shown or not (organizers looking at the live board)."""
    groups: dict[int, str] = field(default_factory=dict)
    group_samples: int = 0
    tracks: list[TrackTab] = field(default_factory=list)
    """The task's tracks, each ranked on its own board (empty: the task has none)."""
    track: str | None = None
    """The track shown (its slug), when the task has tracks."""

    @property
    def track_name(self) -> str:
        """The shown track's name ("" in a task without tracks)."""
        return next((t.name for t in self.tracks if t.slug == self.track), "")

    versions: list[str] = field(default_factory=list)
    """How the shown runs were scored: "<procedure or options> · scorer <version>", or
    "published" for reference results; more than one means the board mixes scorings."""
    material: dict[int, dict] = field(default_factory=dict, repr=False)
    """The scores read for the board, by submission id: ``{mode: {metric: {slug: [r, p,
    f1]}}}`` (a cell may be a `Score`), complete for the (mode, metric) pairs of
    ``material_pairs``. Read only: parts of it are shared with other requests
    (`_entry_scores`)."""
    material_pairs: frozenset[tuple[str, str]] | None = frozenset()
    """The pairs ``material`` holds completely (None: every pair, as a frozen board)."""
    current_runs: dict[int, int] | None = field(default=None, repr=False)
    """The current scoring run of each shown run, by submission id (None: not read)."""
    procedure: str = ""
    """The task's scoring procedure when the board's scores were read (frozen: at the freeze)."""
    procedures: dict[int, str] = field(default_factory=dict, repr=False)
    """Each run's procedure (its scoring's), by submission id."""
    scorer_versions: dict[int, str] = field(default_factory=dict, repr=False)
    """Each run's scorer version, by submission id."""
    record: FrozenRecord | None = field(default=None, repr=False)
    """What the shown frozen board stored beside its scores (None: live, or a snapshot from
    before these parts were stored)."""
    missing: MissingRule = "unranked"
    """How a run that skipped datasets is averaged (the phase's rule; frozen: at the freeze)."""
    counts: str = "best"
    """Which run of a team the board ranks (the phase's rule; frozen: at the freeze)."""

    @property
    def counts_label(self) -> str:
        return str(Phase.Counts(self.counts).label)

    cards: BoardCards = field(default_factory=BoardCards)
    """The system-card columns, the shown rows' answers and the filter by them (the rows
    kept by a filter keep their rank on the whole board)."""

    @property
    def available(self) -> list[str]:
        return [c.slug for c in self.columns if c.available]

    @property
    def hidden(self) -> bool:
        return self.visibility in (Visibility.NONE, Visibility.OWN)

    @property
    def metric_label(self) -> str:
        return metric_label(self.metric)

    @property
    def sortable(self) -> list[str]:
        return sort_columns([c.slug for c in self.columns])

    @property
    def sources(self) -> list[str]:
        """Where the shown published (reference) results come from."""
        return sorted({row.entry.source for row in self.rows if row.entry.is_reference})

    @property
    def wide(self) -> bool:
        """Too many sub-corpora to show the average after them on a laptop screen: the
        average (the ranking column) comes first."""
        return len(self.columns) > WIDE_COLUMNS

    @property
    def missing_rule(self) -> MissingRule:
        return self.missing

    @property
    def language_groups(self) -> list[tuple[str, list[Column]]]:
        """Consecutive columns of one language, for a header row (empty when no column has a
        language)."""
        if not any(c.language for c in self.columns):
            return []
        groups: list[tuple[str, list[Column]]] = []
        for column in self.columns:
            if groups and groups[-1][0] == column.language:
                groups[-1][1].append(column)
            else:
                groups.append((column.language, [column]))
        return groups
