"""Scores stored by the platform equal the reference scorer's numbers (conformance pack,
UA scorer v1 output) at 1e-9: the whole path from upload to score rows, per task kind and
for the analysis modes of identity tasks."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from competition import scoring as lifecycle
from competition import services
from competition.models import Competition, Phase, Score, SubCorpus, Task
from tests.paths import CONFORMANCE

pytestmark = pytest.mark.django_db

PACK = CONFORMANCE / "ua-generated"
TOLERANCE = 1e-9
COREF = ("muc", "bcub", "ceafe", "ceafm", "lea", "blanc")
BRIDGING = {
    "bridging_ar": "anaphora_recognition",
    "bridging_mention": "mention",
    "bridging_entity": "entity",
}


def cases(feature: str, mode: str, limit: int = 3) -> list[str]:
    index = json.loads((PACK / "INDEX.json").read_text(encoding="utf-8"))
    chosen = [
        entry["case"]
        for entry in index
        if feature in entry["features"] and mode not in entry["v1_crashed_modes"]
    ]
    return chosen[:limit]


def score_case(case: str, kind: str, options: list[str], world_user):
    """Load one conformance case as a one-sub-corpus phase, submit its response, score it."""
    user, team_name = world_user
    key = PACK / case / "key.conllua"
    stored = Path(settings.PRIVATE_ROOT) / "keys" / f"{case}.conllua"
    stored.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(key, stored)
    competition = Competition.objects.create(
        slug=f"c-{case}", title=case, published_at=timezone.now()
    )
    task = Task.objects.create(
        competition=competition,
        slug="t",
        kind=kind,
        title="T",
        scorer_options=options,
        primary_metric="conll",
    )
    phase = Phase.objects.create(
        task=task, slug="p", kind="development", title="P", start=timezone.now() - timedelta(days=1)
    )
    SubCorpus.objects.create(phase=phase, name="GEN", slug="gen", key_file=f"keys/{case}.conllua")
    team = services.team_create(competition=competition, name=team_name, user=user)
    upload = SimpleUploadedFile("GEN.CONLLUA", (PACK / case / "sys.conllua").read_bytes())
    submission = services.submission_create(
        team=team, phase=phase, user=user, files={"gen": upload}
    )
    claimed = lifecycle.submission_claim(submission_id=submission.pk, task_id="t")
    lifecycle.submission_record(
        submission=claimed, task_id="t", results=lifecycle.submission_compute(submission=claimed)
    )
    return submission


def expected(case: str, mode: str) -> dict:
    data = json.loads((PACK / case / "expected-v1.json").read_text(encoding="utf-8"))
    return data["modes"][mode]


def stored(submission, mode: str) -> dict[str, Score]:
    rows = Score.objects.filter(submission=submission, mode=mode, document="")
    return {row.metric: row for row in rows}


@pytest.fixture
def participant(django_user_model):
    return django_user_model.objects.create_user("p"), "Team P"


def check_coref(rows: dict[str, Score], reference: dict) -> None:
    binding = [m for m in COREF if m not in reference.get("order_dependent", [])]
    assert binding, "no binding metric in this case"
    for metric in binding:
        ref = reference["scores"][metric]
        got = rows[metric]
        assert (got.recall, got.precision, got.f1) == pytest.approx(
            (ref["recall"], ref["precision"], ref["f1"]), abs=TOLERANCE
        ), metric
    assert rows["conll"].f1 == pytest.approx(reference["conll"], abs=TOLERANCE)


@pytest.mark.parametrize("case", cases("identity", "only_split_antecedent"))
def test_identity_task_and_analysis_modes_match_the_reference(case, participant):
    submission = score_case(case, "identity", [], participant)
    check_coref(stored(submission, "task"), expected(case, "default"))
    for mode in ("remove_singletons remove_split_antecedent", "only_split_antecedent"):
        reference = expected(case, mode)
        rows = stored(submission, mode)
        for metric in [
            m
            for m in ("muc", "bcub", "ceafe", "ceafm")
            if m not in reference.get("order_dependent", [])
        ]:
            assert rows[metric].f1 == pytest.approx(
                reference["scores"][metric]["f1"], abs=TOLERANCE
            ), (mode, metric)


@pytest.mark.parametrize("case", cases("bridging", "keep_bridging"))
def test_bridging_task_matches_the_reference(case, participant):
    submission = score_case(case, "bridging", ["keep_bridging"], participant)
    reference = expected(case, "keep_bridging")
    rows = stored(submission, "task")
    for metric, name in BRIDGING.items():
        ref = reference["bridging"][name]
        got = rows[metric]
        assert (got.recall, got.precision, got.f1) == pytest.approx(
            (ref["recall"], ref["precision"], ref["f1"]), abs=TOLERANCE
        ), metric
    assert not Score.objects.filter(submission=submission).exclude(mode="task").exists()


@pytest.mark.parametrize("case", cases("dd", "evaluate_discourse_deixis"))
def test_discourse_deixis_task_matches_the_reference(case, participant):
    submission = score_case(case, "discourse_deixis", ["evaluate_discourse_deixis"], participant)
    check_coref(stored(submission, "task"), expected(case, "evaluate_discourse_deixis"))
