"""Every main page fits a phone and a laptop: at 390 px and at 1366 px no page scrolls
sideways, every form field has an accessible name, and a keyboard's focus is visible.

Each page is visited as the user who sees it (a visitor, a participant with scored runs, an
organizer, staff); a screenshot of each is kept in test-artifacts/fit-<width>-<name>.png."""

from __future__ import annotations

import pytest

from tests.e2e.helpers import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (390, 1366)

CHECK = """() => {
  const width = window.innerWidth;
  const wide = [...document.querySelectorAll('body *')].filter(el => {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 0.5) return false;
    for (let up = el.parentElement; up; up = up.parentElement) {
      const s = getComputedStyle(up);
      if (['auto', 'scroll', 'hidden'].includes(s.overflowX) && up !== document.body
          && up !== document.documentElement) return false;
    }
    return true;
  }).map(el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
         + (el.className && typeof el.className === 'string' ? '.' + el.className : ''));
  const unnamed = [...document.querySelectorAll('input, select, textarea')].filter(el => {
    if (el.type === 'hidden' || el.type === 'submit' || el.type === 'button') return false;
    const named = (el.labels && el.labels.length && [...el.labels].some(l => l.textContent.trim()))
      || (el.getAttribute('aria-label') || '').trim()
      || (el.getAttribute('aria-labelledby') || '').trim()
      || (el.getAttribute('title') || '').trim();
    return !named;
  }).map(el => el.outerHTML.slice(0, 120));
  return {page: document.documentElement.scrollWidth, width, wide: wide.slice(0, 8), unnamed};
}"""

FOCUS = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const s = getComputedStyle(el);
  const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  return {tag: el.tagName, visible: el.matches(':focus-visible'),
          outline, shadow: s.boxShadow !== 'none'};
}"""


def _world():
    from django.contrib.auth import get_user_model

    from competition import services
    from competition.models import Submission
    from competition.services import cards, pages
    from tests.conftest import build_world

    world = build_world()
    User = get_user_model()
    olga = User.objects.create_user("olga", password="olga-pw-123!")
    User.objects.create_user("sam", password="sam-pw-123!", is_staff=True)
    world.competition.organizers.add(olga)
    pages.page_save(
        competition=world.competition, kind="terms", body="Use the data for research only."
    )
    pages.page_save(
        competition=world.competition,
        kind="overview",
        body="A shared task with a long unbreakable word: "
        "coreference-resolution-in-dialogue-across-many-corpora.",
    )
    cards.card_defaults_set(competition=world.competition)  # the run page's card form
    for user in (world.alice, world.bob):
        pages.terms_accept(competition=world.competition, user=user)
    runs = [
        services.submission_create(
            team=team,
            phase=world.phase,
            user=user,
            files=world.uploads(),
            run_name=f"xlm-roberta-large-finetuned-with-a-long-name-{n}",
        )
        for n, (team, user) in enumerate([(world.alpha, world.alice), (world.beta, world.bob)])
    ]
    for run in runs:
        run.refresh_from_db()
        assert run.status == Submission.Status.SCORED, run.error
    return world, runs


def test_every_main_page_fits_390_and_1366_px_with_labels_and_visible_focus(
    page, live_server, artifacts_dir
):
    world, (a, b) = _world()
    base = live_server.url
    comp = f"/competitions/{world.competition.slug}"
    phase = f"{comp}/{world.task.slug}/{world.phase.slug}"
    edit = f"/edit/{world.competition.slug}"
    visits = {
        None: {
            "home": "/",
            "competition": f"{comp}/",
            "terms": f"{comp}/pages/terms/",
            "phase": f"{phase}/",
            "board": f"{phase}/leaderboard/",
            "boards": f"{comp}/leaderboards/",
            "login": "/accounts/login/",
            "signup": "/accounts/signup/",
            "reset": "/accounts/password/reset/",
        },
        ("alice", "alice-pw-123!"): {
            "submit": f"{phase}/submit/",
            "submissions": f"{phase}/submissions/",
            "run": f"/submissions/{a.pk}/",
            "analysis": f"/submissions/{a.pk}/analysis/",
            "compare-choose": f"/compare/?a={a.pk}",
            "compare": f"/compare/?a={a.pk}&b={b.pk}",
            "team": f"{comp}/team/",
            "password": "/accounts/password/change/",
            "board-member": f"{phase}/leaderboard/",
        },
        ("olga", "olga-pw-123!"): {
            "organize": f"{phase}/organize/",
            "organize-teams": f"{comp}/organize/teams/",
            "teams": f"{comp}/teams/",
            "announcements": f"{comp}/announcements/",
            "page-edit": f"{comp}/pages/overview/edit/",
            "edit": f"{edit}/",
            "edit-task": f"{edit}/{world.task.slug}/",
            "edit-phase": f"{edit}/{world.task.slug}/{world.phase.slug}/",
            "edit-subcorpus": f"{edit}/{world.task.slug}/{world.phase.slug}/light/",
        },
        ("sam", "sam-pw-123!"): {"new-competition": "/new-competition/"},
    }
    problems: list[str] = []
    for user, urls in visits.items():
        page.context.clear_cookies()
        if user is not None:
            log_in(page, base, *user)
        for name, url in urls.items():
            for width in WIDTHS:
                page.set_viewport_size({"width": width, "height": 900})
                response = page.goto(base + url)
                assert response is not None and response.status == 200, (url, response)
                fit = page.evaluate(CHECK)
                page.screenshot(path=str(artifacts_dir / f"fit-{width}-{name}.png"), full_page=True)
                if fit["page"] > fit["width"]:
                    problems.append(
                        f"{name} {url} at {width} px is {fit['page']} px wide: {fit['wide']}"
                    )
                if width == WIDTHS[0] and fit["unnamed"]:
                    problems.append(f"{name} {url}: fields without a label: {fit['unnamed']}")
            page.keyboard.press("Tab")
            focus = page.evaluate(FOCUS)
            if focus is None or not (focus["visible"] and (focus["outline"] or focus["shadow"])):
                problems.append(f"{name} {url}: the keyboard's focus is not visible: {focus}")
    assert problems == [], "\n".join(problems)
