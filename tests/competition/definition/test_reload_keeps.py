"""Reloading a definition that leaves a field out keeps what the competition holds: a
hidden board stays hidden (its reveal as it was), a phase keeps its zone, limits, rules and
end, a task its description and tracks, a dataset its language and upload name, the
competition its description and web site. A new part takes the defaults; a field given
(``end: null`` included) is written. Both front doors: the loader and the upload."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.definition.spec import PHASE_FIELDS
from competition.definition.upload import competition_definition_upload
from competition.errors import CompetitionError
from competition.models import Competition, Phase, SubCorpus, Task
from competition.services import competition_load, phase_reveal
from tests.conftest import KEY_DOCS, conllua

pytestmark = pytest.mark.django_db

FULL = """\
slug: reload
title: Reload
description: The first edition.
website: https://example.org/reload
organizers: [olga]
tasks:
  - slug: task
    kind: identity
    title: Task
    description: Identity anaphora in dialogue.
    tracks:
      - {slug: llm, name: LLM, description: Runs of LLM-based systems}
    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        end: 2026-02-01T23:59:59Z
        time_zone: Europe/Prague
        leaderboard: hidden
        show_own_scores_when_hidden: true
        run_details: team
        daily_limit: 2
        total_limit: 7
        counts: chosen
        missing: zero
        subcorpora:
          - {name: LIGHT, language: en, file: light_test.CONLLUA, key: light.conllua}
"""

BARE = """\
slug: reload
title: Reload
tasks:
  - slug: task
    kind: identity
    title: Task
    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - {name: LIGHT, key: light.conllua}
      - slug: post
        kind: post_task
        title: Post-task
        start: 2026-03-01T00:00:00Z
        subcorpora:
          - {name: LIGHT, key: light.conllua}
"""


@pytest.fixture
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


def write(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "light.conllua").write_text(conllua(KEY_DOCS["light"]), encoding="utf-8")
    (folder / "reload.yaml").write_text(text, encoding="utf-8")
    return folder / "reload.yaml"


def via_loader(tmp_path: Path, text: str) -> None:
    competition_load(path=write(tmp_path / "yaml", text), with_baselines=False)


def via_upload(tmp_path: Path, text: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("reload.yaml", text)
        zf.writestr("light.conllua", conllua(KEY_DOCS["light"]))
    competition_definition_upload(
        competition=Competition.objects.get(slug="reload"),
        upload=SimpleUploadedFile("reload.zip", buffer.getvalue()),
    )


def stored(phase: Phase) -> dict:
    return {name: getattr(phase, name) for name in PHASE_FIELDS}


@pytest.mark.parametrize("reload", [via_loader, via_upload], ids=["loader", "upload"])
def test_a_reload_that_leaves_fields_out_keeps_what_is_stored(tmp_path, olga, reload):
    via_loader(tmp_path, FULL)
    phase = Phase.objects.get(slug="test")
    phase_reveal(phase=phase, at=None)  # hidden, then revealed by hand
    phase.refresh_from_db()
    before = stored(phase)
    assert before["leaderboard_visibility"] == "hidden" and before["revealed_at"] is not None

    reload(tmp_path, BARE)
    phase.refresh_from_db()
    assert stored(phase) == before
    assert phase.leaderboard_visibility == "hidden" and not phase.reveal_scheduled
    task = Task.objects.get(slug="task")
    assert task.description == "Identity anaphora in dialogue."
    assert list(task.tracks.values_list("slug", "description")) == [
        ("llm", "Runs of LLM-based systems")
    ]
    light = SubCorpus.objects.get(phase=phase, slug="light")
    assert (light.language, light.file_name) == ("en", "light_test.CONLLUA")
    competition = Competition.objects.get(slug="reload")
    assert (competition.description, competition.website) == (
        "The first edition.",
        "https://example.org/reload",
    )
    # A phase the file adds takes the defaults: a public board, open-ended, 5 a day, UTC.
    new = Phase.objects.get(slug="post")
    assert (new.leaderboard_visibility, new.end, new.daily_limit, new.total_limit) == (
        "public",
        None,
        5,
        100,
    )
    assert (new.time_zone, new.counts, new.missing, new.run_details) == (
        "UTC",
        "best",
        "unranked",
        "public",
    )


def test_a_field_given_is_written_even_when_it_clears_one(tmp_path, olga):
    via_loader(tmp_path, FULL)
    text = BARE.replace(
        "start: 2026-01-01T00:00:00Z\n",
        "start: 2026-01-01T00:00:00Z\n        end: null\n        leaderboard: public\n",
        1,
    )
    via_loader(tmp_path, text.replace("    title: Task\n", "    title: Task\n    tracks: []\n"))
    phase = Phase.objects.get(slug="test")
    assert phase.end is None and phase.leaderboard_visibility == "public"
    assert phase.daily_limit == 2  # still not given: kept
    assert not Task.objects.get(slug="task").tracks.exists()


def test_a_start_moved_past_the_kept_end_is_refused(tmp_path, olga):
    via_loader(tmp_path, FULL)
    with pytest.raises(CompetitionError, match="'start' is after the phase's end"):
        via_loader(tmp_path, BARE.replace("2026-01-01T00:00:00Z", "2026-05-01T00:00:00Z", 1))
    assert Phase.objects.get(slug="test").start.month == 1
