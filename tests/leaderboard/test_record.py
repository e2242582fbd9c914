"""The record of a phase: the results package (tables, bootstrap intervals, neighbour tests,
organizers only) and the frozen board's stable JSON document."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from django.urls import reverse

from leaderboard import significance
from leaderboard.package import package_tables, table_latex
from leaderboard.services import board_freeze

LIGHT = [(8, 10), (5, 9), (7, 7), (2, 6), (9, 12)]
AMI = [(3, 8), (6, 6), (1, 5), (4, 9)]
GOOD = {"light": LIGHT, "ami": AMI}
FAIR = {"light": [(n - 1, d) for n, d in LIGHT], "ami": [(max(n - 2, 0), d) for n, d in AMI]}
POOR = {"light": [(n // 2, d) for n, d in LIGHT], "ami": [(n // 3, d) for n, d in AMI]}


def direct_interval(documents, *, samples, seed):
    """The macro-average's percentile interval computed here with numpy alone: with P = R
    (the factory's counts) each part's F1, and so CoNLL's, is sum(num) / sum(den)."""
    rng = np.random.default_rng(seed)
    per_stratum = []
    for slug in ("light", "ami"):  # the board's order, which is the strata ids' order
        docs = np.array(documents[slug], dtype=float)
        picks = rng.integers(0, len(docs), size=(samples, len(docs)))
        per_stratum.append(docs[picks, 0].sum(axis=1) / docs[picks, 1].sum(axis=1))
    stats = np.mean(per_stratum, axis=0)
    return tuple(np.percentile(stats, [2.5, 97.5]))


@pytest.fixture
def world(make):
    organizer = make.user("org")
    competition = make.competition(organizers=[organizer])
    phase = make.phase(make.task(competition), kind="test_predicted")
    runs = {
        name: make.run(phase, make.team(competition, name), documents=docs)
        for name, docs in (("Good", GOOD), ("Fair", FAIR), ("Poor", POOR))
    }
    return organizer, competition, phase, runs


def test_bootstrap_interval_resamples_documents_within_strata():
    docs = np.array(LIGHT + AMI, dtype=float)
    counts = np.concatenate([docs[:, :1], docs[:, 1:], docs[:, :1], docs[:, 1:]], axis=1)
    got = significance.bootstrap_interval(
        counts, score=significance.prf_f1, strata=[0] * 5 + [1] * 4, samples=400, seed=7
    )
    low, high = direct_interval(GOOD, samples=400, seed=7)
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12)
    macro = (
        sum(n for n, _ in LIGHT) / sum(d for _, d in LIGHT)
        + sum(n for n, _ in AMI) / sum(d for _, d in AMI)
    ) / 2
    assert got.value == pytest.approx(macro, abs=1e-12)
    assert got.low < got.value < got.high


def test_the_package_table_ranks_runs_with_intervals_and_neighbour_tests(world):
    organizer, _, phase, runs = world
    tables = package_tables(phase=phase, viewer=organizer, samples=300, test_samples=500, seed=11)
    task = next(t for t in tables if t.name == "task")
    frame = task.frame
    assert list(frame["team"]) == ["Good", "Fair", "Poor"]
    assert list(frame["rank"]) == [1, 2, 3]
    for name, docs in (("Good", GOOD), ("Fair", FAIR), ("Poor", POOR)):
        row = frame[frame["team"] == name].iloc[0]
        light = sum(n for n, _ in docs["light"]) / sum(d for _, d in docs["light"])
        ami = sum(n for n, _ in docs["ami"]) / sum(d for _, d in docs["ami"])
        assert row["light"] == pytest.approx(light, abs=1e-9)
        assert row["average"] == pytest.approx((light + ami) / 2, abs=1e-9)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(
            direct_interval(docs, samples=300, seed=11), abs=1e-12
        )
    # the neighbour test is the board's stratified approximate randomization
    good, fair = (
        np.array([[n, d, n, d] * 3 for n, d in docs["light"] + docs["ami"]], dtype=float)
        for docs in (GOOD, FAIR)
    )
    strata = [0] * 5 + [1] * 4
    # the counts are read sorted by (dataset slug, document): ami before light
    order = list(range(5, 9)) + list(range(5))
    expected = significance.approximate_randomization(
        good[order],
        fair[order],
        score=significance.mean_of([(significance.prf_f1, 4)] * 3),
        strata=[strata[i] for i in order],
        samples=500,
        seed=11,
    )
    assert frame.iloc[0]["p_next"] == pytest.approx(expected.p_value)
    assert np.isnan(frame.iloc[2]["p_next"]) or frame.iloc[2]["p_next"] is None
    latex = table_latex(task)
    assert "\\toprule" in latex and "\\midrule" in latex and "\\bottomrule" in latex
    first = next(line for line in latex.splitlines() if line.startswith("1 & Good"))
    cells = [c.strip() for c in first.rstrip("\\ ").split("&")]
    row = frame.iloc[0]
    assert cells[2:5] == [
        f"{100 * row['light']:.2f}",
        f"{100 * row['ami']:.2f}",
        f"{100 * row['average']:.2f}",
    ]
    assert cells[5] == f"[{100 * row['ci_low']:.2f}, {100 * row['ci_high']:.2f}]"


def test_only_organizers_download_the_package(world, client, make):
    organizer, competition, phase, _ = world
    url = reverse(
        "leaderboard:results_package", args=[competition.slug, phase.task.slug, phase.slug]
    )
    assert client.get(url).status_code == 404
    participant = make.user("p")
    make.team(competition, "Mine", members=[participant])
    client.force_login(participant)
    assert client.get(url).status_code == 404
    client.force_login(organizer)
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert {"task.csv", "task.tex", "README.txt"} <= set(names)
    text = zipfile.ZipFile(io.BytesIO(response.content)).read("task.csv").decode()
    assert text.splitlines()[0].startswith("rank,team,run_name,submission_id")
    organize = client.get(
        reverse("leaderboard:organize_phase", args=[competition.slug, phase.task.slug, phase.slug])
    )
    args = [competition.slug, phase.task.slug, phase.slug]
    assert reverse("leaderboard:results_package_progress", args=args) in organize.content.decode()


def test_the_package_is_built_as_a_job_and_downloaded(world, client, make):
    organizer, competition, phase, _ = world
    args = [competition.slug, phase.task.slug, phase.slug]
    progress = reverse("leaderboard:results_package_progress", args=args)
    download = reverse("leaderboard:results_package_download", args=args)
    participant = make.user("p2")
    client.force_login(participant)
    assert client.post(progress).status_code == 404
    client.force_login(organizer)
    assert client.get(download).status_code == 404  # nothing built yet
    assert "No package was asked for yet" in client.get(progress).content.decode()
    started = client.post(progress)
    assert started.status_code == 302 and started["Location"] == progress
    # without a broker the job ran in-process: the page says done and links the zip
    page = client.get(progress).content.decode()
    assert 'id="package-download"' in page and "Done: 1 of 1 tables built" in page
    state = client.get(progress, {"format": "json"}).json()
    assert state == {"state": "done", "done": 1, "total": 1, "error": ""}
    built = zipfile.ZipFile(io.BytesIO(b"".join(client.get(download).streaming_content)))
    direct = zipfile.ZipFile(
        io.BytesIO(client.get(reverse("leaderboard:results_package", args=args)).content)
    )
    assert built.namelist() == direct.namelist()
    for name in direct.namelist():
        assert built.read(name) == direct.read(name), name


def test_a_frozen_board_document_never_changes(world, client, make):
    organizer, competition, phase, runs = world
    snapshot = board_freeze(phase=phase, user=organizer, note="official")
    url = reverse(
        "leaderboard:frozen_board_json",
        args=[competition.slug, phase.task.slug, phase.slug, snapshot.pk],
    )
    first = client.get(url)
    assert first.status_code == 200
    board = client.get(
        reverse("leaderboard:board", args=[competition.slug, phase.task.slug, phase.slug])
    )
    assert f'href="{url}"' in board.content.decode()  # the public board links it
    document = json.loads(first.content)
    teams = [e["team"] for e in document["entries"]]
    assert sorted(teams) == ["Fair", "Good", "Poor"]
    number = document["entries"][0]["scores"][0]
    assert {"procedure", "scorer_version", "key_file_sha256", "f1"} <= set(number)
    assert number["scorer_version"] == "test-1"
    # a new run arrives and an old one is disqualified: the frozen document stays as it was
    make.run(phase, make.team(competition, "Late"), documents=GOOD)
    runs["Poor"].disqualified = True
    runs["Poor"].save()
    assert client.get(url).content == first.content
    client.force_login(organizer)
    assert client.get(url).content == first.content


def test_a_frozen_board_of_a_hidden_phase_is_not_served(make, client):
    organizer = make.user("org2")
    competition = make.competition(organizers=[organizer])
    phase = make.phase(make.task(competition), visibility="hidden")
    make.run(phase, make.team(competition, "A"), documents=GOOD)
    snapshot = board_freeze(phase=phase, user=organizer)
    url = reverse(
        "leaderboard:frozen_board_json",
        args=[competition.slug, phase.task.slug, phase.slug, snapshot.pk],
    )
    assert client.get(url).status_code == 404
    client.force_login(organizer)
    assert client.get(url).status_code == 200


def test_a_task_with_tracks_gets_one_table_per_track_and_variant(make):
    from competition.models import Track

    organizer = make.user("org3")
    competition = make.competition(organizers=[organizer])
    task = make.task(competition)
    llm = Track.objects.create(task=task, slug="llm", name="LLM", order=0)
    other = Track.objects.create(task=task, slug="unconstrained", name="Unconstrained", order=1)
    phase = make.phase(task, kind="test_predicted")
    make.run(phase, make.team(competition, "L"), documents=GOOD, track=llm)
    make.run(phase, make.team(competition, "U"), documents=FAIR, track=other)
    tables = {
        t.name: t
        for t in package_tables(phase=phase, viewer=organizer, samples=50, test_samples=50)
    }
    assert set(tables) == {"llm/task", "unconstrained/task"}
    assert list(tables["llm/task"].frame["team"]) == ["L"]
    assert list(tables["unconstrained/task"].frame["team"]) == ["U"]


def test_the_frozen_document_is_sent_as_stored_with_an_etag_and_gzip(world, client):
    import gzip

    organizer, competition, phase, _ = world
    snapshot = board_freeze(phase=phase, user=organizer)
    url = reverse(
        "leaderboard:frozen_board_json",
        args=[competition.slug, phase.task.slug, phase.slug, snapshot.pk],
    )
    plain = client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    snapshot.refresh_from_db()
    assert plain.content == bytes(snapshot.document)  # the bytes encoded at the freeze
    etag = plain["ETag"]
    assert etag == snapshot.document_etag and "Accept-Encoding" in plain["Vary"]
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    assert client.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content) == plain.content
    refused = client.get(url, HTTP_ACCEPT_ENCODING="gzip;q=0")
    assert "Content-Encoding" not in refused and refused.content == plain.content
    document = json.loads(plain.content)
    # two digests of a key, named apart: the file's bytes and its normalised content
    assert set(document["key_digests"]["light"]) == {"file_sha256", "content_sha256"}
    assert "key_file_sha256" in document["entries"][0]["scores"][0]


def test_the_frozen_document_is_served_from_its_file_written_once(world, client, settings):
    """The freeze writes each stored form to a file named by the snapshot and its ETag; a
    GET sends that file (the same bytes as the row's). A file that is not there (a new
    machine) is written again from the row, byte for byte."""
    organizer, competition, phase, _ = world
    snapshot = board_freeze(phase=phase, user=organizer)
    snapshot.refresh_from_db()
    folder = Path(settings.PRIVATE_ROOT) / "frozen" / str(phase.pk)
    digest = snapshot.document_etag.strip('"')
    plain_file = folder / f"{snapshot.pk}-{digest}.json"
    zipped_file = folder / f"{snapshot.pk}-{digest}.json.gz"
    assert plain_file.read_bytes() == bytes(snapshot.document)
    assert zipped_file.read_bytes() == bytes(snapshot.document_gzip)
    url = reverse(
        "leaderboard:frozen_board_json",
        args=[competition.slug, phase.task.slug, phase.slug, snapshot.pk],
    )
    plain = client.get(url)
    assert plain.streaming and plain["Content-Length"] == str(len(snapshot.document))
    assert b"".join(plain.streaming_content) == bytes(snapshot.document)
    zipped_file.unlink()
    zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip" and zipped["ETag"] == snapshot.document_etag
    assert b"".join(zipped.streaming_content) == bytes(snapshot.document_gzip)
    assert zipped_file.read_bytes() == bytes(snapshot.document_gzip)
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no partial file left
    assert client.get(url, HTTP_IF_NONE_MATCH=snapshot.document_etag).status_code == 304
    other = reverse(
        "leaderboard:frozen_board_json",
        args=[competition.slug, phase.task.slug, phase.slug, snapshot.pk + 1],
    )
    assert client.get(other).status_code == 404


def test_a_snapshot_from_before_the_record_was_stored_still_serves(world, client, settings):
    """A snapshot written before its record and document were stored: its board reads those
    parts live, its JSON is encoded on request (``null`` where nothing was recorded)."""
    from leaderboard.models import BoardSnapshot

    organizer, competition, phase, _ = world
    snapshot = board_freeze(phase=phase, user=organizer)
    data = dict(snapshot.data)
    data.pop("record")
    data.pop("key_digests")
    BoardSnapshot.objects.filter(pk=snapshot.pk).update(
        data=data, document=b"", document_gzip=b"", document_etag=""
    )
    shutil.rmtree(Path(settings.PRIVATE_ROOT) / "frozen")  # nor were its files written
    args = [competition.slug, phase.task.slug, phase.slug]
    board = client.get(reverse("leaderboard:board", args=args))
    assert board.status_code == 200 and "Official results, frozen" in board.content.decode()
    response = client.get(reverse("leaderboard:frozen_board_json", args=[*args, snapshot.pk]))
    document = json.loads(response.content)
    assert response.status_code == 200 and response["ETag"]
    assert document["procedure"] is None and document["key_digests"] is None
    assert sorted(e["team"] for e in document["entries"]) == ["Fair", "Good", "Poor"]
    assert all(e["card"] is None for e in document["entries"])
