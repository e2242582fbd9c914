"""The published official results of the CRAC editions (fixtures/reference/crac-*.yaml):
each file loads against its edition's definition, every table names a mode of the edition's
procedure, and each transcription is checked against what the source prints."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.contrib.auth import get_user_model

from competition.errors import DefinitionError
from competition.models import PublishedAverage, Score, Submission
from competition.services import competition_load, reference_results_import
from competition.services.publish import competition_publish_waiving
from competition.services.references import reference_averages_read

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures"
EDITIONS = ["crac-2023", "crac-2024"]


def load(slug: str) -> None:
    """Load the edition and publish it, as the operator does (`load_competition --publish`):
    its boards are public."""
    get_user_model().objects.get_or_create(username="organizer")
    loaded = competition_load(path=FIXTURES / "crac" / f"{slug}.yaml", with_baselines=False)
    competition_publish_waiving(competition=loaded.competition)


def decimals(value) -> int:
    return len(str(value).partition(".")[2])


@pytest.mark.parametrize("slug", EDITIONS)
def test_each_edition_file_reads_against_its_definition(slug):
    """Known phase, mode of the procedure, numbers in range; each variant table lists the same
    systems, ranked by the primary (task-mode) average as the page prints them."""
    load(slug)
    path = FIXTURES / "reference" / f"{slug}.yaml"
    averages = reference_averages_read(path=path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert len(averages) == sum(len(t["rows"]) for t in data["tables"])
    modes = {a.mode for a in averages}
    assert modes == {"task", "partial", "exact", "with-singletons"}
    by_mode = {m: [a for a in averages if a.mode == m] for m in modes}
    teams = [a.team for a in by_mode["task"]]
    assert all([a.team for a in rows] == teams for rows in by_mode.values())
    primary = [a.average for a in by_mode["task"]]
    assert primary == sorted(primary, reverse=True)
    # every figure is a hundredth of a percent, as the page prints them
    for table in data["tables"]:
        assert all(decimals(row["average"]) <= 2 for row in table["rows"])
    assert all(a.phase.slug == "test" and a.metric == "conll" for a in averages)


@pytest.mark.parametrize("slug", EDITIONS)
def test_an_averages_only_file_adds_no_run_and_shows_on_the_board_page(slug, client):
    """The pages print macro-averages only: no per-dataset number is invented, no run is
    ranked; the board page shows them as printed, marked published, with their source."""
    load(slug)
    path = FIXTURES / "reference" / f"{slug}.yaml"
    assert reference_results_import(path=path) == []
    assert not Submission.objects.filter(is_reference=True).exists()
    assert not Score.objects.exists()
    assert PublishedAverage.objects.count() == len(reference_averages_read(path=path))
    reference_results_import(path=path)  # a re-import replaces, not adds
    assert PublishedAverage.objects.count() == len(reference_averages_read(path=path))
    page = client.get(f"/competitions/{slug}/coreference/test/leaderboard/")
    html = page.content.decode()
    assert page.status_code == 200 and 'id="published-averages"' in html
    assert f"ufal.mff.cuni.cz/corefud/crac{slug[-2:]}" in html
    first = yaml.safe_load(path.read_text(encoding="utf-8"))["tables"][0]["rows"][0]
    assert first["team"] in html and f"{first['average']:.2f}" in html


def test_the_2024_primary_and_variant_figures_are_those_printed():
    load("crac-2024")
    averages = reference_averages_read(path=FIXTURES / "reference" / "crac-2024.yaml")
    got = {(a.team, a.mode): round(a.average * 100, 2) for a in averages}
    assert got[("CorPipe-2stage", "task")] == 73.90
    assert got[("Ondfa", "exact")] == 40.25
    assert got[("Ritwikmishra", "with-singletons")] == 15.42
    assert [a.team for a in averages if a.baseline] == ["BASELINE"] * 4


def write(tmp_path: Path, table: dict) -> Path:
    path = tmp_path / "ref.yaml"
    path.write_text(
        yaml.safe_dump({"competition": "crac-2024", "source": "a test", "tables": [table]}),
        encoding="utf-8",
    )
    return path


def test_a_mode_the_procedure_lacks_is_refused_with_its_place(tmp_path):
    load("crac-2024")
    path = write(
        tmp_path,
        {
            "phase": "coreference/test",
            "metric": "conll",
            "mode": "fuzzy",
            "averages_only": True,
            "rows": [{"team": "A", "average": 50.0}],
        },
    )
    with pytest.raises(DefinitionError, match=r"tables\[0\]: mode 'fuzzy'.*partial"):
        reference_averages_read(path=path)


def test_per_dataset_rows_in_several_modes_are_one_published_result(tmp_path):
    """A team's head-match and exact-match tables become score rows of one run, in their modes."""
    load("crac-2024")
    table = {"phase": "coreference/test", "metric": "conll", "columns": ["ca_ancora", "cs_pcedt"]}
    path = tmp_path / "ref.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "competition": "crac-2024",
                "source": "a test",
                "tables": [
                    {**table, "rows": [{"team": "T", "scores": [70.0, 60.0], "average": 65.0}]},
                    {
                        **table,
                        "mode": "exact",
                        "rows": [{"team": "T", "scores": [50.0, 40.0], "average": 45.0}],
                    },
                ],
            }
        ),
        encoding="utf-8",
    )
    created = reference_results_import(path=path)
    assert len(created) == 1
    rows = {(s.mode, s.subcorpus.name): s.f1 for s in Score.objects.filter(submission=created[0])}
    assert rows == pytest.approx(
        {
            ("task", "ca_ancora"): 0.7,
            ("task", "cs_pcedt"): 0.6,
            ("exact", "ca_ancora"): 0.5,
            ("exact", "cs_pcedt"): 0.4,
        }
    )


def test_a_task_with_tracks_needs_the_track_named(tmp_path):
    load("crac-2025")
    base = {
        "phase": "coreference/test",
        "metric": "conll",
        "averages_only": True,
        "rows": [{"team": "A", "average": 50.0}],
    }
    path = tmp_path / "ref.yaml"
    path.write_text(
        yaml.safe_dump({"competition": "crac-2025", "source": "s", "tables": [base]}),
        encoding="utf-8",
    )
    with pytest.raises(DefinitionError, match="say which one"):
        reference_averages_read(path=path)
    path.write_text(
        yaml.safe_dump(
            {"competition": "crac-2025", "source": "s", "tables": [{**base, "track": "llm"}]}
        ),
        encoding="utf-8",
    )
    assert reference_averages_read(path=path)[0].track.slug == "llm"
