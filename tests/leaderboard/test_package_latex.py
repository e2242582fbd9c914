"""The results package's LaTeX compiles as a paper would use it (``booktabs``, ``graphicx``
and ``\\input`` of each table), and a phase of 27 datasets gives tables that fit the page:
split in parts, cut between languages, no line overfull. Skipped where ``pdflatex`` is not
installed (Debian/Ubuntu: ``apt-get install texlive-latex-base texlive-latex-recommended``)."""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile

import pytest
from django.urls import reverse

from competition.models import SubCorpus, Track
from competition.services import cards

PDFLATEX = shutil.which("pdflatex")
LANGUAGES = ["Czech"] * 4 + ["English"] * 5 + ["German"] * 3 + ["Polish"] * 6 + ["Turkish"] * 9


@pytest.fixture
def package(make, client):
    organizer = make.user("org")
    competition = make.competition(slug="crac", organizers=[organizer])
    task = make.task(competition, slug="coref")
    task.procedure = "crac-2026"
    task.save()
    track = Track.objects.create(task=task, slug="llm", name="LLM & co", order=0)
    slugs = [f"{lang[:2].lower()}_bokmaalnarc{i}" for i, lang in enumerate(LANGUAGES)]
    phase = make.phase(task, kind="test_predicted", slug="test", subcorpora=slugs)
    for slug, language in zip(slugs, LANGUAGES, strict=True):
        SubCorpus.objects.filter(phase=phase, slug=slug).update(language=language)
    cards.card_defaults_set(competition=competition, required=False)
    for i, name in enumerate(("ÚFAL_CorPipe", "Team #2", "100% Heuristic")):
        run = make.run_every_mode(
            phase,
            make.team(competition, name),
            {slug: 0.5 + 0.01 * i + 0.001 * n for n, slug in enumerate(slugs) if n != i},
            procedure="crac-2026",
            track=track,
        )
        cards.card_answers_save(
            submission=run, answers={"llm": "yes", "base-model": "mT5-xl", "adaptation": "few-shot"}
        )
    client.force_login(organizer)
    response = client.get(
        reverse("leaderboard:results_package", args=[competition.slug, task.slug, phase.slug])
    )
    assert response.status_code == 200
    return zipfile.ZipFile(io.BytesIO(response.content))


def test_a_wide_phase_is_split_between_languages(package):
    tex = package.read("llm/task.tex").decode()
    # Czech | English | German | Polish | Turkish (7) | Turkish (2) | the summary
    assert tex.count("\\begin{table}") == 7
    assert "(part 1 of 7)" in tex and "(part 7 of 7)" in tex
    parts = tex.split("\\begin{table}")[1:]
    heads = [next(line for line in p.splitlines() if line.startswith("\\#")) for p in parts]
    assert "bokmaalnarc3}" in heads[0] and "bokmaalnarc4}" not in heads[0]
    assert "bokmaalnarc4}" in heads[1] and "bokmaalnarc8}" in heads[1]
    assert "bokmaalnarc24}" in heads[4] and "bokmaalnarc25}" in heads[5]
    assert "Avg." in heads[-1] and "llm" in heads[-1] and "Avg." not in heads[0]
    assert "\\label{tab:crac-coref-test-llm-task-1}" in tex
    readme = package.read("README.txt").decode()
    assert "\\usepackage{booktabs}" in readme and "\\usepackage{graphicx}" in readme


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (see the docstring)")
def test_the_latex_compiles_and_fits_the_page(package, tmp_path):
    inputs = []
    for name in package.namelist():
        if name.endswith(".tex"):
            target = tmp_path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(package.read(name))
            inputs.append(f"\\input{{{name}}}\n\\clearpage")
    assert len(inputs) == 1 + 3 + 10  # task, three variants, ten empty-node measures
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n"
        + "\n".join(inputs)
        + "\n\\end{document}\n"
    )
    done = subprocess.run(
        [PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert done.returncode == 0, log[-2000:]
    assert "Overfull \\hbox" not in log, [x for x in log.splitlines() if "Overfull" in x][:5]
    assert (tmp_path / "paper.pdf").stat().st_size > 0
