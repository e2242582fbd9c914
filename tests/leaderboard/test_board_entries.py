"""What the boards keep per run (`BoardEntry`) always gives the board the score rows give.

Random sequences of what happens to a phase's runs (recorded by the worker's service, scored
again, failed, cancelled, disqualified, chosen, written straight into the tables without the
writer, the board hidden and revealed) run through the real services; after each step every
board (teams and all runs, primary and another metric, organizer, public and team member)
must equal the same board with every kept entry deleted, that is recomputed from the score
rows, variant columns included. The kept entries must also be there and current for every run
the services recorded, so the equality is not won by falling back.
"""

from __future__ import annotations

import copy
import itertools
import json
import pickle

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from competition import scoring as lifecycle
from competition import services
from competition.errors import CompetitionError
from competition.models import BoardEntry, Score, ScoringRun, Submission
from competition.scoring import ScoreValue, ScoringResults
from competition.services.boards import board_entries_refresh, board_pairs
from competition.task_scoring import scoring_modes
from leaderboard.selectors import BoardQueryError, boards, leaderboard_board
from leaderboard.selectors.variants import board_variants
from scoring import ScoreRow

pytestmark = pytest.mark.django_db

VALUES = st.one_of(st.none(), st.sampled_from([0.25, 0.5, 0.5 + 1e-12, 0.75, 1.0]))
SCORES = st.fixed_dictionaries({"light": VALUES, "ami": VALUES})
PICK = st.integers(0, 30)
ACTION = st.one_of(
    st.tuples(st.just("record"), st.integers(0, 2), SCORES),
    st.tuples(st.just("rescore"), PICK, SCORES),
    st.tuples(st.just("rescore_fails"), PICK),
    st.tuples(st.just("rescore_pending"), PICK),
    st.tuples(st.just("cancel"), PICK),
    st.tuples(st.just("fail"), st.integers(0, 2)),
    st.tuples(st.just("disqualify"), PICK),
    st.tuples(st.just("choose"), PICK),
    st.tuples(st.just("unwritten"), st.integers(0, 2), SCORES),
    st.tuples(st.just("unwritten_rescore"), PICK, SCORES),
    st.tuples(
        st.just("hide"),
    ),
    st.tuples(
        st.just("reveal"),
    ),
)
_claims = itertools.count(1)


class Phase:
    """A phase of a task (identity, or CorefUD with its procedure's variant columns), three
    teams, an organizer, and the runs made so far."""

    def __init__(self, make, *, procedure: str, counts: str):
        self.make = make
        self.organizer = make.user()
        competition = make.competition(organizers=[self.organizer])
        kind = "corefud" if procedure else "identity"
        task = make.task(competition, kind=kind)
        task.procedure = procedure
        task.save()
        self.phase = make.phase(task, counts=counts, unavailable=("switchboard",))
        self.members = [make.user() for _ in range(3)]
        self.teams = [make.team(competition, members=[user]) for user in self.members]
        self.pairs = [
            *board_pairs(primary_metric=task.primary_metric, procedure=procedure),
            ("task", "muc"),
        ]
        self.slugs = {s.slug: s.pk for s in self.phase.subcorpora.all()}

    def runs(self) -> list[Submission]:
        return list(Submission.objects.filter(phase=self.phase).order_by("id"))

    def pick(self, index: int) -> Submission | None:
        runs = self.runs()
        return runs[index % len(runs)] if runs else None

    def results(self, scores: dict) -> ScoringResults:
        values = []
        for slug, value in scores.items():
            if value is None:
                continue  # this sub-corpus was not submitted
            for n, (mode, metric) in enumerate(self.pairs):
                r, p, f = value, min(1.0, value + 0.01 * n), value * (1 - 0.001 * n)
                values.append(
                    ScoreValue(self.slugs[slug], ScoreRow(mode, metric, None, r, p, f, {}))
                )
                values.append(
                    ScoreValue(self.slugs[slug], ScoreRow(mode, metric, f"{slug}-1", p, r, 0.1, {}))
                )
        task = self.phase.task
        return ScoringResults(
            scorer_version="test-2",
            options=scoring_modes(task),
            scores=tuple(values),
            procedure=task.procedure,
        )

    def record(self, submission: Submission, scores: dict) -> None:
        task_id = f"claim-{next(_claims)}"
        claimed = lifecycle.submission_claim(submission_id=submission.pk, task_id=task_id)
        assert claimed is not None
        assert lifecycle.submission_record(
            submission=claimed, results=self.results(scores), task_id=task_id
        )

    def queued(self, team: int) -> Submission:
        return Submission.objects.create(
            team=self.teams[team],
            phase=self.phase,
            status=Submission.Status.QUEUED,
            run_name=f"run-{next(_claims)}",
        )

    def act(self, action: tuple) -> None:
        name, *args = action
        if name == "record":
            self.record(self.queued(args[0]), args[1])
        elif name == "unwritten":  # rows written straight into the tables, no entry kept
            f1 = {slug: v for slug, v in args[1].items() if v is not None}
            self.make.run(self.phase, self.teams[args[0]], f1)
        elif name == "fail":
            lifecycle.submission_fail(
                submission=self.queued(args[0]), reason="bad file", platform_failure=False
            )
        elif name == "hide":
            services.phase_hide(phase=self.phase)
        elif name == "reveal":
            services.phase_reveal(phase=self.phase)
        elif (run := self.pick(args[0])) is None:
            return
        elif name == "unwritten_rescore":  # a new current scoring the writer never saw
            if run.status == Submission.Status.SCORED:
                ScoringRun.objects.filter(submission=run).update(is_current=False)
                fresh = ScoringRun.objects.create(submission=run, scorer_version="test-3")
                Score.objects.bulk_create(
                    [
                        Score(
                            run=fresh,
                            submission=run,
                            subcorpus_id=v.subcorpus_id,
                            mode=v.row.mode,
                            metric=v.row.metric,
                            document=v.row.document or "",
                            recall=v.row.recall,
                            precision=v.row.precision,
                            f1=v.row.f1,
                        )
                        for v in self.results(args[1]).scores
                    ]
                )
        elif name == "disqualify":
            services.submission_disqualify(submission=run, reason="rules")
        elif name == "choose":
            try:
                services.submission_choose(submission=run, user=run.team.members.first())
            except CompetitionError:
                pass  # not scored, or not a phase with chosen runs
        elif name == "cancel":
            try:
                services.submission_cancel(submission=run, user=self.organizer)
            except CompetitionError:
                pass  # not pending
        elif name.startswith("rescore"):
            try:
                run = services.submission_rescore(submission=run)
            except CompetitionError:
                return  # pending: not to be scored again now
            if name == "rescore":
                self.record(run, args[1])
            elif name == "rescore_fails":
                lifecycle.submission_fail(submission=run, reason="limit", platform_failure=True)

    def viewers(self):
        return [self.organizer, AnonymousUser(), self.members[0]]


def board_view(board) -> tuple:
    """Everything a board shows, as plain values."""
    rows = [
        (
            r.entry.submission_id,
            r.rank,
            r.average,
            r.missing,
            r.entry.status,
            r.entry.disqualified,
            r.entry.is_chosen,
            r.entry.team,
            r.entry.run_name,
            sorted(r.entry.scores.items()),
            sorted(r.entry.primary.items()),
        )
        for r in board.rows
    ]
    variants = board_variants(board=board)
    shown = None if variants is None else (variants.columns, variants.values)
    return (rows, board.metrics, board.modes, board.versions, board.visibility, shown)


def shown(**kwargs) -> tuple:
    try:
        return board_view(leaderboard_board(**kwargs))
    except BoardQueryError as exc:  # e.g. a metric no run has yet
        return ("refused", str(exc))


def recomputed(**kwargs) -> tuple:
    """The board with no kept entry at all: read from the score rows."""
    with transaction.atomic():
        BoardEntry.objects.all().delete()
        view = shown(**kwargs)
        transaction.set_rollback(True)
    return view


def check_boards(world: Phase, *, metrics=("conll",)) -> None:
    for viewer, runs, metric in itertools.product(world.viewers(), (False, True), metrics):
        kwargs = dict(phase=world.phase, viewer=viewer, runs=runs, metric=metric)
        assert shown(**kwargs) == recomputed(**kwargs), kwargs
    # The decoded entries the boards share between requests are still what they decode to.
    for text, kept in boards._decoded.items():
        assert {
            mode: {
                metric: {slug: list(cell) for slug, cell in cells.items()}
                for metric, cells in metrics.items()
            }
            for mode, metrics in kept.items()
        } == json.loads(text)


def check_entries(world: Phase) -> None:
    """Every run the services recorded has its entry, built from its current scoring."""
    current = dict(
        ScoringRun.objects.filter(
            submission__phase=world.phase,
            is_current=True,
            submission__status="scored",
            task_id__startswith="claim-",
        ).values_list("submission_id", "id")
    )
    kept = dict(
        BoardEntry.objects.filter(submission__phase=world.phase).values_list(
            "submission_id", "run_id"
        )
    )
    assert {sid: kept.get(sid) for sid in current} == current


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    procedure=st.sampled_from(["", "crac-2025"]),
    counts=st.sampled_from(["best", "latest", "chosen"]),
    actions=st.lists(ACTION, min_size=1, max_size=8),
)
def test_kept_entries_give_the_board_of_the_score_rows(make, procedure, counts, actions):
    with transaction.atomic():
        world = Phase(make, procedure=procedure, counts=counts)
        for action in actions:
            world.act(action)
            check_entries(world)
            check_boards(world)
        check_boards(world, metrics=("muc",))
        transaction.set_rollback(True)


def test_a_board_reads_its_runs_in_a_bounded_number_of_queries(make, client):
    """The default board, the page and the API ask the same number of queries for 3 runs as
    for 30: no query per run."""
    world = Phase(make, procedure="crac-2025", counts="best")
    phase = world.phase
    task = phase.task
    url = reverse("leaderboard:board", args=[task.competition.slug, task.slug, phase.slug])
    queries = {}
    for total in (3, 30):
        while Submission.objects.filter(phase=phase).count() < total:
            n = Submission.objects.filter(phase=phase).count()
            world.record(world.queued(n % 3), {"light": 0.1 + n / 100, "ami": 0.5})
        counted = []
        for ask in (
            lambda: leaderboard_board(phase=phase, viewer=AnonymousUser()),
            lambda: client.get(url),
            lambda: client.get(url + "?runs=all"),
            lambda: client.get(reverse("api-leaderboard", args=[phase.pk])),
        ):
            ask()  # warm: tied groups cached
            with CaptureQueriesContext(connection) as context:
                response = ask()
            assert getattr(response, "status_code", 200) == 200
            counted.append(len(context))
        queries[total] = counted
    assert queries[3] == queries[30]


def test_the_migration_fill_rebuilds_what_the_writer_keeps(make):
    """Runs stored before the table existed get their entries from a refresh (what the data
    migration runs), equal to those the writer keeps."""
    world = Phase(make, procedure="crac-2025", counts="best")
    for n in range(4):
        world.record(world.queued(n % 3), {"light": 0.2 * n, "ami": None if n == 2 else 0.5})
    kept = {e.submission_id: (e.run_id, e.pairs, e.scores) for e in BoardEntry.objects.all()}
    assert len(kept) == 4
    BoardEntry.objects.all().delete()
    assert board_entries_refresh(phases=[world.phase]) == 4
    assert {
        e.submission_id: (e.run_id, e.pairs, e.scores) for e in BoardEntry.objects.all()
    } == kept


def test_kept_cells_refuse_a_change_in_place_and_copy_to_a_plain_dict():
    """The decoded cells of a kept entry are shared by every later board of the process:
    writing into them would change those boards, so it raises; a copy is the caller's."""
    text = json.dumps({"": {"conll": {"set0": [0.5, 0.25, 0.3]}}})
    boards._decoded.pop(text, None)
    cells = boards._entry_scores(text)[""]["conll"]
    assert cells["set0"] == (0.5, 0.25, 0.3) and boards._entry_scores(text)[""]["conll"] is cells
    for change in (
        lambda c: c.__setitem__("set1", None),
        lambda c: c.update(set1=None),
        lambda c: c.setdefault("set1", None),
        lambda c: c.pop("set0"),
        lambda c: c.clear(),
    ):
        with pytest.raises(TypeError, match="shared between requests"):
            change(cells)
    assert list(cells) == ["set0"]
    for duplicate in (copy.copy(cells), copy.deepcopy(cells), pickle.loads(pickle.dumps(cells))):
        assert type(duplicate) is dict and duplicate == cells
        duplicate["set1"] = None
