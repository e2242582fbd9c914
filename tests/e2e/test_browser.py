"""The participant's path in a real browser: sign up, create a team, upload a run, wait for the
score, find it on the leaderboard; then a screenshot of the board that must not be blank."""

from __future__ import annotations

import base64
import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PIXEL_STATS = """async (dataUrl) => {
  const img = new Image();
  img.src = dataUrl;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const ctx = canvas.getContext("2d");
  ctx.drawImage(img, 0, 0);
  const data = ctx.getImageData(0, 0, img.width, img.height).data;
  const counts = new Map();
  for (let i = 0; i < data.length; i += 4) {
    const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
    counts.set(key, (counts.get(key) || 0) + 1);
  }
  let top = 0;
  for (const n of counts.values()) top = Math.max(top, n);
  return {width: img.width, height: img.height, colours: counts.size,
          dominant: top / (img.width * img.height)};
}"""


def test_sign_up_team_upload_score_and_board(
    page, live_server, make_world, tmp_path, artifacts_dir
):
    world = make_world()
    base = live_server.url
    phase_path = f"/competitions/{world.competition.slug}/{world.task.slug}/{world.phase.slug}"

    page.goto(f"{base}/accounts/signup/")
    page.fill("input[name=username]", "carol")
    page.fill("input[name=password1]", "a-long-passphrase-42")
    page.fill("input[name=password2]", "a-long-passphrase-42")
    page.click("button[type=submit]")
    page.wait_for_selector("text=carol")

    page.goto(f"{base}/competitions/{world.competition.slug}/team/")
    page.fill("input[name='create-name']", "Gamma")
    page.click("text=Create team")
    page.wait_for_selector("h1:has-text('Team Gamma')")

    files = {}
    for slug in ("light", "ami"):
        path = tmp_path / f"{slug.upper()}.CONLLUA"
        path.write_text(world.response_text(slug), encoding="utf-8")
        files[slug] = path
    page.goto(f"{base}{phase_path}/submit/")
    page.set_input_files("input[name=file_light]", str(files["light"]))
    page.set_input_files("input[name=file_ami]", str(files["ami"]))
    page.fill("input[name=run_name]", "browser-run")
    page.click("text=Upload and validate")
    # In the embedded configuration the run is validated and scored inside this request:
    # allow for a loaded CI machine.
    page.wait_for_url(re.compile(r".*/submissions/\d+/$"), timeout=90_000)
    status = page.locator("#submission-status")
    status.and_(page.locator("[data-status=scored]")).wait_for(timeout=90_000)
    submission_id = int(re.search(r"/submissions/(\d+)/", page.url).group(1))

    page.goto(f"{base}{phase_path}/leaderboard/")
    row = page.locator(f"#leaderboard tr[data-submission='{submission_id}']")
    row.wait_for()
    assert "Gamma" in row.inner_text()
    assert row.locator(".lb-rank").inner_text().startswith("1")
    assert page.locator(".lb-chart rect[data-value]").count() >= 1

    page.set_viewport_size({"width": 1200, "height": 800})
    shot = page.screenshot(path=str(artifacts_dir / "leaderboard.png"), full_page=True)
    stats = page.evaluate(PIXEL_STATS, "data:image/png;base64," + base64.b64encode(shot).decode())
    assert stats["width"] >= 1000 and stats["height"] >= 400
    assert stats["colours"] > 50, stats  # text, table lines, bars: many colours
    assert stats["dominant"] < 0.97, stats  # not one colour all over

    page.goto(f"{base}/submissions/{submission_id}/analysis/")
    assert page.locator("#documents tbody tr").count() == 3
    assert page.locator(".lb-chart rect[data-value]").count() >= 3
    page.screenshot(path=str(artifacts_dir / "analysis.png"), full_page=True)
