"""Accounts and teams in a real browser: reset a forgotten password from the mail's link,
change it, rename the team, see the invite code, remove a member (captain), leave."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.e2e.helpers import WIDTH, log_in, log_out, part_shot, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_forgotten_password_is_reset_from_the_mail_then_changed(
    page, live_server, make_world, artifacts_dir
):
    world = make_world()
    world.alice.email = "alice@example.org"
    world.alice.save()
    base = live_server.url
    page.set_viewport_size({"width": WIDTH, "height": 900})

    page.goto(f"{base}/accounts/login/")
    page.click("text=Reset it")
    page.fill("input[name=email]", "alice@example.org")
    shot(page, artifacts_dir, "password-reset-form")
    page.click("button:has-text('Send the reset link')")
    page.wait_for_selector("h1:has-text('Check your mail')")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.org"]
    link = re.search(r"https?://\S+/accounts/password/reset/\S+/", message.body).group(0)
    assert link.startswith(base)  # the mail names the host and port the site is served on

    page.goto(link)
    page.fill("input[name=new_password1]", "a-new-long-passphrase-7")
    page.fill("input[name=new_password2]", "a-new-long-passphrase-7")
    shot(page, artifacts_dir, "password-reset-confirm")
    page.click("button:has-text('Set the new password')")
    page.wait_for_selector("h1:has-text('Password set')")
    page.goto(link)  # a link works once
    page.wait_for_selector("text=no longer valid")

    log_in(page, base, "alice", "a-new-long-passphrase-7")
    page.click("nav >> text=Password")
    page.fill("input[name=old_password]", "a-new-long-passphrase-7")
    page.fill("input[name=new_password1]", "another-passphrase-99")
    page.fill("input[name=new_password2]", "another-passphrase-99")
    shot(page, artifacts_dir, "password-change")
    page.click("button:has-text('Change password')")
    page.wait_for_selector("h1:has-text('Password changed')")
    log_out(page)
    log_in(page, base, "alice", "another-passphrase-99")


def test_captain_renames_removes_a_member_and_a_member_leaves(
    page, live_server, make_world, artifacts_dir
):
    from competition import services
    from competition.models import Membership, Team

    world = make_world()
    services.team_join(
        competition=world.competition, user=world.mallory, invite_code=world.alpha.invite_code
    )
    base = live_server.url
    team_url = f"{base}/competitions/{world.competition.slug}/team/"

    log_in(page, base, "alice", "alice-pw-123!")
    page.goto(team_url)
    assert page.locator("code.invite").inner_text() == world.alpha.invite_code
    page.fill("#id_rename-name", "Alpha Centauri")
    page.click("#rename-form button")
    page.wait_for_selector("h1:has-text('Team Alpha Centauri')")
    page.wait_for_selector("text=Your team is now called Alpha Centauri.")
    assert page.locator("[data-member=alice] .badge").inner_text() == "captain"
    shot(page, artifacts_dir, "team-captain")
    part_shot(page, artifacts_dir, "main.container .columns", "team-page")

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-member=mallory] button:has-text('Remove')")
    page.wait_for_selector("text=mallory is no longer in Alpha Centauri")
    assert not Membership.objects.filter(user=world.mallory).exists()
    log_out(page)

    # Bob (Beta) does not see Alpha's code; he leaves his team, which had no runs.
    log_in(page, base, "bob", "bob-pw-123!")
    page.goto(team_url)
    assert world.alpha.invite_code not in page.content()
    assert page.locator("[data-member=bob] button:has-text('Remove')").count() == 0
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#leave-form button")
    page.wait_for_selector("text=You left Beta")
    page.wait_for_selector("h1:has-text('Join the competition')")
    assert not Team.objects.filter(name="Beta").exists()
    shot(page, artifacts_dir, "team-none")


def test_an_organizer_removes_a_member_from_the_teams_page(
    page, live_server, make_world, artifacts_dir
):
    from django.contrib.auth import get_user_model

    from competition.models import Membership

    world = make_world()
    olga = get_user_model().objects.create_user("olga", password="olga-pw-123!")
    world.competition.organizers.add(olga)
    base = live_server.url
    log_in(page, base, "olga", "olga-pw-123!")
    page.goto(f"{base}/competitions/{world.competition.slug}/")
    page.click("#teams-organize-link")
    page.wait_for_selector("#teams tr[data-team=Beta]")
    shot(page, artifacts_dir, "teams-organize")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#teams [data-member=bob] button:has-text('Remove')")
    page.wait_for_selector("text=bob is no longer in Beta")
    assert not Membership.objects.filter(user=world.bob).exists()
