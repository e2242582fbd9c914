"""The results package downloads for a phase of every scoring procedure, each mode with its
own metrics (CRAC 2026: the coreference tables and one table per empty-node measure), and a
dataset a run skipped is told apart from a score of 0."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest
from django.urls import reverse

from competition.models import Score, ScoringRun
from scoring.procedures import PROCEDURES
from scoring.vocabulary import CONLL, CONLL_PARTS, EMPTY_NODE_MEASURES, EMPTY_NODES


def _mode_metrics(proc, mode: str) -> tuple[str, ...]:
    if mode == EMPTY_NODES:
        return EMPTY_NODE_MEASURES
    if proc.primary_metric == CONLL:
        return (*CONLL_PARTS, CONLL)
    return (proc.primary_metric,)


def _scored(make, phase, team, proc, values: dict[str, float]):
    """A run of ``phase`` scored in every mode of ``proc``: ``values`` by dataset slug (a
    dataset left out is one the run skipped)."""
    submission = make.run(phase, team, status="scored", f1=None)
    run = ScoringRun.objects.get(submission=submission)
    run.procedure = proc.name
    run.save()
    slugs = {s.slug: s for s in phase.subcorpora.all()}
    for mode in proc.modes:
        for metric in _mode_metrics(proc, mode):
            for slug, value in values.items():
                Score.objects.create(
                    run=run,
                    submission=submission,
                    subcorpus=slugs[slug],
                    mode=mode,
                    metric=metric,
                    recall=value,
                    precision=value,
                    f1=value,
                )
    return submission


@pytest.mark.parametrize("name", sorted(PROCEDURES))
def test_the_package_downloads_for_every_procedure(name, make, client):
    proc = PROCEDURES[name]
    organizer = make.user(f"org-{name}")
    competition = make.competition(organizers=[organizer])
    task = make.task(competition, primary=proc.primary_metric)
    task.procedure = name
    task.save()
    phase = make.phase(task, kind="test_predicted")
    _scored(make, phase, make.team(competition, "Full"), proc, {"light": 0.8, "ami": 0.6})
    # skipped ami; scored 0 on light
    _scored(make, phase, make.team(competition, "Half"), proc, {"light": 0.0})
    client.force_login(organizer)
    url = reverse("leaderboard:results_package", args=[competition.slug, task.slug, phase.slug])
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    expected = {f"{mode}.csv" for mode in proc.modes if mode != EMPTY_NODES}
    if EMPTY_NODES in proc.modes:
        expected |= {f"{EMPTY_NODES}/{measure}.csv" for measure in EMPTY_NODE_MEASURES}
    assert expected <= names
    assert {n.removesuffix(".tex") + ".csv" for n in names if n.endswith(".tex")} == {
        n for n in names if n.endswith(".csv")
    }
    for member in expected:
        frame = pd.read_csv(io.BytesIO(archive.read(member)), keep_default_na=False)
        half = frame[frame["team"] == "Half"].iloc[0]
        assert half["light"] == 0  # a score of 0 stays a 0
        assert half["ami"] == "" and half["skipped"] == "ami"  # a skipped dataset: empty
        full = frame[frame["team"] == "Full"].iloc[0]
        assert float(full["ami"]) == pytest.approx(0.6) and full["skipped"] == ""
        tex = archive.read(member.replace(".csv", ".tex")).decode()
        half_line = next(line for line in tex.splitlines() if "Half" in line)
        assert "0.00 & --" in half_line  # light 0.00, ami not scored
    if EMPTY_NODES in proc.modes:
        tex = archive.read(f"{EMPTY_NODES}/ARC.tex").decode()
        assert "Empty nodes ARC" in tex and "\\label{tab:" in tex
