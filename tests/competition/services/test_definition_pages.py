"""Pages, terms and team approval set from a competition definition (YAML)."""

from __future__ import annotations

import pytest

from competition import services
from competition.errors import DefinitionError
from competition.selectors_pages import page_body, team_approval_required

pytestmark = pytest.mark.django_db

DEFINITION = """
slug: codi-pages
title: CODI-CRAC pages
team_approval: true
pages:
  overview: |
    The **overview**.
  terms:
    file: pages/terms.md
tasks:
  - slug: identity
    kind: identity
    title: Task 1
    phases:
      - slug: dev
        kind: development
        title: Development
        start: 2021-04-01T00:00:00Z
        subcorpora:
          - name: LIGHT
            key: light.CONLLUA
"""


@pytest.fixture
def definition(tmp_path, texts):
    (tmp_path / "light.CONLLUA").write_text(texts.key("light"), encoding="utf-8")
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "terms.md").write_text("1. Be fair.\n", encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text(DEFINITION, encoding="utf-8")
    return path


def test_pages_and_team_approval_are_loaded_and_browser_edits_of_unlisted_pages_kept(definition):
    competition = services.competition_load(path=definition).competition
    assert page_body(competition=competition, kind="overview") == "The **overview**."
    assert page_body(competition=competition, kind="terms") == "1. Be fair."
    assert team_approval_required(competition=competition)
    services.pages.page_save(competition=competition, kind="data", body="Edited on the web")
    services.competition_load(path=definition)
    assert page_body(competition=competition, kind="data") == "Edited on the web"


@pytest.mark.parametrize(
    "change,message",
    [
        (("  overview: |", "  faq: |"), "unknown page 'faq'; expected one of overview, evaluation"),
        (
            ("file: pages/terms.md", "file: pages/missing.md"),
            "terms: file pages/missing.md not found",
        ),
        (("team_approval: true", "team_approval: maybe"), "'team_approval' must be true or false"),
        (
            ("    file: pages/terms.md", "    - one"),
            "terms: expected Markdown text or {file: path}",
        ),
    ],
)
def test_bad_pages_are_explained(definition, change, message):
    text = DEFINITION.replace(*change)
    assert text != DEFINITION
    definition.write_text(text, encoding="utf-8")
    with pytest.raises(DefinitionError) as caught:
        services.competition_load(path=definition)
    assert message in caught.value.message and str(definition) in caught.value.message
