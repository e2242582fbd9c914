"""Results come separately: CodaLab's per-phase results CSV and Codabench's leaderboard export
import as published reference results, with their source."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from competition.definition.bundle_import import (
    ResultsUnmapped,
    bundle_import,
    bundle_results_import,
)
from competition.errors import CompetitionError
from competition.models import Score, Submission
from tests.competition.bundles import published
from tests.competition.bundles.builders import codabench_bundle, codalab_bundle

pytestmark = pytest.mark.django_db

CODALAB_CSV = """\
Results
submission_pk,User,CoNLL F1,MRR
,,Results,Results
812,team-prague,"61.23 (1)","1.0 (1)"
813,team-warsaw,"55.50 (2)","0.5 (2)"
814,Anonymous,-,-
"""


@pytest.fixture
def imported(tmp_path, db):
    get_user_model().objects.create_user("olga", password="pw-olga-123")
    path = tmp_path / "b.zip"
    path.write_bytes(codalab_bundle())
    return bundle_import(path=path, owner="olga").competition


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "results.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_codalab_results_csv_imports_as_reference_results(tmp_path, imported):
    phase = imported.tasks.get().phases.get(slug="development")
    created, read = bundle_results_import(
        phase=phase,
        path=write(tmp_path, CODALAB_CSV),
        source="CodaLab competition 1234, Development",
    )
    assert [(s.team.name, s.run_name) for s in created] == [
        ("team-prague", "submission 812"),
        ("team-warsaw", "submission 813"),
    ]
    assert all(
        s.is_reference and s.source == "CodaLab competition 1234, Development" for s in created
    )
    scores = Score.objects.filter(submission__in=created).order_by("f1")
    assert [(s.metric, s.subcorpus.name) for s in scores] == [("conll", "en_ami")] * 2
    assert [s.f1 for s in scores] == pytest.approx([0.555, 0.6123], abs=1e-9)
    assert any("MRR" in line for line in read.not_imported)
    # A re-import of the same source replaces what it brought.
    bundle_results_import(
        phase=phase,
        path=write(tmp_path, CODALAB_CSV),
        source="CodaLab competition 1234, Development",
    )
    assert Submission.objects.filter(is_reference=True).count() == 2


def test_codabench_leaderboard_export_imports(tmp_path, db):
    get_user_model().objects.create_user("olga", password="pw-olga-123")
    path = tmp_path / "cb.zip"
    path.write_bytes(codabench_bundle())
    competition = bundle_import(path=path, owner="olga").competition
    phase = competition.tasks.get().phases.get(order=0)
    out = io.StringIO()
    csv_path = write(tmp_path, "#,Username,CoNLL,Average rank\n1,alpha,0.7125,1\n2,beta,0.64,2\n")
    call_command(
        "import_bundle_results",
        competition.slug,
        f"identity/{phase.slug}",
        str(csv_path),
        "--source",
        "Codabench leaderboard export",
        stdout=out,
    )
    assert "Imported 2 published results" in out.getvalue()
    assert "Average rank" in out.getvalue()
    f1 = sorted(Score.objects.filter(submission__is_reference=True).values_list("f1", flat=True))
    assert f1 == pytest.approx([0.64, 0.7125], abs=1e-9)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('submission_pk,User,CoNLL F1\n5,x,"sixty (1)"\n', "line 2, column 'CoNLL F1'"),
        ('submission_pk,User,CoNLL F1\n5,x,"161.0 (1)"\n', "line 2: 161 is not a score"),
        ('submission_pk,User,Accuracy\n5,x,"61.0 (1)"\n', "no result row"),
    ],
)
def test_bad_results_are_refused_and_nothing_written(tmp_path, imported, text, expected):
    phase = imported.tasks.get().phases.get(slug="development")
    with pytest.raises(CompetitionError, match=expected):
        bundle_results_import(phase=phase, path=write(tmp_path, text), source="x")
    assert not Submission.objects.filter(is_reference=True).exists()


def test_results_page_is_for_the_competitions_organizers(client, imported):
    mallory = get_user_model().objects.create_user("mallory", password="pw-mallory-123")
    client.force_login(mallory)
    assert client.get(f"/edit/{imported.slug}/import-results/").status_code == 404
    client.force_login(get_user_model().objects.get(username="olga"))
    assert client.get(f"/edit/{imported.slug}/import-results/").status_code == 200


PUBLISHED = {"ÚFAL CorPipe": (74.91, 70.02), "team-b": (60.5, 55.25)}


@pytest.mark.parametrize("platform", ["codalab", "codabench"])
def test_a_bundles_own_results_import_without_edits(tmp_path, db, platform):
    """The results of a CRAC bundle, as the old server exported them, import as they are:
    every per-dataset column maps to the dataset of the same name in the phase."""
    get_user_model().objects.create_user("olga", password="pw-olga-123")
    path = tmp_path / "b.zip"
    if platform == "codalab":
        path.write_bytes(published.codalab_crac())
        text = published.results_csv_codalab(PUBLISHED)
    else:
        path.write_bytes(published.codabench_crac())
        text = published.results_csv_codabench(PUBLISHED)
    competition = bundle_import(path=path, owner="olga").competition
    phase = competition.tasks.get().phases.order_by("order").last()
    created, read = bundle_results_import(
        phase=phase, path=write(tmp_path, text), source=f"{platform} results"
    )
    assert sorted(s.team.name for s in created) == sorted(PUBLISHED)
    placed = {(c.label, c.dataset, c.metric) for c in read.columns if c.imported}
    assert placed == {
        ("en_gum CoNLL F1", "en_gum", "conll"),
        ("en_ami CoNLL F1", "en_ami", "conll"),
    }
    assert not read.blocking
    if platform == "codalab":
        (average,) = [c for c in read.columns if not c.imported]
        assert (average.label, average.reason) == (
            "Average CoNLL F1",
            "the board computes its own averages and ranks",
        )
    rows = Score.objects.filter(submission__in=created, submission__team__name="ÚFAL CorPipe")
    assert {s.subcorpus.name: round(s.f1, 6) for s in rows} == {
        "en_gum": 0.7491,
        "en_ami": 0.7002,
    }


def test_unplaced_columns_stop_the_import_until_applied_anyway(tmp_path, imported):
    phase = imported.tasks.get().phases.get(slug="development")
    text = (
        "submission_pk,User,en_ami CoNLL F1,Accuracy,fr_x CoNLL F1\n"
        '5,alpha,"61.0 (1)","0.9 (1)","50.0 (1)"\n'
    )
    with pytest.raises(ResultsUnmapped) as caught:
        bundle_results_import(phase=phase, path=write(tmp_path, text), source="x")
    assert not Submission.objects.filter(is_reference=True).exists()
    by_label = {c.label: c for c in caught.value.read.columns}
    assert by_label["en_ami CoNLL F1"].imported
    assert by_label["Accuracy"].blocking and "nor a metric" in by_label["Accuracy"].reason
    assert by_label["fr_x CoNLL F1"].reason == "CoNLL on no dataset of the phase (en_ami)"
    assert "2 columns could not be placed" in caught.value.message
    created, read = bundle_results_import(
        phase=phase, path=write(tmp_path, text), source="x", apply_anyway=True
    )
    assert [s.team.name for s in created] == ["alpha"]
    assert read.imported_columns == ["en_ami CoNLL F1 → CoNLL on en_ami"]


def test_apply_anyway_in_the_browser_form(client, tmp_path, imported):
    client.force_login(get_user_model().objects.get(username="olga"))
    phase = imported.tasks.get().phases.get(slug="development")
    url = f"/edit/{imported.slug}/import-results/"
    text = 'submission_pk,User,en_ami CoNLL F1,Accuracy\n5,alpha,"61.0 (1)","0.9 (1)"\n'
    upload = SimpleUploadedFile("results.csv", text.encode())
    response = client.post(
        url, {"phase": phase.pk, "results": upload, "source": "old site", "unit": "auto"}
    )
    page = response.content.decode()
    assert response.status_code == 200 and 'id="apply-anyway"' in page
    assert "Accuracy" in page and not Submission.objects.filter(is_reference=True).exists()
    token = re.search(r'name="pending" value="([0-9a-f]{32})"', page).group(1)
    response = client.post(
        url,
        {"pending": token, "phase": phase.pk, "source": "old site", "unit": "auto", "name": "r"},
    )
    assert "Imported 1 published results" in response.content.decode()
    assert Submission.objects.filter(is_reference=True, source="old site").count() == 1
    # The kept file is gone: a second "apply anyway" says so.
    response = client.post(
        url,
        {"pending": token, "phase": phase.pk, "source": "old site", "unit": "auto", "name": "r"},
    )
    assert "no longer waiting" in response.content.decode()
