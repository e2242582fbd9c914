"""Uploads to CorefUD-style phases: files named as the datasets' release names, and teams that
send only some datasets where the phase counts a skipped one as 0."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competition import services
from competition.errors import SubmissionRejected
from competition.models import Phase, SubCorpus
from competition.uploads import subcorpus_for_name

pytestmark = pytest.mark.django_db
NAMES = {"cs-pcedt": "cs_pcedt", "en-gum": "en_gum"}


def test_a_release_name_or_the_declared_file_name_names_the_dataset():
    assert subcorpus_for_name("cs_pcedt-corefud-test.conllu", NAMES) == "cs-pcedt"
    assert subcorpus_for_name("run/EN_GUM-corefud-dev.conllu", NAMES) == "en-gum"
    declared = {"cs-pcedt": "czech-news.conllu", "en-gum": ""}
    assert subcorpus_for_name("Czech-News.conllu", NAMES, declared) == "cs-pcedt"
    assert subcorpus_for_name("de_potsdam-corefud-test.conllu", NAMES) is None


def zipped(world, slugs) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for slug in slugs:
            archive.writestr(f"{slug}-corefud-test.conllua", world.response_text(slug))
    return SimpleUploadedFile("run.zip", buffer.getvalue(), content_type="application/zip")


def test_a_phase_that_counts_skipped_datasets_as_zero_accepts_some_of_them(world):
    with pytest.raises(SubmissionRejected) as refused:
        services.submission_create(
            team=world.alpha, phase=world.phase, user=world.alice, archive=zipped(world, ["light"])
        )
    assert refused.value.code == "missing_files"
    world.phase.missing = Phase.Missing.ZERO
    world.phase.save()
    submission = services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, archive=zipped(world, ["light"])
    )
    assert [f.subcorpus.slug for f in submission.files.all()] == ["light"]


def test_unmatched_names_are_listed_with_the_names_expected(world):
    SubCorpus.objects.filter(phase=world.phase, slug="ami").update(
        file_name="ami-corefud-test.conllu"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("light.conllua", world.response_text("light"))
        archive.writestr("amy.conllu", world.response_text("ami"))
    with pytest.raises(SubmissionRejected) as refused:
        services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            archive=SimpleUploadedFile("run.zip", buffer.getvalue()),
        )
    assert refused.value.code == "unknown_files"
    assert "amy.conllu" in refused.value.message
    assert "ami-corefud-test.conllu" in refused.value.message
