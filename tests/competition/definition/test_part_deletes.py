"""Deleting a task, phase or sub-corpus: one rule and one path (`apply.parts_delete`) for the
editor's deletes and a reload's removals. A part holding submissions is refused through
either door, each in its own words; a delete is all or nothing; the data files of a deleted
phase are unlinked once it commits, unless another phase names them."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models.signals import post_delete
from django.utils import timezone

from competition import services
from competition.definition import apply, editor
from competition.definition.current import competition_spec
from competition.definition.editor import EditorError
from competition.definition.spec import SpecError
from competition.models import Phase, PhaseDataFile, SubCorpus, Task

pytestmark = pytest.mark.django_db

INPUTS = b"# newdoc id = light_1\n1\tthe\t_\n"


def attach(phase: Phase, name: str = "inputs.conllua") -> PhaseDataFile:
    return editor.phase_data_attach(
        phase=phase, upload=SimpleUploadedFile(name, INPUTS), description="", release_at=None
    )


def second_phase(world) -> Phase:
    return editor.phase_save(
        task=world.task,
        slug="test",
        kind="test_gold",
        title="Test",
        start=timezone.now() + timedelta(days=30),
    )


def submitted(world) -> None:
    services.submission_create(
        team=world.alpha, phase=world.phase, user=world.alice, files=world.uploads()
    )


def reload_without(world, *, phase: str = "", task: str = "", subcorpus: str = "") -> None:
    """Apply the competition's own spec less one part, as a reload of its definition."""
    spec = competition_spec(competition=world.competition)
    tasks = []
    for t in spec.tasks:
        if t.slug == task:
            continue
        phases = []
        for p in t.phases:
            if p.slug == phase:
                continue
            kept = tuple(sc for sc in p.subcorpora if sc.slug != subcorpus)
            phases.append(dataclasses.replace(p, subcorpora=kept))
        tasks.append(dataclasses.replace(t, phases=tuple(phases)))
    apply.competition_apply(spec=dataclasses.replace(spec, tasks=tuple(tasks)))


@pytest.fixture
def failing_phase_delete():
    """A database that fails once the phase's rows are gone, before the transaction ends."""

    def fail(sender, **kwargs):
        raise RuntimeError("the database went away")

    post_delete.connect(fail, sender=Phase)
    yield
    post_delete.disconnect(fail, sender=Phase)


def test_a_held_part_is_refused_through_the_editor_in_its_words(world):
    submitted(world)
    light = world.phase.subcorpora.get(slug="light")
    cases = [
        (lambda: editor.subcorpus_delete(subcorpus=light), "The sub-corpus LIGHT holds 1"),
        (lambda: editor.phase_delete(phase=world.phase), "The phase identity/dev holds 1"),
        (lambda: editor.task_delete(task=world.task), "The task identity holds 1"),
    ]
    for delete, words in cases:
        with pytest.raises(EditorError) as refused:
            delete()
        assert refused.value.code == "held"
        assert refused.value.message.startswith(words)
        assert "deleting it would delete them and their scores" in refused.value.message
    assert SubCorpus.objects.filter(pk=light.pk).exists()
    assert Phase.objects.filter(pk=world.phase.pk).exists()


def test_a_held_part_is_refused_through_a_reload_in_its_words(world):
    submitted(world)
    cases = [
        ({"subcorpus": "light"}, "sub-corpus identity/dev/LIGHT (1 submissions)"),
        ({"phase": world.phase.slug}, "phase identity/dev (1 submissions)"),
        ({"task": world.task.slug}, "phase identity/dev (1 submissions)"),
    ]
    for without, words in cases:
        with pytest.raises(SpecError) as refused:
            reload_without(world, **without)
        assert refused.value.code == "held"
        assert refused.value.message == (
            f"the file no longer lists {words}; removing them would delete those submissions "
            "and their scores. Put them back in the file, or delete them in the admin first "
            "if they are meant to go."
        )
    assert world.phase.subcorpora.filter(slug="light").exists()
    assert Task.objects.filter(pk=world.task.pk).exists()


def test_an_editor_delete_failing_halfway_leaves_everything(
    world, failing_phase_delete, django_capture_on_commit_callbacks
):
    data = attach(world.phase)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        editor.phase_delete(phase=world.phase)
    assert Phase.objects.filter(pk=world.phase.pk).exists()
    assert world.phase.subcorpora.count() == 3
    assert PhaseDataFile.objects.filter(pk=data.pk).exists()
    assert data.absolute_path.read_bytes() == INPUTS


def test_a_reload_failing_halfway_leaves_everything(
    world, failing_phase_delete, django_capture_on_commit_callbacks
):
    later = second_phase(world)
    data = attach(later)
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        reload_without(world, phase="test")
    assert Phase.objects.filter(pk=later.pk).exists()
    assert PhaseDataFile.objects.filter(pk=data.pk).exists()
    assert data.absolute_path.read_bytes() == INPUTS


@pytest.mark.parametrize("door", ["editor", "reload"])
def test_a_deleted_phase_takes_the_data_files_it_alone_names(
    world, door, django_capture_on_commit_callbacks
):
    later = second_phase(world)
    own = attach(later, "own.conllua")
    shared = attach(later, "shared.conllua")
    PhaseDataFile.objects.create(
        phase=world.phase,
        file_name="shared.conllua",
        path=shared.path,
        size=shared.size,
        sha256=shared.sha256,
    )
    with django_capture_on_commit_callbacks() as callbacks:
        if door == "editor":
            editor.phase_delete(phase=later)
        else:
            reload_without(world, phase="test")
        assert own.absolute_path.exists()  # nothing is unlinked before the commit
    for callback in callbacks:
        callback()
    assert not Phase.objects.filter(pk=later.pk).exists()
    assert not own.absolute_path.exists()
    assert shared.absolute_path.read_bytes() == INPUTS
