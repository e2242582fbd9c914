"""Every published-results file of fixtures/reference/ imports onto its edition (definition
loaded and published, as the operator does), its printed averages agree with its per-dataset
numbers at the printed precision, and a wrongly transcribed per-dataset number is refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.http import QueryDict

from competition.errors import DefinitionError
from competition.models import Phase, PublishedAverage, Score, Submission
from competition.services import competition_load, reference_results_import
from competition.services.publish import competition_publish_waiving
from competition.services.references import average_slack
from leaderboard.board_views import board_page_content
from leaderboard.selectors import leaderboard_board

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
REFERENCE = FIXTURES / "reference"
DEFINITIONS = {
    "codi-crac-2021": FIXTURES / "codi-crac-2021.yaml",
    "crac-2023": FIXTURES / "crac" / "crac-2023.yaml",
    "crac-2024": FIXTURES / "crac" / "crac-2024.yaml",
}
"""The definition of each edition a reference file names."""
CORPIPE_SINGLE = REFERENCE / "crac-2024-corpipe-single.yaml"


def edition(path: Path) -> str:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["competition"]


def load(slug: str) -> None:
    get_user_model().objects.get_or_create(username="organizer")
    loaded = competition_load(path=DEFINITIONS[slug], with_baselines=False)
    competition_publish_waiving(competition=loaded.competition)


def test_every_reference_file_names_an_edition_whose_definition_is_known():
    files = sorted(REFERENCE.glob("*.yaml"))
    assert files and {edition(path) for path in files} <= set(DEFINITIONS)


@pytest.mark.parametrize("path", sorted(REFERENCE.glob("*.yaml")), ids=lambda p: p.name)
def test_each_reference_file_imports_cleanly_onto_its_edition(path):
    """Every table and row passes the checks (phase, datasets, mode, range, printed average);
    each printed row is stored, per dataset or as a published average."""
    load(edition(path))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    created = reference_results_import(path=path)
    per_dataset = [t for t in data["tables"] if not t.get("averages_only")]
    averages_only = [t for t in data["tables"] if t.get("averages_only")]
    assert PublishedAverage.objects.count() == sum(len(t["rows"]) for t in averages_only)
    assert Score.objects.count() == sum(len(t["columns"]) * len(t["rows"]) for t in per_dataset)
    assert all(s.is_reference and s.source for s in created)


def test_the_corpipe_single_row_lands_on_the_2024_test_board_beside_the_page_averages():
    """Its 21 numbers are stored as printed; the board's average of them (70.17) agrees with
    the task page's official 70.18 for the same system within the printed precision. It is
    not ranked: the official ranking is the page's table of averages, where it is third."""
    load("crac-2024")
    reference_results_import(path=REFERENCE / "crac-2024.yaml")
    (created,) = reference_results_import(path=CORPIPE_SINGLE)
    test = Phase.objects.get(task__competition__slug="crac-2024", slug="test")
    row = yaml.safe_load(CORPIPE_SINGLE.read_text(encoding="utf-8"))["tables"][0]["rows"][0]
    stored = {s.subcorpus.name: s.f1 for s in Score.objects.filter(submission=created)}
    assert stored["ca_ancora"] == pytest.approx(0.804) and stored["tr_itcc"] == pytest.approx(0.534)
    board = leaderboard_board(phase=test, viewer=AnonymousUser())
    (ranked,) = board.rows
    assert (ranked.rank, ranked.entry.team) == (None, "CorPipe-single")
    assert round(100 * ranked.average.f1, 2) == 70.17
    page = PublishedAverage.objects.get(phase=test, team="CorPipe-single", mode="task")
    assert round(100 * page.average, 2) == row["average"] == 70.18
    slack = average_slack(average=row["average"], scores=row["scores"])
    assert abs(100 * ranked.average.f1 - 100 * page.average) <= slack


@pytest.mark.parametrize(
    "change",
    [
        ("75.2, 81.2, 53.4", "75.2, 83.2, 53.4"),  # a wrong digit in ru_rucor
        ("57.1, 61.6", "51.7, 61.6"),  # two digits swapped in cu_proiel
    ],
)
def test_a_wrong_per_dataset_number_is_caught_by_the_average_check(tmp_path, change):
    """A figure off by a digit moves the mean beyond the printed precision: refused with its
    table and row, nothing imported."""
    load("crac-2024")
    text = CORPIPE_SINGLE.read_text(encoding="utf-8")
    assert change[0] in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(*change, 1), encoding="utf-8")
    with pytest.raises(DefinitionError) as refused:
        reference_results_import(path=bad)
    message = refused.value.message
    assert "tables[0].rows[0]" in message and "not the mean of the row" in message
    assert not Submission.objects.filter(is_reference=True).exists()


def test_the_allowed_difference_is_the_printed_rounding_of_both_sides():
    # two decimals everywhere: half a hundredth on each side
    assert average_slack(average=74.31, scores=[80.33, 63.98]) == pytest.approx(0.01)
    # scores with one decimal, average with two: the README case
    assert average_slack(average=70.18, scores=[80.4, 67.0]) == pytest.approx(0.055)
    # the CODI-CRAC 2021 tables: scores with two decimals, averages with one
    assert average_slack(average=74.3, scores=[80.33, 63.98]) == pytest.approx(0.055)


def test_the_demo_loads_crac_2024_with_its_published_results_frozen_once():
    """`make demo` loads CRAC 2024 as a finished edition: both of its files imported, its
    evaluation board frozen as the official one; a second run changes nothing."""
    from competition.management.commands.demo_setup import (
        DEFINITION_CRAC_2024,
        REFERENCES,
        Command,
    )
    from leaderboard.models import BoardSnapshot

    assert [p.name for p in REFERENCES["crac-2024"]] == [
        "crac-2024.yaml",
        "crac-2024-corpipe-single.yaml",
    ]
    load("crac-2024")
    organizer = get_user_model().objects.get(username="organizer")
    test = Phase.objects.get(task__competition__slug="crac-2024", slug="test")
    for _ in range(2):
        Command().published_results(competition=test.task.competition, organizer=organizer)
    assert DEFINITIONS["crac-2024"] == DEFINITION_CRAC_2024
    assert Submission.objects.filter(is_reference=True).count() == 1
    assert PublishedAverage.objects.count() == 28
    (frozen,) = BoardSnapshot.objects.all()
    assert frozen.active and frozen.phase == test
    # The record is dated by its sources' publication, not by the day the demo was loaded.
    assert frozen.created_at == datetime(2024, 11, 15, tzinfo=UTC)


def test_the_crac_2024_finished_edition_ranks_corpipe_2stage_first_dated_from_its_source():
    """The frozen board of published results shows the page's official ranking as its main
    table (CorPipe-2stage 73.90 first, the baseline unranked), dated from its source; the one
    system paper's per-dataset figures come after it, as such, unranked."""
    from competition.management.commands.demo_setup import Command

    load("crac-2024")
    organizer = get_user_model().objects.get(username="organizer")
    test = Phase.objects.get(task__competition__slug="crac-2024", slug="test")
    Command().published_results(competition=test.task.competition, organizer=organizer)
    content, error = board_page_content(phase=test, viewer=AnonymousUser(), query=QueryDict(""))
    assert not error
    banner = content.index("Official results, frozen 2024-11-15")
    main = content.index('id="published-averages"')
    per_dataset = content.index('id="per-dataset-title"')
    board = content.index('id="leaderboard"')
    assert banner < main < per_dataset < board
    official = content[main : content.index("</table>", main)]
    ranks = [
        (rank, team.strip())
        for rank, team in re.findall(r"<td class=\"lb-rank\">([^<]*)</td><td>([^<]+)", official)
    ]
    assert ranks[:3] == [("1", "CorPipe-2stage"), ("2", "CorPipe"), ("3", "CorPipe-single")]
    assert ("–", "BASELINE") in ranks and ("4", "Ondfa") in ranks
    table = content[board : content.index("</table>", board)]
    assert (
        "CorPipe-single" in table
        and '<td class="lb-rank"><span class="lb-muted">–</span></td>' in table
    )
    assert content.count('id="published-averages"') == 1  # not repeated below the board


def test_the_import_command_freezes_the_board_dated_by_its_source():
    from django.core.management import call_command

    from leaderboard.models import BoardSnapshot

    load("crac-2024")
    call_command("import_reference_results", str(CORPIPE_SINGLE), "--freeze", stdout=None)
    (frozen,) = BoardSnapshot.objects.filter(active=True)
    assert frozen.phase.slug == "test"
    assert frozen.created_at == datetime(2024, 11, 15, tzinfo=UTC)
