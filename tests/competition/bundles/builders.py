"""Bundles built in the tests from the platforms' formats (docs/bundles.md):
a CodaLab competition.yaml v1.x zip and a Codabench version 2 zip, each with its data items
as zips inside the bundle; and the score rows of a run, to compare two competitions."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile

from competition.scoring import submission_compute
from competition.services.submissions import submission_create
from competition.services.teams import organizer_team_get_or_create
from tests.conftest import KEY_DOCS, RESPONSE_DOCS, conllua

ROOT = Path(__file__).resolve().parents[3]
COREFUD_KEY = (ROOT / "fixtures" / "corefud" / "key" / "en_ami-corefud-test.conllu").read_bytes()
COREFUD_RESPONSE = (
    ROOT / "fixtures" / "corefud" / "previous" / "en_ami-corefud-test.conllu"
).read_bytes()
UA_KEY = conllua(KEY_DOCS["light"]).encode()
UA_RESPONSE = conllua(RESPONSE_DOCS["light"]).encode()


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


CODALAB_YAML = """\
title: CorefUD shared task (old server)
description: Multilingual coreference resolution.
image: logo.png
has_registration: True
end_date: 2027-06-01
competition_docker_image: codalab/codalab-legacy:py3
html:
  overview: overview.html
  evaluation: evaluation.html
  terms: terms.html
  data: data.html
  faq: faq.html
phases:
  1:
    phasenumber: 1
    label: "Development"
    start_date: 2026-01-01
    max_submissions: 50
    max_submissions_per_day: 3
    execution_time_limit: 600
    color: green
    reference_data: reference_dev.zip
    scoring_program: program.zip
    input_data: input_dev.zip
    ingestion_program: ingestion.zip
  2:
    phasenumber: 2
    label: "Test"
    start_date: 2027-01-01
    leaderboard_management_mode: hide_results
    reference_data: reference_dev.zip
    scoring_program: program.zip
    public_data: 3f2b4c1a-9d8e-4f7a-b6c5-1234567890ab
leaderboard:
  leaderboards:
    Results: &RESULTS
      label: Results
      rank: 1
  columns:
    conll:
      leaderboard: *RESULTS
      label: CoNLL F1
      rank: 1
      sort: desc
    mrr:
      leaderboard: *RESULTS
      label: MRR
      rank: 2
      computed:
        operation: MRR
        fields: conll
"""

OVERVIEW = (
    b"<h1>Welcome</h1><p>Resolve <b>coreference</b>. <a href='https://ufal.mff.cuni.cz/"
    b"corefud'>CorefUD</a><script>alert('x')</script></p>"
    b"<p><a href='javascript:alert(1)'>bad</a><img src=x onerror=alert(2)></p>"
)


def codalab_bundle(
    *,
    yaml_text: str = CODALAB_YAML,
    extra: dict[str, bytes] | None = None,
    program: dict[str, bytes] | None = None,
) -> bytes:
    members = {
        "competition.yaml": yaml_text.encode(),
        "overview.html": OVERVIEW,
        "evaluation.html": b"<h2>Evaluation</h2><p>CoNLL F1, head match.</p>",
        "terms.html": b"<p>Use the data for research only.</p>",
        "data.html": b"<ul><li>dev data</li><li>test data</li></ul>",
        "faq.html": b"<p>Ask on the forum.</p>",
        "logo.png": b"\x89PNG fake",
        "reference_dev.zip": zip_bytes({"en_ami-corefud-test.conllu": COREFUD_KEY}),
        "program.zip": zip_bytes(
            program
            or {
                "corefud-scorer.py": b"# never run\n",
                "metadata": b"command: python $program/corefud-scorer.py $input/ref $input/res "
                b"-a head\n",
            }
        ),
        "input_dev.zip": zip_bytes({"en_ami-input.conllu": b"# text = nothing\n"}),
        "ingestion.zip": zip_bytes({"ingest.py": b"print(1)\n"}),
    }
    members.update(extra or {})
    return zip_bytes(members)


CODABENCH_YAML = """\
version: 2
title: Identity anaphora (Codabench)
description: CODI-CRAC identity anaphora.
image: logo.png
terms: pages/terms.md
registration_auto_approve: true
docker_image: codalab/codabench-legacy
pages:
  - title: Overview
    file: pages/overview.md
  - title: Evaluation
    file: pages/evaluation.html
tasks:
  - index: 0
    name: Identity
    scoring_program: scoring_program.zip
    reference_data: reference.zip
    input_data: input.zip
phases:
  - index: 0
    name: Development
    start: 2026-01-01 00:00:00
    end: 2027-01-01 00:00:00
    max_submissions_per_day: 4
    max_submissions: 40
    starting_kit: starting_kit.zip
    tasks: [0]
  - index: 1
    name: Test
    start: 2027-01-02 00:00:00
    tasks: [0]
leaderboards:
  - title: Results
    key: main
    submission_rule: Force_Last
    columns:
      - title: CoNLL
        key: conll
        index: 0
        sorting: desc
      - title: Average rank
        key: avg
        index: 1
        computation: avg
        computation_indexes: [0]
"""


def codabench_bundle(*, key: bytes = UA_KEY, program: dict[str, bytes] | None = None) -> bytes:
    return zip_bytes(
        {
            "competition.yaml": CODABENCH_YAML.encode(),
            "pages/terms.md": b"# Terms\n\nResearch use only.\n",
            "pages/overview.md": b"# Overview\n\nFind **identity** anaphora.\n",
            "pages/evaluation.html": b"<p>Scored with the UA scorer.</p>",
            "logo.png": b"\x89PNG fake",
            "scoring_program.zip": zip_bytes(
                program
                or {
                    "ua-scorer.py": b"# never run\n",
                    "metadata.yaml": b"command: python3 /app/program/ua-scorer.py /app/input/ref "
                    b"/app/input/res\n",
                }
            ),
            "reference.zip": zip_bytes({"light.CONLLUA": key}),
            "input.zip": zip_bytes({"light-input.CONLLUA": b"# global.columns = ID\n"}),
            "starting_kit.zip": zip_bytes({"README.txt": b"how to submit\n"}),
        }
    )


def score_rows(phase, files: dict[str, tuple[str, bytes]]) -> list[tuple]:
    """Every score row of one organizer run of ``phase`` ({sub-corpus name: (file name,
    content)}), as comparable tuples: dataset, mode, metric, document, R, P, F1, counts."""
    team = organizer_team_get_or_create(competition=phase.task.competition)
    subcorpora = {sub.name: sub for sub in phase.subcorpora.all()}
    submission = submission_create(
        team=team,
        phase=phase,
        user=None,
        is_baseline=True,
        files={subcorpora[n].slug: SimpleUploadedFile(*file) for n, file in files.items()},
    )
    names = {sub.pk: name for name, sub in subcorpora.items()}
    return sorted(
        (
            names[v.subcorpus_id],
            v.row.mode,
            v.row.metric,
            v.row.document or "",
            v.row.recall,
            v.row.precision,
            v.row.f1,
            repr(v.row.counts),
        )
        for v in submission_compute(submission=submission).scores
    )
