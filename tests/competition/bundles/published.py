"""Bundles laid out as the platforms' own published example bundles are, built here.

SOURCE: the layouts of codalab/competition-examples (read at commit c3e7451; the published
files themselves are not in this repository: each bundle below is written by these builders
with its own text and data, reproducing the example's layout):

- `codabench_crac` mirrors ``codabench/wheat_seeds/results_submission_bundle``: ``version: 2``,
  every item a folder (``dev_phase/reference_data/``, ``scoring_program/``, ``starting_kit``,
  ``public_data``), dates month-day-year (``start: 1-1-2026``, ``end: 12-31-2026``, the last
  phase without an end), ``pages`` in Markdown, ``solutions``, ``submission_rule:
  "Force_Last"``, the zip's folder entries and its ``__MACOSX``/``.DS_Store`` litter; its
  keys, program and leaderboard are a CRAC organizer's (CorefUD keys, the CorefUD scorer).
- `codabench_iris` mirrors ``codabench/iris/bundle``: ``reference_data: reference_data/valid``
  (a folder inside a folder), HTML pages, an ingestion program (code submissions),
  ``start: 1-1-2026 # Month/Day/Year``, leaderboard columns with ``computation: null``.
- `codabench_mini` mirrors ``codabench/Mini-MNIST/Mini-MNIST-Bundle``: ISO dates
  (``start: 2026-01-01``), ``tasks`` written after ``phases``, folder items with a trailing
  slash, ``Force_Latest_Multiple``.
- `codalab_crac` mirrors ``codalab/Iris/iris_competition_bundle`` (CodaLab v1.5): every item a
  zip at the root, ``start_date: 2026-01-15 18:53:00+00:00``, ``end_date`` a date, phases keyed
  by number with ``color``, ``execution_time_limit``, ``is_scoring_only``, the leaderboard with
  a YAML alias (``&RESULTS``) and ``numeric_format``; its keys and program are a CRAC
  organizer's (CorefUD keys; a wrapper ``evaluate.py`` beside ``corefud-scorer.py``).
- `codalab_compute_pi` mirrors ``codalab/Compute_pi/compute_pi_competition_bundle``: date-only
  ``start_date: 2013-06-30``, an empty ``end_date:``, three phases sharing ``program.zip`` and
  ``reference.zip``, ``public_data``/``starting_kit``/``input_data`` zips,
  ``terms_and_conditions.html``, a zip inside ``reference.zip``.

`results_csv_codalab` is a CodaLab per-phase results CSV and `results_csv_codabench` a
Codabench leaderboard export of these competitions (`docs/bundles.md`).
"""

from __future__ import annotations

import io
import zipfile

from tests.competition.bundles.builders import COREFUD_KEY, ROOT, zip_bytes

GUM_KEY = (ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu").read_bytes()
AMI_KEY = COREFUD_KEY
LITTER = {"__MACOSX/dev_phase/._.DS_Store": b"\x00\x05", "dev_phase/.DS_Store": b"\x00"}


def folder_zip(members: dict[str, bytes]) -> bytes:
    """A zip as a Mac's "Compress" writes a bundle folder: an entry for every folder."""
    buffer = io.BytesIO()
    folders: set[str] = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            parts = name.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                folder = "/".join(parts[:depth]) + "/"
                if folder not in folders and not folder.startswith("__MACOSX"):
                    folders.add(folder)
                    zf.writestr(folder, b"")
            zf.writestr(name, data)
    return buffer.getvalue()


COREFUD_COMMAND = "python3 $program/corefud-scorer.py $input/ref $input/res"

CODABENCH_CRAC_YAML = """\
# Main settings of the competition
version: 2
title: CRAC 2026 Shared Task on Multilingual Coreference Resolution
description: Coreference resolution on CorefUD, one file per dataset
image: logo.png
registration_auto_approve: False  # the organizers approve each team
docker_image: codalab/codalab-legacy:py312

terms: pages/terms.md
pages:
  - title: Overview
    file: pages/overview.md
  - title: Evaluation
    file: pages/evaluation.md
  - title: Timeline
    file: pages/timeline.md

tasks:
  - index: 0
    name: CorefUD Development Task
    description: 'Development data of two datasets'
    reference_data: dev_phase/reference_data/
    scoring_program: scoring_program/
  - index: 1
    name: CorefUD Final Task
    description: 'Test data of the same datasets'
    reference_data: final_phase/reference_data/
    scoring_program: scoring_program/

solutions:
  - index: 0
    tasks:
    - 0
    path: solution/baseline

phases:
  - index: 0
    name: Development Phase
    description: 'Development phase: tune your systems.'
    start: 1-1-2026
    end: 12-31-2026
    tasks:
      - 0
    starting_kit: starting_kit
    public_data: public_data
  - index: 1
    name: Evaluation Phase
    description: 'Final phase: the test data.'
    max_submissions: 3
    start: 1-1-2027
    # never ends
    tasks:
      - 1

leaderboards:
  - title: Results
    key: main
    submission_rule: "Force_Last"
    columns:
      - title: en_gum CoNLL F1
        key: en_gum_conll
        index: 0
        sorting: desc
      - title: en_ami CoNLL F1
        key: en_ami_conll
        index: 1
        sorting: desc
"""


def codabench_crac(*, command: str = f"{COREFUD_COMMAND} -s", yaml_text: str = "") -> bytes:
    """A CRAC organizer's Codabench bundle, laid out as ``wheat_seeds`` is (see the module)."""
    return folder_zip(
        {
            "competition.yaml": (yaml_text or CODABENCH_CRAC_YAML).encode(),
            "dev_phase/reference_data/en_gum-corefud-dev.conllu": GUM_KEY,
            "dev_phase/reference_data/en_ami-corefud-dev.conllu": AMI_KEY,
            **LITTER,
            "final_phase/reference_data/en_gum-corefud-test.conllu": GUM_KEY,
            "final_phase/reference_data/en_ami-corefud-test.conllu": AMI_KEY,
            "pages/overview.md": b"# Overview\n\nFind the entities of each document.\n",
            "pages/evaluation.md": b"# Evaluation\n\nCoNLL F1, head match.\n",
            "pages/timeline.md": b"# Timeline\n\n## Development phase\n\nFrom January.\n",
            "pages/terms.md": b"# Terms\n\nResearch use only.\n",
            "public_data/README.md": b"The development data is on the CorefUD site.\n",
            "scoring_program/metadata.yaml": f"command: {command}\n".encode(),
            "scoring_program/corefud-scorer.py": b"# never run\n",
            "solution/baseline/en_gum-corefud-dev.conllu": b"# a run\n",
            "starting_kit/README.md": b"Submit one CoNLL-U file per dataset.\n",
            "logo.png": b"\x89PNG fake",
        }
    )


CODABENCH_IRIS_YAML = """\
version: 2 # this means that it is a Codabench bundle
title: Iris
description: A classic classification data set.
image: logo.png
registration_auto_approve: True
docker_image: codalab/codalab-legacy:py312
terms: pages/terms.html
pages:
  - title: Overview
    file: pages/overview.html
  - title: Data
    file: pages/data.html
  - title: Evaluation
    file: pages/evaluation.html
tasks:
- index: 0
  name: Development Task
  description: 'Development phase: feed-back on the validation set.'
  is_public: false
  input_data: input_data
  reference_data: reference_data/valid
  scoring_program: scoring_program
  ingestion_program: ingestion_program
- index: 1
  name: Final Task
  description: 'Final phase: the test set.'
  is_public: false
  input_data: input_data
  reference_data: reference_data/test
  scoring_program: scoring_program
  ingestion_program: ingestion_program
solutions: []
phases:
- index: 0
  name: Development
  description: 'Development phase.'
  start: 1-1-2026 # Month/Day/Year
  end: 12-31-2026
  max_submissions_per_day: 5
  max_submissions: 100
  execution_time_limit: 500
  tasks:
  - 0
  starting_kit: starting_kit
  public_data: input_data
- index: 1
  name: Final
  description: 'Final phase.'
  start: 1-1-2027 # Never ends
  max_submissions_per_day: 5
  max_submissions: 100
  execution_time_limit: 500
  tasks:
  - 1
leaderboards:
- index: 0
  title: Results
  key: Results
  columns:
  - title: Prediction score
    key: set1_score
    index: 0
    sorting: desc
    computation: null
    computation_indexes: null
  - title: Duration
    key: Duration
    index: 1
    sorting: desc
    computation: null
    computation_indexes: null
"""


def codabench_iris() -> bytes:
    """A code-submission competition laid out as Codabench's ``iris`` (see the module)."""
    return folder_zip(
        {
            "competition.yaml": CODABENCH_IRIS_YAML.encode(),
            "ingestion_program/metadata": b"command: python $ingestion_program/ingestion.py\n",
            "ingestion_program/ingestion.py": b"# never run\n",
            "input_data/iris_train.data": b"5.1 3.5 1.4 0.2\n",
            "input_data/iris_valid.data": b"4.9 3.0 1.4 0.2\n",
            "pages/overview.html": b"<h1>Iris</h1><p>Three classes of <b>50</b> plants.</p>",
            "pages/data.html": b"<p>Four features.</p>",
            "pages/evaluation.html": (
                b"<h1>Evaluation</h1><ul><li>Phase 1</li><li>Phase 2</li></ul>"
            ),
            "pages/terms.html": b"<p>No restriction.</p>",
            "reference_data/valid/iris_valid.solution": b"0\n1\n",
            "reference_data/test/iris_test.solution": b"2\n1\n",
            "scoring_program/metadata": b"command: python $program/score.py $input $output\n",
            "scoring_program/score.py": b"# never run\n",
            "starting_kit/README.md": b"Submit predictions.\n",
            "logo.png": b"\x89PNG fake",
        }
    )


CODABENCH_MINI_YAML = """\
version: 2
title: Mini Digit Classification
description: A small classification challenge.
image: logo.png
registration_auto_approve: True
docker_image: codalab/codalab-legacy:py312

terms: pages/terms.md
pages:
  - title: Overview
    file: pages/overview.md

phases:
  - index: 0
    name: Competition Phase
    description: Predict the test labels.
    start: 2026-01-01
    end: 2027-01-01
    tasks:
      - 0

tasks:
  - index: 0
    name: Classification Task
    description: Classify the test images.
    input_data: input_data/
    reference_data: reference_data/
    scoring_program: scoring_program/
    ingestion_program: ingestion_program/

leaderboards:
  - index: 0
    title: Results
    key: main_leaderboard
    submission_rule: "Force_Latest_Multiple"
    columns:
      - index: 0
        title: Accuracy
        key: score
"""


def codabench_mini() -> bytes:
    """Laid out as Codabench's ``Mini-MNIST`` bundle (see the module)."""
    return folder_zip(
        {
            "competition.yaml": CODABENCH_MINI_YAML.encode(),
            "ingestion_program/metadata.yaml": b"command: python3 run_ingestion.py\n",
            "ingestion_program/run_ingestion.py": b"# never run\n",
            "input_data/test_labels_hidden.csv": b"id\n1\n",
            "pages/overview.md": b"# Overview\n\nFifty images.\n",
            "pages/terms.md": b"# Terms\n\nNone.\n",
            "reference_data/test_labels.csv": b"id,label\n1,7\n",
            "scoring_program/metadata.yaml": b"command: python3 run_scoring.py\n",
            "scoring_program/run_scoring.py": b"# never run\n",
            "logo.png": b"\x89PNG fake",
        }
    )


CODALAB_CRAC_YAML = """\
# Competition YAML file : general challenge definition and settings
title: CRAC 2025 Shared Task on Multilingual Coreference Resolution
admin_names: crac-organizer,corefud
allow_public_submissions: true
allow_teams: true
anonymous_leaderboard: false
description: Coreference resolution on CorefUD 1.3.
start_date: 2026-01-15 18:53:00+00:00
competition_docker_image: 'codalab/codalab-legacy:py37'
disallow_leaderboard_modifying: true
enable_detailed_results: true
enable_forum: true
enable_per_submission_metadata: false
end_date: 2027-06-30
force_submission_to_leaderboard: true
has_registration: true
show_datasets_from_yaml: true

# Documentation pages
html:
  data: data.html
  evaluation: evaluation.html
  overview: overview.html
  terms: terms.html
  faq: faq.html
image: logo.png

# Phases
phases:
  # Development
  1:
    color: green
    description: 'Development phase: feed-back on the development data.'
    execution_time_limit: 500
    is_scoring_only: true
    label: Development
    max_submissions: 100
    max_submissions_per_day: 15
    phasenumber: 1
    public_data: public_data.zip
    reference_data: reference_data_dev.zip
    scoring_program: scoring_program.zip
    start_date: 2026-01-15 18:53:00+00:00 # YYYY-MM-DD
    starting_kit: starting_kit.zip
  # Evaluation
  2:
    color: purple
    description: 'Evaluation phase: the test data.'
    execution_time_limit: 500
    is_scoring_only: true
    label: Evaluation
    max_submissions: 5
    max_submissions_per_day: 2
    phasenumber: 2
    reference_data: reference_data_test.zip
    scoring_program: scoring_program.zip
    start_date: 2026-06-01 00:00:00+00:00 # YYYY-MM-DD

# Leaderboard
leaderboard:
  leaderboards:
    Results: &RESULTS
        label: Results
        rank: 1
  columns:
    avg_conll:
      label: Average CoNLL F1
      leaderboard: *RESULTS
      numeric_format: 2
      rank: 1
      computed:
        operation: Avg
        fields: en_gum_conll, en_ami_conll
    en_gum_conll:
      label: en_gum CoNLL F1
      leaderboard: *RESULTS
      numeric_format: 2
      rank: 2
    en_ami_conll:
      label: en_ami CoNLL F1
      leaderboard: *RESULTS
      numeric_format: 2
      rank: 3
"""

FAQ_HTML = b"<h1>FAQ</h1><p>Ask on the mailing list.</p>"
RESULTS_TABLE_HTML = (
    b"<h2>Results of 2024</h2><table><tr><th>Team</th><th>CoNLL F1</th></tr>"
    b"<tr><td>CorPipe</td><td>73.90</td></tr></table>"
)


def codalab_crac(*, command: str = "python $program/evaluate.py $input $output") -> bytes:
    """A CRAC organizer's CodaLab bundle, laid out as CodaLab's ``Iris`` (see the module):
    a wrapper script beside the CorefUD scorer, as CRAC's programs call it per dataset."""
    return zip_bytes(
        {
            "competition.yaml": CODALAB_CRAC_YAML.encode(),
            "reference_data_dev.zip": zip_bytes(
                {"en_gum-corefud-dev.conllu": GUM_KEY, "en_ami-corefud-dev.conllu": AMI_KEY}
            ),
            "reference_data_test.zip": zip_bytes(
                {"en_gum-corefud-test.conllu": GUM_KEY, "en_ami-corefud-test.conllu": AMI_KEY}
            ),
            "scoring_program.zip": zip_bytes(
                {
                    "metadata": f"command: {command}\ndescription: CRAC scoring\n".encode(),
                    "evaluate.py": b"# calls corefud-scorer.py on each dataset; never run\n",
                    "corefud-scorer.py": b"# never run\n",
                }
            ),
            "public_data.zip": zip_bytes({"README.txt": b"Data: see the CorefUD site.\n"}),
            "starting_kit.zip": zip_bytes({"README.txt": b"One file per dataset.\n"}),
            "overview.html": b"<h1>CRAC 2025</h1><p>Coreference in <b>22</b> datasets.</p>"
            + RESULTS_TABLE_HTML,
            "evaluation.html": b"<h1>Evaluation</h1><p>Head match, singletons excluded.</p>",
            "data.html": b"<p>CorefUD 1.3.</p>",
            "terms.html": b"<p>Research use.</p>",
            "faq.html": FAQ_HTML,
            "logo.png": b"\x89PNG fake",
        }
    )


CODALAB_PI_YAML = """\
# Build an example competition
---
title: Compute Pi Competition
description: This is a competition about computing pi.
image: logo.jpg
has_registration: True
force_submission_to_leaderboard: True
end_date:
html:
    overview: overview.html
    evaluation: evaluation.html
    terms: terms_and_conditions.html
    data: data.html
phases:
    1:
        phasenumber: 1
        label: "Development"
        start_date: 2013-06-30
        max_submissions: 100
        is_scoring_only: False
        scoring_program: program.zip
        reference_data: reference.zip
        public_data: dataset.zip
        starting_kit: submission.zip
    2:
        phasenumber: 2
        label: "Feed-back"
        start_date: 2013-08-30
        max_submissions: 3
        is_scoring_only: False
        scoring_program: program.zip
        reference_data: reference.zip
        input_data: dataset.zip
    3:
        phasenumber: 3
        label: "Final test"
        start_date: 2013-09-30
        max_submissions: 3
        is_scoring_only: False
        scoring_program: program.zip
        reference_data: reference.zip
        input_data: dataset.zip

leaderboard:
    leaderboards:
        Results: &RESULTS
            label: Results
            rank: 1
    columns:
        Difference:
            leaderboard: *RESULTS
            label: Difference
            numeric_format: 6
            rank: 1
"""


def codalab_compute_pi() -> bytes:
    """Laid out as CodaLab's ``Compute_pi`` bundle (see the module)."""
    return zip_bytes(
        {
            "evaluation.html": b"<p>The difference to pi.</p>",
            "program.zip": zip_bytes(
                {"metadata": b"command: python $program/evaluate.py $input $output\n"}
            ),
            "overview.html": b"<p>Compute pi.</p>",
            "submission.zip": zip_bytes({"pi.txt": b"3.14\n"}),
            "data.html": b"<p>No data.</p>",
            "reference.zip": zip_bytes(
                {
                    "reference_wrong.zip": zip_bytes({"pi.txt": b"3.0\n"}),
                    "answer.txt": b"3.14159265\n",
                }
            ),
            "logo.jpg": b"\xff\xd8 fake",
            "terms_and_conditions.html": b"<p>Be nice.</p>",
            "dataset.zip": zip_bytes({"readme.md": b"nothing\n"}),
            "competition.yaml": CODALAB_PI_YAML.encode(),
        }
    )


def results_csv_codalab(values: dict[str, tuple[float, float]]) -> str:
    """CodaLab's per-phase results CSV of `codalab_crac`: {user: (en_gum, en_ami)} in
    percent, "value (rank)" cells, the computed average first as the leaderboard shows it."""
    lines = [
        "Results",
        "submission_pk,User,Average CoNLL F1,en_gum CoNLL F1,en_ami CoNLL F1",
    ]
    ranked = sorted(values.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for rank, (user, (gum, ami)) in enumerate(ranked, start=1):
        lines.append(
            f'{900 + rank},{user},"{(gum + ami) / 2:.2f} ({rank})","{gum:.2f} ({rank})",'
            f'"{ami:.2f} ({rank})"'
        )
    return "\n".join(lines) + "\n"


def results_csv_codabench(values: dict[str, tuple[float, float]]) -> str:
    """Codabench's leaderboard export of `codabench_crac`: plain fractions."""
    lines = ["#,Username,en_gum CoNLL F1,en_ami CoNLL F1"]
    for rank, (user, (gum, ami)) in enumerate(values.items(), start=1):
        lines.append(f"{rank},{user},{gum / 100:.4f},{ami / 100:.4f}")
    return "\n".join(lines) + "\n"
