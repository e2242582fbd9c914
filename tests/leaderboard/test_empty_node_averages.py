"""Empty-node averages (CRAC 2026) follow one rule everywhere: over the datasets whose gold
key has empty nodes, "—" (null) elsewhere. A run that got every empty node right scores
100, not 50 over two datasets of which one has none: on the board of the mode, in its JSON,
in the board's empty-node table and on the run's analysis page."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict
from django.utils import timezone

from competition import services
from competition.models import Phase
from competition.services.publish import competition_publish_waiving
from leaderboard import board_views
from leaderboard.selectors import leaderboard_board, submission_analysis
from leaderboard.selectors.averaged import UNMEASURED_NOTE, averaged_datasets
from leaderboard.selectors.variants import board_variants
from scoring.vocabulary import EMPTY_NODES

pytestmark = pytest.mark.django_db

KEYS = Path(__file__).resolve().parents[2] / "fixtures" / "corefud" / "key"
AMI, ZEROS = "en_ami-corefud-test.conllu", "zeros-deps-corefud-test.conllu"
DEFINITION = f"""\
slug: nodes
title: Empty nodes
tasks:
  - slug: coreference
    kind: corefud
    title: Coreference
    procedure: crac-2026
    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - {{name: en_ami, file: {AMI}, key: {AMI}}}
          - {{name: zeros, file: {ZEROS}, key: {ZEROS}}}
"""


@pytest.fixture
def run(tmp_path, django_capture_on_commit_callbacks):
    """A run whose response files are the keys: every empty node right (en_ami has none)."""
    for name in (AMI, ZEROS):
        shutil.copy(KEYS / name, tmp_path / name)
    (tmp_path / "nodes.yaml").write_text(DEFINITION, encoding="utf-8")
    load = services.competition_load(path=tmp_path / "nodes.yaml", with_baselines=False)
    competition_publish_waiving(competition=load.competition)
    Phase.objects.filter(task__competition=load.competition).update(
        start=timezone.now() - timedelta(days=1)
    )
    user = get_user_model().objects.create_user("nina", password="pw-nina-123")
    team = services.team_create(competition=load.competition, name="Nina", user=user)
    phase = Phase.objects.get(task__competition=load.competition)
    files = {
        slug: SimpleUploadedFile(name, (KEYS / name).read_bytes())
        for slug, name in (("en_ami", AMI), ("zeros", ZEROS))
    }
    with django_capture_on_commit_callbacks(execute=True):
        submission = services.submission_create(team=team, phase=phase, user=user, files=files)
    submission.refresh_from_db()
    assert submission.status == "scored", submission.error
    return submission


def test_the_average_is_over_the_datasets_whose_key_has_empty_nodes(run):
    phase = run.phase
    assert averaged_datasets(phase=phase, mode=EMPTY_NODES, available=["en_ami", "zeros"]) == [
        "zeros"
    ]
    assert averaged_datasets(phase=phase, mode=EMPTY_NODES, available=["en_ami"]) == []
    assert averaged_datasets(phase=phase, mode="task", available=["en_ami", "zeros"]) == [
        "en_ami",
        "zeros",
    ]

    # The board of the mode: 100 over zeros; en_ami's cell blank, its column says why.
    board = leaderboard_board(phase=phase, viewer=AnonymousUser(), mode=EMPTY_NODES, metric="ARC")
    (row,) = board.rows
    assert row.average is not None and row.average.f1 == pytest.approx(1.0)
    assert set(row.entry.scores) == {"zeros"} and row.rank == 1
    ami = next(c for c in board.columns if c.slug == "en_ami")
    assert not ami.available and ami.note == UNMEASURED_NOTE

    # Its JSON (the API and the download): the same average, en_ami null.
    query = QueryDict("mode=empty-nodes&metric=ARC")
    payload = json.loads(
        json.dumps(board_views.board_api_payload(phase=phase, viewer=AnonymousUser(), query=query))
    )
    (json_row,) = payload["rows"]
    assert json_row["average"]["f1"] == pytest.approx(1.0) and "en_ami" not in json_row["scores"]
    assert {"slug": "en_ami", "name": "en_ami", "available": False, "note": UNMEASURED_NOTE} in (
        payload["board"]["subcorpora"]
    )

    # The default board's empty-node table.
    default = leaderboard_board(phase=phase, viewer=AnonymousUser())
    variants = board_variants(board=default)
    assert variants is not None
    arc = next(c for c in variants.empty_nodes.columns if c.metric == "ARC")
    assert variants.value(run.pk, arc) == pytest.approx(1.0)
    # The coreference average still takes both datasets.
    assert [c.slug for c in default.columns if c.available] == ["en_ami", "zeros"]

    # The run's analysis page: the same number, en_ami "—", and the rule said.
    analysis = submission_analysis(submission=run, viewer=AnonymousUser())
    assert analysis is not None and analysis.empty_nodes
    line = analysis.line("ARC", mode=EMPTY_NODES)
    assert line is not None and set(line.cells) == {"zeros"}
    assert line.average is not None and line.average.f1 == pytest.approx(1.0)


def test_the_pages_state_the_rule(run, client):
    task = run.phase.task
    base = f"/competitions/{task.competition.slug}/{task.slug}/{run.phase.slug}/leaderboard/"
    page = client.get(base).content.decode()
    assert "macro-averaged over the datasets whose gold key has empty nodes" in page
    page = client.get(base + "?mode=empty-nodes&metric=ARC").content.decode()
    assert "whose gold key has empty nodes (a dataset without any shows —" in page
    assert f'title="{UNMEASURED_NOTE}"' in page
    page = client.get(f"/submissions/{run.pk}/analysis/").content.decode()
    assert "averaged over the sub-corpora whose gold key has empty nodes" in page
