"""A CodaLab and a Codabench bundle import into draft competitions that score a run exactly
as a hand-made competition does; what a bundle holds that the platform has no place for is
listed, never dropped silently."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from competition.definition.bundle_import import bundle_import
from competition.models import Competition, Phase, PhaseDataFile, SubCorpus
from competition.services import competition_load
from tests.competition.bundles.builders import (
    CODALAB_YAML,
    COREFUD_KEY,
    COREFUD_RESPONSE,
    UA_KEY,
    UA_RESPONSE,
    codabench_bundle,
    codalab_bundle,
    score_rows,
)

pytestmark = pytest.mark.django_db

HAND_MADE = """\
slug: hand-made
title: Hand made
organizers: [olga]
tasks:
  - slug: task
    kind: {kind}
    title: Task
    {scoring}
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - name: {name}
            key: {key}
"""


@pytest.fixture
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_codalab_bundle_imports_as_a_draft(tmp_path, olga):
    result = bundle_import(path=write(tmp_path, "b.zip", codalab_bundle()), owner="olga")
    competition = result.competition
    assert result.dialect == "codalab"
    assert competition.slug == "corefud-shared-task"
    assert getattr(competition, "published_at", None) is None
    assert list(competition.organizers.values_list("username", flat=True)) == ["olga"]
    task = competition.tasks.get()
    assert (task.kind, task.procedure, task.primary_metric) == ("corefud", "crac-2025", "conll")
    dev, test = task.phases.order_by("order")
    assert (dev.slug, dev.kind, dev.daily_limit, dev.total_limit) == (
        "development",
        "development",
        3,
        50,
    )
    # CodaLab phases have no end: proposed from the next phase's start, then the competition's.
    assert dev.end == datetime(2027, 1, 1, tzinfo=UTC)
    # end_date: 2027-06-01 has no time: the competition ends at the end of that day (UTC).
    assert test.end == datetime(2027, 6, 1, 23, 59, 59, tzinfo=UTC)
    assert test.leaderboard_visibility == "hidden"
    assert any("proposed from the next phase's start" in line for line in result.report.proposed)
    key = SubCorpus.objects.get(phase=dev)
    assert (key.name, key.language) == ("en_ami", "English") and key.documents
    # Input data is participant data, never a gold key; the UUID dataset is reported.
    assert list(PhaseDataFile.objects.filter(phase=dev).values_list("file_name", flat=True)) == [
        "input_dev.zip"
    ]
    overview = competition.pages.get(kind="overview").body
    assert "# Welcome" in overview and "**coreference**" in overview
    assert "<script" not in overview and "alert('x')" not in overview and "onerror" not in overview
    assert "## FAQ" in overview and "Faq" not in overview
    assert competition.pages.get(kind="terms").body.startswith("Use the data")
    not_imported = "\n".join(result.report.not_imported)
    for expected in (
        "3f2b4c1a-9d8e-4f7a-b6c5-1234567890ab",
        "ingestion_program",
        "Docker image",
        "computed (MRR)",
        "execution_time_limit",
        "logo",
    ):
        assert expected in not_imported
    assert any("CorefUD scorer by its command" in line for line in result.report.imported), (
        result.report.imported
    )


def test_codabench_bundle_imports_as_a_draft(tmp_path, olga):
    result = bundle_import(path=write(tmp_path, "cb.zip", codabench_bundle()), owner="olga")
    competition = result.competition
    assert result.dialect == "codabench"
    task = competition.tasks.get()
    assert (task.kind, task.procedure) == ("identity", "")
    dev, test = task.phases.order_by("order")
    assert dev.end == datetime(2027, 1, 1, tzinfo=UTC) and test.end is None
    assert (dev.daily_limit, dev.total_limit) == (4, 40)
    assert [line.text for line in result.report.proposed] == [
        "the slug 'identity-anaphora', made short from the title (the import's slug field, "
        "or --slug, chooses another)"
    ]
    pages = dict(competition.pages.values_list("kind", "body"))
    assert pages["overview"].startswith("# Overview") and "UA scorer" in pages["evaluation"]
    assert pages["terms"].startswith("# Terms")
    assert sorted(PhaseDataFile.objects.filter(phase=dev).values_list("file_name", flat=True)) == [
        "input.zip",
        "starting_kit.zip",
    ]
    assert "Force_Last" in "\n".join(result.report.not_imported)


@pytest.mark.parametrize("dialect", ["codalab", "codabench"])
def test_imported_competition_scores_as_a_hand_made_one(tmp_path, olga, dialect):
    if dialect == "codalab":
        bundle, name, key, response = (
            codalab_bundle(),
            "en_ami",
            COREFUD_KEY,
            COREFUD_RESPONSE,
        )
        kind, scoring, file = "corefud", "procedure: crac-2025", "en_ami-corefud-test.conllu"
    else:
        bundle, name, key, response = codabench_bundle(), "light", UA_KEY, UA_RESPONSE
        kind, scoring, file = "identity", "", "light.CONLLUA"
    imported = bundle_import(path=write(tmp_path, "b.zip", bundle), owner="olga").competition
    folder = tmp_path / "hand"
    folder.mkdir()
    (folder / file).write_bytes(key)
    (folder / "c.yaml").write_text(
        HAND_MADE.format(kind=kind, scoring=scoring, name=name, key=file), encoding="utf-8"
    )
    competition_load(path=folder / "c.yaml", with_baselines=False)
    hand = Phase.objects.get(task__competition__slug="hand-made", slug="dev")
    ours = Phase.objects.get(task__competition=imported, order=0)
    expected = score_rows(hand, {name: (file, response)})
    got = score_rows(ours, {name: (file, response)})
    assert len(expected) > 10
    assert got == expected
    assert any(row[6] is not None and row[6] < 1 for row in got)  # a real, imperfect run


def test_command_lists_what_was_and_was_not_imported(tmp_path, olga):
    out = io.StringIO()
    call_command(
        "import_bundle",
        str(write(tmp_path, "b.zip", codalab_bundle())),
        "--owner",
        "olga",
        "--slug",
        "old-corefud",
        stdout=out,
    )
    text = out.getvalue()
    assert "draft competition old-corefud" in text
    assert "Not imported:" in text and "ingestion_program" in text and "MRR" in text
    assert Competition.objects.filter(slug="old-corefud").exists()


def test_unknown_scoring_program_is_not_imported(tmp_path, olga):
    bundle = codalab_bundle(
        program={
            "evaluate.py": b"import os\n",
            "metadata": b"command: python $program/evaluate.py\n",
        }
    )
    result = bundle_import(path=write(tmp_path, "b.zip", bundle), owner="olga")
    assert any("not recognised: choose a procedure" in line for line in result.report.not_imported)


def test_conll_reference_scorer_maps_to_exact_match(tmp_path, olga):
    bundle = codalab_bundle(
        program={
            "scorer.pl": b"#!/usr/bin/perl\n",
            "metadata": b"command: perl $program/scorer.pl all\n",
        }
    )
    task = bundle_import(
        path=write(tmp_path, "b.zip", bundle), owner="olga"
    ).competition.tasks.get()
    assert task.procedure == "" and task.scorer_options[-2:] == ["-a", "exact"]


def test_conll_reference_scorer_on_conllua_keys(tmp_path, olga):
    bundle = codabench_bundle(program={"scorer.pl": b"#!/usr/bin/perl\n"})
    task = bundle_import(
        path=write(tmp_path, "b.zip", bundle), owner="olga"
    ).competition.tasks.get()
    assert (task.kind, task.scorer_options) == (
        "identity",
        ["-m", "muc", "bcub", "ceafe", "-a", "exact"],
    )


def test_the_import_page_is_for_staff_only(client, olga):
    client.force_login(olga)
    response = client.get("/new-competition/bundle/")
    assert response.status_code == 302 and "login" in response["Location"]


def test_a_phase_whose_keys_stayed_on_the_old_server(tmp_path, olga):
    text = CODALAB_YAML.replace(
        "reference_data: reference_dev.zip\n    scoring_program: program.zip\n    public_data",
        "reference_data: 0f2b4c1a-9d8e-4f7a-b6c5-1234567890ab\n    scoring_program: "
        "program.zip\n    public_data",
    )
    result = bundle_import(
        path=write(tmp_path, "b.zip", codalab_bundle(yaml_text=text)), owner="olga"
    )
    test = result.competition.tasks.get().phases.get(slug="test")
    assert not test.subcorpora.exists()
    assert any("0f2b4c1a" in line for line in result.report.not_imported)
    assert any(
        "test (predicted mentions)" in line.lower() and "0 gold keys" in line
        for line in result.report.imported
    )


def test_a_bundle_zipped_with_its_folder_and_unknown_keys(tmp_path, olga):
    inner = zipfile.ZipFile(
        io.BytesIO(codalab_bundle(yaml_text=CODALAB_YAML + "mystery_setting: 3\n"))
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for info in inner.infolist():
            zf.writestr(f"my-bundle/{info.filename}", inner.read(info))
    result = bundle_import(path=write(tmp_path, "b.zip", buffer.getvalue()), owner="olga")
    assert result.competition.tasks.get().phases.count() == 2
    assert any(
        line.path == "mystery_setting" and "neither platform" in line.text
        for line in result.report.not_imported
    )
