"""Bundles laid out as the platforms' published examples are (`published`: folder items,
month-day-year dates, zips at the root, CodaLab's aware datetimes) import as drafts, with
the datasets named as the platforms name them and the same in every phase, and the report
saying how each date, program and page was read."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition.bundles.dates import NotADate, bundle_date
from competition.bundles.names import dataset_name, plural, short_slug
from competition.definition.bundle_import import bundle_import
from competition.errors import CompetitionError
from competition.models import Phase, PhaseDataFile
from competition.services import competition_load
from tests.competition.bundles import published
from tests.competition.bundles.builders import score_rows

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


def imported(tmp_path: Path, data: bytes, name: str = "bundle.zip"):
    path = tmp_path / name
    path.write_bytes(data)
    return bundle_import(path=path, owner="olga")


def datasets(phase) -> list[tuple[str, str]]:
    return list(phase.subcorpora.order_by("name").values_list("name", "language"))


@pytest.mark.parametrize(
    ("value", "end", "expected"),
    [
        ("1-1-2026", False, datetime(2026, 1, 1, tzinfo=UTC)),
        ("12-31-2026", True, datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC)),
        ("12/31/2026 18:30", True, datetime(2026, 12, 31, 18, 30, tzinfo=UTC)),
        ("1-15-2026 08:05:09", False, datetime(2026, 1, 15, 8, 5, 9, tzinfo=UTC)),
        ("2026-01-01", True, datetime(2026, 1, 1, 23, 59, 59, tzinfo=UTC)),
        ("2026-01-01 00:00:00", True, datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T10:00:00Z", False, datetime(2026, 1, 1, 10, tzinfo=UTC)),
        (date(2013, 6, 30), False, datetime(2013, 6, 30, tzinfo=UTC)),
        (date(2013, 6, 30), True, datetime(2013, 6, 30, 23, 59, 59, tzinfo=UTC)),
        (datetime(2020, 1, 15, 18, 53), True, datetime(2020, 1, 15, 18, 53, tzinfo=UTC)),
    ],
)
def test_dates_read_as_each_platform_writes_them(value, end, expected):
    assert bundle_date(value, end=end).moment == expected


@pytest.mark.parametrize("value", ["31-12-2026", "2026-13-01", "2-30-2026", "next monday"])
def test_what_is_not_a_date_is_refused(value):
    with pytest.raises(NotADate):
        bundle_date(value)


@pytest.mark.parametrize(
    ("stem", "expected"),
    [
        ("en_gum-corefud-test", ("en_gum", "English")),
        ("cs_pdt-corefud-dev", ("cs_pdt", "Czech")),
        ("grc_proiel-corefud-minitest", ("grc_proiel", "Ancient Greek")),
        ("xx_new-corefud-train", ("xx_new", "xx")),
        ("AMI_dev", ("AMI", "")),
        ("light", ("light", "")),
        ("Switchboard_3_test", ("Switchboard_3", "")),
    ],
)
def test_dataset_names_drop_the_split(stem, expected):
    assert dataset_name(stem) == expected


def test_short_slug_and_plurals():
    assert short_slug("CorefUD shared task (old server)") == "corefud-shared-task"
    assert (
        short_slug("CRAC 2026 Shared Task on Multilingual Coreference Resolution")
        == "crac-2026-shared-task"
    )
    assert (plural(1, "gold key"), plural(2, "gold key")) == ("1 gold key", "2 gold keys")


def test_codabench_bundle_with_folder_items_and_month_first_dates(tmp_path):
    result = imported(tmp_path, published.codabench_crac())
    competition = result.competition
    assert (result.dialect, competition.slug) == ("codabench", "crac-2026-shared-task")
    assert competition.participation_rules.team_approval is True
    task = competition.tasks.get()
    dev, final = task.phases.order_by("order")
    assert (dev.start, dev.end) == (
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC),
    )
    assert (final.start, final.end, final.total_limit) == (
        datetime(2027, 1, 1, tzinfo=UTC),
        None,
        3,
    )
    # The same datasets in both phases, named as CorefUD names them, with their language.
    assert datasets(dev) == datasets(final) == [("en_ami", "English"), ("en_gum", "English")]
    # Folders given as participant data are zipped, as Codabench does.
    assert sorted(PhaseDataFile.objects.filter(phase=dev).values_list("file_name", flat=True)) == [
        "public_data.zip",
        "starting_kit.zip",
    ]
    lines = {
        section: "\n".join(getattr(result.report, section))
        for section in ("imported", "proposed", "not_imported")
    }
    assert "2026-12-31 has no time: read as 23:59:59 UTC (phases[0].end)" in lines["imported"]
    assert (
        "Registration: teams need the organizers' approval (registration_auto_approve: False)"
        in lines["imported"]
    )
    assert "2 gold keys: en_ami (English), en_gum (English)" in lines["imported"]
    assert ".DS_Store" not in lines["not_imported"] and "MACOSX" not in lines["not_imported"]
    assert "Force_Last" in lines["not_imported"]


def test_codabench_code_submission_bundle_says_so_in_one_line(tmp_path):
    result = imported(tmp_path, published.codabench_iris())
    competition = result.competition
    code = [line for line in result.report.not_imported if "code submissions" in line]
    assert len(code) == 1 and "Development, Final" in code[0]
    dev, final = competition.tasks.get().phases.order_by("order")
    assert (dev.start, dev.end) == (
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 12, 31, 23, 59, 59, tzinfo=UTC),
    )
    assert not dev.subcorpora.exists()
    assert any(
        "reference data reference_data/valid holds no key file" in line
        for line in result.report.not_imported
    )
    pages = dict(competition.pages.values_list("kind", "body"))
    assert pages["overview"].startswith("# Iris") and "**50**" in pages["overview"]
    assert "- Phase 1\n- Phase 2" in pages["evaluation"]
    # The same folder given as input data and public data is attached once.
    assert sorted(PhaseDataFile.objects.filter(phase=dev).values_list("file_name", flat=True)) == [
        "input_data.zip",
        "starting_kit.zip",
    ]


def test_codabench_iso_dates_and_tasks_after_phases(tmp_path):
    result = imported(tmp_path, published.codabench_mini())
    phase = result.competition.tasks.get().phases.get()
    assert (phase.start, phase.end) == (
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2027, 1, 1, 23, 59, 59, tzinfo=UTC),
    )
    assert any("Force_Latest_Multiple" in line for line in result.report.not_imported)


def test_codalab_bundle_of_a_crac_organizer(tmp_path):
    result = imported(tmp_path, published.codalab_crac())
    competition = result.competition
    task = competition.tasks.get()
    assert (task.kind, task.procedure) == ("corefud", "crac-2025")
    dev, evaluation = task.phases.order_by("order")
    assert dev.start == datetime(2026, 1, 15, 18, 53, tzinfo=UTC)
    assert dev.end == evaluation.start == datetime(2026, 6, 1, tzinfo=UTC)
    assert evaluation.end == datetime(2027, 6, 30, 23, 59, 59, tzinfo=UTC)
    assert datasets(dev) == datasets(evaluation) == [("en_ami", "English"), ("en_gum", "English")]
    overview = competition.pages.get(kind="overview").body
    # The FAQ page opens with its own heading: one heading, not "Faq" then "FAQ".
    assert overview.count("FAQ") == 1 and "## FAQ" in overview and "Faq" not in overview
    assert "| Team | CoNLL F1 |\n| --- | --- |\n| CorPipe | 73.90 |" in overview
    proposed = "\n".join(result.report.proposed)
    assert "the scorer's defaults are assumed" in proposed
    assert "end 2027-06-30 23:59:59 UTC, proposed from the competition's end_date" in proposed
    subjects = {line.subject for line in result.report.imported}
    assert {"Phase Development", "Phase Evaluation", "Registration"} <= subjects
    # YAML paths are apart from the phase names.
    line = next(x for x in result.report.not_imported if "execution_time_limit" in x)
    assert (line.subject, line.path) == ("Phase Development", "phases.1.execution_time_limit")


def test_codalab_example_with_three_phases_and_no_end(tmp_path):
    result = imported(tmp_path, published.codalab_compute_pi())
    phases = list(result.competition.tasks.get().phases.order_by("order"))
    assert [p.title for p in phases] == ["Development", "Feed-back", "Final test"]
    assert [p.start for p in phases] == [
        datetime(2013, 6, 30, tzinfo=UTC),
        datetime(2013, 8, 30, tzinfo=UTC),
        datetime(2013, 9, 30, tzinfo=UTC),
    ]
    assert phases[0].end == phases[1].start and phases[2].end is None
    assert any("not recognised" in line for line in result.report.not_imported)
    assert "Data item reference.zip: reference_wrong.zip: a zip inside it, not opened" in (
        result.report.not_imported
    )


def test_a_yaml_naming_no_file_nor_folder_is_refused(tmp_path):
    text = published.CODABENCH_CRAC_YAML.replace("dev_phase/reference_data/", "dev_phase/missing/")
    with pytest.raises(
        CompetitionError, match=r"tasks\[0\].reference_data.*neither a file nor a folder"
    ):
        imported(tmp_path, published.codabench_crac(yaml_text=text))


HAND_MADE = """\
slug: hand-made
title: Hand made
organizers: [olga]
tasks:
  - slug: coreference
    kind: corefud
    title: CorefUD
    {scoring}
    phases:
      - slug: test
        kind: test_predicted
        title: Test
        start: 2026-01-01T00:00:00Z
        subcorpora:
          - name: en_gum
            key: en_gum-corefud-test.conllu
          - name: en_ami
            key: en_ami-corefud-test.conllu
"""
RUN = {
    "en_gum": (published.ROOT / "fixtures/corefud/string-match/en_gum-corefud-test.conllu"),
    "en_ami": (published.ROOT / "fixtures/corefud/previous/en_ami-corefud-test.conllu"),
}


def scored(phase) -> list[tuple]:
    """Every score row of one run of both datasets in ``phase`` (the run is the same files)."""
    return score_rows(
        phase,
        {name: (f"{name}-corefud-test.conllu", path.read_bytes()) for name, path in RUN.items()},
    )


@pytest.mark.parametrize("platform", ["codabench", "codalab"])
def test_a_crac_bundle_scores_a_run_as_a_hand_made_competition(tmp_path, platform):
    if platform == "codabench":  # corefud-scorer.py ... -s: the command's own options
        bundle = published.codabench_crac()
        scoring = (
            "scorer_options: [-f, corefud, -m, all, -a, head, -z, --zero-match-method, "
            "dependent, -s]"
        )
    else:  # a wrapper beside corefud-scorer.py: its defaults, CRAC 2025's procedure
        bundle = published.codalab_crac()
        scoring = "procedure: crac-2025"
    ours = imported(tmp_path, bundle).competition.tasks.get().phases.order_by("order").last()
    folder = tmp_path / "hand"
    folder.mkdir()
    (folder / "en_gum-corefud-test.conllu").write_bytes(published.GUM_KEY)
    (folder / "en_ami-corefud-test.conllu").write_bytes(published.AMI_KEY)
    (folder / "c.yaml").write_text(HAND_MADE.format(scoring=scoring), encoding="utf-8")
    competition_load(path=folder / "c.yaml", with_baselines=False)
    hand = Phase.objects.get(task__competition__slug="hand-made", slug="test")
    expected = scored(hand)
    got = scored(ours)
    assert got == expected
    assert {row[0] for row in got} == {"en_gum", "en_ami"}
    conll = [row for row in got if row[1] == "task" and row[2] == "conll" and not row[3]]
    assert len(conll) == 2 and all(0 < row[6] < 1 for row in conll)
