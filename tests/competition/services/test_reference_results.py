"""Published results of an edition that ran elsewhere: imported as cited, checked before
anything is written, shown marked and ranked, replaced on re-import."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from competition.errors import DefinitionError
from competition.models import Phase, Score, Submission
from competition.services import competition_load, reference_results_import
from competition.services.publish import competition_publish_waiving
from leaderboard.selectors import leaderboard_board

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
REFERENCES = FIXTURES / "reference" / "codi-crac-2021.yaml"


@pytest.fixture
def codi_crac_2021():
    get_user_model().objects.create_user("organizer")
    competition = competition_load(
        path=FIXTURES / "codi-crac-2021.yaml", with_baselines=False
    ).competition
    competition_publish_waiving(competition=competition)  # its boards are public
    return competition


def phase(slug: str) -> Phase:
    task, _, name = slug.partition("/")
    return Phase.objects.get(task__competition__slug="codi-crac-2021", task__slug=task, slug=name)


def test_the_published_tables_are_imported_as_printed(codi_crac_2021):
    """Every row of the three tables, its F1 per sub-corpus as printed (percent / 100), no
    recall or precision (the tables print none), the source on every run."""
    created = reference_results_import(path=REFERENCES)
    data = yaml.safe_load(REFERENCES.read_text(encoding="utf-8"))
    assert len(created) == sum(len(table["rows"]) for table in data["tables"]) == 18
    emory = Submission.objects.get(team__name="Emory", is_reference=True)
    assert "Universal Anaphora Scorer" in emory.source and "Tables 1-3" in emory.source
    scores = {s.subcorpus.name: s for s in Score.objects.filter(submission=emory)}
    assert {name: s.f1 for name, s in scores.items()} == pytest.approx(
        {"LIGHT": 0.8033, "AMI": 0.6398, "PERSUASION": 0.7841, "SWITCHBOARD": 0.7449}
    )
    assert all(
        s.recall is None and s.precision is None and s.metric == "conll" for s in scores.values()
    )
    bridging = Submission.objects.get(team__name="INRIA", phase=phase("bridging/test-gold"))
    assert bridging.scores.get(subcorpus__name="AMI").metric == "bridging_entity"


def test_the_board_ranks_them_as_published_and_says_where_they_come_from(codi_crac_2021):
    reference_results_import(path=REFERENCES)
    board = leaderboard_board(phase=phase("identity/test-predicted"), viewer=AnonymousUser())
    ranked = [(r.rank, r.entry.team, r.entry.run_name) for r in board.rows]
    # the order of Table 1; DFKI's better run represents it; the baseline is not ranked
    assert ranked == [
        (1, "Emory", ""),
        (2, "UTD_NLP", ""),
        (3, "KU_NLP", ""),
        (4, "DFKI", ""),
        (5, "SCIR", ""),
        (None, "Baseline", ""),
    ]
    assert board.sources and "LREC 2022" in board.sources[0]
    assert board.versions == ["published results"]
    emory = board.rows[0]
    assert emory.average.f1 == pytest.approx((0.8033 + 0.6398 + 0.7841) / 3)  # scored here
    assert emory.average.recall is None


def test_the_board_chart_labels_a_published_baseline_by_its_team(codi_crac_2021, client):
    """The published baseline has no run name: its bar is labelled with its team."""
    reference_results_import(path=REFERENCES)
    page = client.get("/competitions/codi-crac-2021/identity/test-predicted/leaderboard/")
    chart = page.context["chart"]
    labels = [bar.label for bar in chart.bars]
    assert "Baseline" in labels and "" not in labels


@pytest.mark.parametrize(
    "change, message",
    [
        (("average: 74.3", "average: 47.3"), "is not the mean of the row"),
        (
            (
                "[LIGHT, AMI, PERSUASION, SWITCHBOARD]\n    rows:\n      - {team: Emory",
                "[LIGHT, AMI, PERSUASION, SWBD]\n    rows:\n      - {team: Emory",
            ),
            "SWBD",
        ),
        (("metric: conll", "metric: conl"), "unknown metric 'conl'"),
        (("80.33", "180.33"), "not a score between 0 and 100"),
        (("phase: identity/test-predicted", "phase: identity/nope"), "no phase"),
    ],
)
def test_a_wrong_file_is_refused_with_its_place_and_nothing_is_imported(
    codi_crac_2021, tmp_path, change, message
):
    text = REFERENCES.read_text(encoding="utf-8")
    assert change[0] in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(*change, 1), encoding="utf-8")
    with pytest.raises(DefinitionError) as refused:
        reference_results_import(path=bad)
    assert message in refused.value.message and "tables[" in refused.value.message
    assert not Submission.objects.filter(is_reference=True).exists()


def test_a_reimport_replaces_what_the_same_source_imported(codi_crac_2021):
    reference_results_import(path=REFERENCES)
    reference_results_import(path=REFERENCES)
    assert Submission.objects.filter(is_reference=True).count() == 18


def test_the_demo_freezes_the_official_boards_once_and_keeps_a_post_task_board(
    codi_crac_2021, client
):
    """make demo imports the published results, freezes each evaluation board that holds them
    as the official one (a second run changes nothing), and the post-task board says it is
    not part of the official results."""
    from competition.management.commands.demo_setup import Command
    from leaderboard.models import BoardSnapshot

    organizer = get_user_model().objects.get(username="organizer")
    for _ in range(2):
        Command().published_results(competition=codi_crac_2021, organizer=organizer)
    frozen = BoardSnapshot.objects.filter(active=True)
    assert frozen.count() == 5 and BoardSnapshot.objects.count() == 5
    assert {f"{s.phase.task.slug}/{s.phase.slug}" for s in frozen} == {
        "identity/test-predicted",
        "bridging/test-gold",
        "bridging/test-predicted",
        "discourse-deixis/test-gold",
        "discourse-deixis/test-predicted",
    }
    boards = client.get("/competitions/codi-crac-2021/leaderboards/").content.decode()
    assert boards.count("official results, frozen") == 5
    assert boards.count("not part of the official results") == 3
    post = client.get("/competitions/codi-crac-2021/identity/post-task/leaderboard/")
    assert "Post-task board" in post.content.decode()
    official = client.get("/competitions/codi-crac-2021/identity/test-predicted/leaderboard/")
    html = official.content.decode()
    assert "Official results, frozen" in html and "published" in html and "Emory" in html


def test_re_scoring_a_phase_keeps_the_published_numbers(codi_crac_2021):
    """Published results have no files: a phase re-score leaves them as cited, and asking to
    re-score one alone is refused with a message."""
    from competition.errors import CompetitionError
    from competition.services import phase_rescore
    from competition.services.rescore import submission_rescore

    reference_results_import(path=REFERENCES)
    emory = Submission.objects.get(
        team__name="Emory", is_reference=True, phase=phase("identity/test-predicted")
    )
    before = sorted(emory.scores.values_list("subcorpus__name", "f1"))
    phase_rescore(phase=emory.phase)
    emory.refresh_from_db()
    assert emory.status == Submission.Status.SCORED
    assert sorted(emory.scores.values_list("subcorpus__name", "f1")) == before
    with pytest.raises(CompetitionError) as refused:
        submission_rescore(submission=emory)
    assert refused.value.code == "reference_run" and "published result" in str(refused.value)
