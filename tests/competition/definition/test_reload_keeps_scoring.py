"""A reload that leaves a task's scoring out (``procedure``, ``scorer_options``,
``primary_metric``) keeps the stored one: no change, no re-scoring, no audit entry. Scoring
given is written (re-scored and recorded); a new task, or a kind the stored procedure does
not fit, takes the kind's default; the stored competition, written out and reloaded, is
unchanged."""

from __future__ import annotations

import io
import shutil
import zipfile
from pathlib import Path

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from competition.definition.kept_scoring import scoring_kept
from competition.definition.rules import UNSET
from competition.definition.spec import TaskSpec
from competition.definition.upload import competition_definition, competition_definition_upload
from competition.models import AuditEntry, Competition, Task
from competition.services import competition_load

pytestmark = pytest.mark.django_db

KEYS = Path(__file__).resolve().parents[3] / "fixtures" / "corefud" / "key"
AMI = "en_ami-corefud-test.conllu"


def definition(scoring: str, *, kind: str = "corefud", slug: str = "coreference") -> str:
    return f"""\
slug: keep
title: Keep
tasks:
  - slug: {slug}
    kind: {kind}
    title: Coreference
{scoring}    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - {{name: en_ami, key: {AMI}}}
"""


def load(tmp_path: Path, text: str, *, command: bool = False):
    shutil.copy(KEYS / AMI, tmp_path / AMI)
    path = tmp_path / "keep.yaml"
    path.write_text(text, encoding="utf-8")
    if command:  # the operator's door, which records what changed
        call_command("load_competition", str(path), "--no-baselines", stdout=io.StringIO())
        return None
    return competition_load(path=path, with_baselines=False)


def scoring() -> tuple:
    task = Task.objects.get(competition__slug="keep")
    return task.kind, task.procedure, list(task.scorer_options), task.primary_metric


def audited() -> list[str]:
    return sorted(
        AuditEntry.objects.filter(
            action__in=[AuditEntry.Action.SCORING_CHANGED, AuditEntry.Action.KEYS_CHANGED]
        ).values_list("action", flat=True)
    )


def test_a_reload_leaving_the_procedure_out_keeps_it_and_rescores_nothing(tmp_path):
    load(tmp_path, definition("    procedure: crac-2024\n    primary_metric: muc\n"))
    before = scoring()
    assert before == ("corefud", "crac-2024", [], "muc")

    reloaded = load(tmp_path, definition(""))
    assert scoring() == before
    assert reloaded.changed_phases == () and reloaded.rescored == ()

    load(tmp_path, definition(""), command=True)
    assert scoring() == before and audited() == []


def test_a_reload_keeps_scorer_options_and_their_primary_metric(tmp_path):
    words = "[-f, corefud, -m, muc, bcub, -a, exact]"
    load(tmp_path, definition(f"    scorer_options: {words}\n    primary_metric: bcub\n"))
    before = scoring()
    assert before[1:] == ("", ["-f", "corefud", "-m", "muc", "bcub", "-a", "exact"], "bcub")
    load(tmp_path, definition(""), command=True)
    assert scoring() == before and audited() == []


def test_a_reload_giving_another_procedure_writes_it_rescores_and_records_it(tmp_path):
    load(tmp_path, definition("    procedure: crac-2024\n"))
    reloaded = load(tmp_path, definition("    procedure: crac-2023\n"))
    assert scoring()[1] == "crac-2023" and len(reloaded.changed_phases) == 1

    load(tmp_path, definition("    procedure: crac-2022\n"), command=True)
    assert scoring()[1] == "crac-2022"
    assert audited() == ["keys_changed", "scoring_changed"]


def test_a_primary_metric_left_out_with_new_scoring_is_the_procedures(tmp_path):
    load(tmp_path, definition("    procedure: crac-2024\n    primary_metric: muc\n"))
    load(tmp_path, definition("    procedure: crac-2023\n"))
    assert scoring()[1:] == ("crac-2023", [], "conll")


def test_a_new_task_leaving_its_scoring_out_takes_the_kinds_default(tmp_path):
    load(tmp_path, definition(""))
    assert scoring() == ("corefud", "crac-2025", [], "conll")


def test_a_changed_kind_the_stored_procedure_does_not_fit_takes_the_new_kinds_default():
    stored = Task(kind="corefud", procedure="crac-2024", scorer_options=[], primary_metric="muc")
    spec = TaskSpec.checked(
        slug="t",
        kind="identity",
        title="T",
        procedure=UNSET,
        scorer_options=UNSET,
        primary_metric=UNSET,
    )
    kept = scoring_kept(spec, stored)
    assert (kept.procedure, kept.primary_metric) == ("", "conll")
    assert kept.scorer_options == scoring_kept(spec, None).scorer_options
    # the stored scoring fits an unchanged kind: kept
    same = scoring_kept(TaskSpec.checked(**{**spec_fields(spec), "kind": "corefud"}), stored)
    assert (same.procedure, same.primary_metric) == ("crac-2024", "muc")


def spec_fields(spec: TaskSpec) -> dict:
    return {
        "slug": spec.slug,
        "kind": spec.kind,
        "title": spec.title,
        "procedure": UNSET,
        "scorer_options": UNSET,
        "primary_metric": UNSET,
    }


def test_the_stored_competition_written_out_and_reloaded_is_unchanged(tmp_path):
    load(tmp_path, definition("    procedure: crac-2024\n    primary_metric: muc\n"))
    before = scoring()
    data, keys = competition_definition(competition=Task.objects.get().competition)
    assert data["tasks"][0]["procedure"] == "crac-2024"
    folder = tmp_path / "download"
    for name, stored in keys.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(stored, folder / name)
    (folder / "competition.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    reloaded = competition_load(path=folder / "competition.yaml", with_baselines=False)
    assert scoring() == before and reloaded.changed_phases == ()


def test_an_uploaded_definition_leaving_the_scoring_out_keeps_it(tmp_path):
    load(tmp_path, definition("    procedure: crac-2024\n    primary_metric: muc\n"))
    before = scoring()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("keep.yaml", definition(""))
        zf.write(KEYS / AMI, AMI)
    uploaded = competition_definition_upload(
        competition=Competition.objects.get(slug="keep"),
        upload=SimpleUploadedFile("keep.zip", buffer.getvalue()),
    )
    assert scoring() == before and uploaded.changed_phases == ()
