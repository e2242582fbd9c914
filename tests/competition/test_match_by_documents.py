"""An upload whose file names say nothing is matched to its dataset by its documents
(``# newdoc id``); a file given for the wrong dataset is told whose file it looks like."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competition import services
from competition.definition import editor
from competition.models import SubCorpus
from scoring.filenames import dataset_for_documents, newdoc_ids
from tests.checked import refusal

pytestmark = pytest.mark.django_db


def test_newdoc_ids_across_chunks_and_the_majority_rule():
    text = b"# newdoc id = a1\nx\n#newdoc id= a2 \r\n# newdoc id = b1\n"
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    assert newdoc_ids(chunks) == ["a1", "a2", "b1"]
    datasets = {"a": ["a1", "a2", "a3"], "b": ["b1"]}
    assert dataset_for_documents(["a1", "a2", "b1"], datasets) == "a"
    assert dataset_for_documents(["a1", "b1"], datasets) is None  # half is not more than half
    assert dataset_for_documents([], datasets) is None


@pytest.fixture
def keyed(world):
    """LIGHT and AMI with their keys stored by the editor (their document names recorded)."""
    for slug in ("light", "ami"):
        sc = world.phase.subcorpora.get(slug=slug)
        editor.subcorpus_save(
            phase=world.phase,
            subcorpus=sc,
            name=sc.name,
            key=SimpleUploadedFile(f"{slug}.conllua", world.key_text(slug).encode()),
        )
    assert set(
        d["name"] for d in SubCorpus.objects.get(phase=world.phase, slug="ami").documents
    ) == {"ami_1"}
    return world


def zip_of(members: dict[str, str]) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return SimpleUploadedFile("run.zip", buffer.getvalue())


def test_a_zip_of_meaningless_names_is_matched_by_documents(keyed):
    world = keyed
    run = services.submission_create(
        team=world.alpha,
        phase=world.phase,
        user=world.alice,
        archive=zip_of(
            {"output1.txt": world.response_text("light"), "output2.txt": world.response_text("ami")}
        ),
    )
    assert {f.subcorpus.slug: f.original_name for f in run.files.all()} == {
        "light": "output1.txt",
        "ami": "output2.txt",
    }


def test_a_file_in_the_wrong_field_is_told_whose_it_looks_like(
    keyed, django_capture_on_commit_callbacks
):
    """Told by the worker's check, on the refused run."""
    world = keyed
    problems = refusal(
        django_capture_on_commit_callbacks,
        lambda: services.submission_create(
            team=world.alpha,
            phase=world.phase,
            user=world.alice,
            files={
                "light": SimpleUploadedFile("run-a.conllua", world.response_text("ami").encode()),
                "ami": SimpleUploadedFile("run-b.conllua", world.response_text("light").encode()),
            },
        ),
    )
    messages = [p.message for p in problems]
    assert any("this looks like AMI's file" in m for m in messages), messages
    assert any("this looks like LIGHT's file" in m for m in messages), messages
