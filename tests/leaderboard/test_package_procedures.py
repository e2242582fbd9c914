"""The results package downloads for a phase of every scoring procedure, each mode with its
own metrics (CRAC 2026: the coreference tables and one table per empty-node measure), and a
dataset a run skipped is told apart from a score of 0."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import pytest
from django.urls import reverse

from scoring.procedures import PROCEDURES
from scoring.vocabulary import EMPTY_NODE_MEASURES, EMPTY_NODES


@pytest.mark.parametrize("name", sorted(PROCEDURES))
def test_the_package_downloads_for_every_procedure(name, make, client):
    proc = PROCEDURES[name]
    organizer = make.user(f"org-{name}")
    competition = make.competition(organizers=[organizer])
    task = make.task(competition, primary=proc.primary_metric)
    task.procedure = name
    task.save()
    phase = make.phase(task, kind="test_predicted")
    make.run_every_mode(
        phase, make.team(competition, "Full"), {"light": 0.8, "ami": 0.6}, procedure=name
    )
    # skipped ami; scored 0 on light
    make.run_every_mode(phase, make.team(competition, "Half"), {"light": 0.0}, procedure=name)
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
    tables = {n for n in names if n.endswith(".csv") and not n.startswith("participation/")}
    assert {n.removesuffix(".tex") + ".csv" for n in names if n.endswith(".tex")} == tables
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
