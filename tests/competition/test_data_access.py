"""A phase's data needs what submitting needs: signed in, the current terms accepted, and a
team the organizers approved where the competition approves teams; the Data section says
what is missing, and the download answers 404 until nothing is."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from competition.definition import editor
from competition.services.pages import (
    page_save,
    team_approval_require,
    team_decide,
    terms_accept,
)

pytestmark = pytest.mark.django_db

INPUTS = b"# newdoc id = light_1\n1\tthe\t_\n"


@pytest.fixture
def data(world):
    return editor.phase_data_attach(
        phase=world.phase,
        upload=SimpleUploadedFile("light_input.conllu", INPUTS),
        description="Test inputs",
    )


def urls(world, data):
    return (
        reverse(
            "competition:phase", args=[world.competition.slug, world.task.slug, world.phase.slug]
        ),
        reverse("competition:data_download", args=[data.pk, data.file_name]),
    )


def test_terms_must_be_accepted_before_the_data(client, world, data):
    page, download = urls(world, data)
    page_save(competition=world.competition, kind="terms", body="Use the data for research.")
    client.force_login(world.alice)
    html = client.get(page).content.decode()
    assert "accept the competition's terms" in html
    assert f'href="{download}"' not in html
    assert client.get(download).status_code == 404
    terms_accept(competition=world.competition, user=world.alice)
    assert "data-access" not in client.get(page).content.decode()
    assert client.get(download).status_code == 200
    # Changed terms: accepted again before the next download.
    page_save(competition=world.competition, kind="terms", body="New terms.")
    assert client.get(download).status_code == 404


def test_where_teams_are_approved_the_data_waits_for_the_approval(client, world, data):
    page, download = urls(world, data)
    team_approval_require(competition=world.competition, required=True)
    loner = get_user_model().objects.create_user("loner", password="pw-loner-1")
    client.force_login(loner)
    assert "create or join a team" in client.get(page).content.decode()
    assert client.get(download).status_code == 404

    client.force_login(world.alice)
    assert "waits for the organizers" in client.get(page).content.decode()
    assert client.get(download).status_code == 404
    team_decide(team=world.beta, approve=False, reason="no affiliation")
    client.force_login(world.bob)
    assert "did not approve your team" in client.get(page).content.decode()
    assert client.get(download).status_code == 404
    team_decide(team=world.alpha, approve=True)
    client.force_login(world.alice)
    assert client.get(download).status_code == 200

    # The organizers need neither terms nor a team.
    world.competition.organizers.add(loner)
    client.force_login(loner)
    assert client.get(download).status_code == 200


def test_without_terms_or_approval_any_signed_in_user_downloads(client, world, data):
    page, download = urls(world, data)
    loner = get_user_model().objects.create_user("loner", password="pw-loner-1")
    client.force_login(loner)
    assert client.get(download).status_code == 200
    client.logout()
    html = client.get(page).content.decode()
    assert "log in</a> to download it" in html and client.get(download).status_code == 404
