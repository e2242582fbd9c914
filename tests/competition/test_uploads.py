"""Receiving uploads: zip safety and matching file names to sub-corpora (no database)."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from competition.errors import SubmissionRejected
from competition.uploads import UploadLimits, receive_files, receive_zip, subcorpus_for_name

SUBCORPORA = {"light": "LIGHT", "ami": "AMI"}
LIMITS = UploadLimits(
    max_upload_bytes=10_000, max_uncompressed_bytes=50_000, max_compression_ratio=20
)


def make_zip(members: dict[str, bytes], *, symlinks: tuple[str, ...] = ()) -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, data)
    return SimpleUploadedFile("run.zip", buffer.getvalue())


def rejection(callable_, **kwargs) -> SubmissionRejected:
    with pytest.raises(SubmissionRejected) as caught:
        callable_(**kwargs)
    return caught.value


@pytest.mark.parametrize(
    "name, expected",
    [
        ("LIGHT.CONLLUA", "light"),
        ("light.conllua", "light"),
        ("run/AMI.CONLLUA", "ami"),
        ("ami", "ami"),
        ("switchboard.conllua", None),
        # the distributed names: a sub-corpus name, then a separator and anything
        ("light_test.CONLLUA", "light"),
        ("AMI_test_partial.ES2004a.CONLLUA", "ami"),
        ("run/Light_dev.2022.CONLLUA", "light"),
        ("lightweight.CONLLUA", None),
    ],
)
def test_it_matches_file_names_to_sub_corpora_by_stem(name, expected):
    """The stem before the first dot names the sub-corpus, ignoring case and folders; so does
    a stem that starts with a sub-corpus name and a separator (``light_test``)."""
    assert subcorpus_for_name(name, SUBCORPORA) == expected


def test_it_extracts_a_zip_named_by_sub_corpus(tmp_path):
    """Each member is written to the working folder with its size and SHA-256."""
    archive = make_zip({"LIGHT.CONLLUA": b"light text\n", "ami.conllua": b"ami text\n"})
    received = receive_zip(archive=archive, subcorpora=SUBCORPORA, workdir=tmp_path, limits=LIMITS)
    assert set(received) == {"light", "ami"}
    assert received["light"].path.read_bytes() == b"light text\n"
    assert received["light"].size == len(b"light text\n")
    assert received["ami"].original_name == "ami.conllua"
    assert not (tmp_path / "upload.zip").exists()


@pytest.mark.parametrize(
    "member, reason",
    [
        ("../LIGHT.CONLLUA", "outside the archive"),
        ("/etc/LIGHT.CONLLUA", "absolute path"),
        ("C:/LIGHT.CONLLUA", "absolute path"),
        ("run\\LIGHT.CONLLUA", "backslashes"),
        ("LIGHT.zip", "nested archive"),
    ],
)
def test_it_refuses_unsafe_member_paths(tmp_path, member, reason):
    """Traversal, absolute paths and nested archives are refused before anything is written."""
    exc = rejection(
        receive_zip,
        archive=make_zip({member: b"x"}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unsafe_zip"
    assert reason in exc.message
    assert [p.name for p in tmp_path.iterdir()] == []


def test_it_refuses_symbolic_links(tmp_path):
    exc = rejection(
        receive_zip,
        archive=make_zip({"LIGHT.CONLLUA": b"/etc/passwd"}, symlinks=("LIGHT.CONLLUA",)),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unsafe_zip" and "symbolic link" in exc.message


def test_it_refuses_a_nested_archive_hidden_under_a_text_name(tmp_path):
    """A member whose bytes are a zip is refused whatever its name."""
    inner = make_zip({"x.txt": b"x"}).read()
    exc = rejection(
        receive_zip,
        archive=make_zip({"LIGHT.CONLLUA": inner}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unsafe_zip" and "nested archive" in exc.message


def test_it_refuses_a_compression_bomb(tmp_path):
    """A member compressed far beyond the ratio cap is refused without being inflated."""
    exc = rejection(
        receive_zip,
        archive=make_zip({"LIGHT.CONLLUA": b"\0" * 40_000}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unsafe_zip" and "compressed more than 20:1" in exc.message


def test_it_refuses_an_uncompressed_total_over_the_cap(tmp_path):
    import os

    data = os.urandom(30_000)  # incompressible: passes the ratio check
    limits = UploadLimits(
        max_upload_bytes=100_000, max_uncompressed_bytes=50_000, max_compression_ratio=20
    )
    exc = rejection(
        receive_zip,
        archive=make_zip({"LIGHT.CONLLUA": data, "AMI.CONLLUA": data}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=limits,
    )
    assert exc.code == "unsafe_zip" and "uncompressed size" in exc.message


def test_it_refuses_an_upload_over_the_size_cap(tmp_path):
    big = SimpleUploadedFile("LIGHT.CONLLUA", b"x" * 10_001)
    exc = rejection(
        receive_files, files={"light": big}, subcorpora=SUBCORPORA, workdir=tmp_path, limits=LIMITS
    )
    assert exc.code == "upload_too_large"


@pytest.mark.parametrize(
    "members, code, names",
    [
        ({"LIGHT.CONLLUA": b"a", "notes.txt": b"b"}, "unknown_files", "notes.txt"),
        ({"LIGHT.CONLLUA": b"a", "run/light.conllua": b"b"}, "duplicate_files", "LIGHT"),
        ({}, "no_files", ""),
    ],
)
def test_it_refuses_unknown_duplicate_or_no_members(tmp_path, members, code, names):
    exc = rejection(
        receive_zip,
        archive=make_zip(members),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == code
    assert names in exc.message


def test_it_refuses_a_file_that_is_not_a_zip(tmp_path):
    exc = rejection(
        receive_zip,
        archive=SimpleUploadedFile("run.zip", b"not a zip"),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "bad_zip"


def test_it_refuses_an_archive_uploaded_as_a_single_file(tmp_path):
    archive = make_zip({"LIGHT.CONLLUA": b"a"})
    exc = rejection(
        receive_files,
        files={"light": archive},
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unsafe_zip"


def test_the_longest_start_wins_and_a_tie_matches_nothing():
    names = {"ami": "AMI", "ami-extra": "AMI_extra", "a": "A", "b": "a"}
    assert subcorpus_for_name("ami_extra_test.conllua", names) == "ami-extra"
    assert subcorpus_for_name("AMI_test.conllua", names) == "ami"
    assert subcorpus_for_name("a_x.conllua", names) is None  # "a" names two sub-corpora


def test_a_zip_of_distributed_names_in_a_folder_made_by_macos_is_accepted(tmp_path):
    archive = make_zip(
        {
            "run/light_test.CONLLUA": b"light",
            "run/AMI_test.CONLLUA": b"ami",
            "__MACOSX/run/._light_test.CONLLUA": b"\0\5\26\7",
            "run/._AMI_test.CONLLUA": b"\0\5\26\7",
            "run/.DS_Store": b"\0",
        }
    )
    received = receive_zip(archive=archive, subcorpora=SUBCORPORA, workdir=tmp_path, limits=LIMITS)
    assert {slug: r.original_name for slug, r in received.items()} == {
        "light": "light_test.CONLLUA",
        "ami": "AMI_test.CONLLUA",
    }
    assert received["light"].path.read_bytes() == b"light"


def test_two_files_for_one_sub_corpus_are_named_and_a_typo_gets_a_suggestion(tmp_path):
    exc = rejection(
        receive_zip,
        archive=make_zip({"light_dev.CONLLUA": b"a", "light_test.CONLLUA": b"b"}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "duplicate_files"
    assert "LIGHT (light_dev.CONLLUA, light_test.CONLLUA)" in exc.message
    exc = rejection(
        receive_zip,
        archive=make_zip({"LIHGT.CONLLUA": b"a", "AMI.CONLLUA": b"b"}),
        subcorpora=SUBCORPORA,
        workdir=tmp_path,
        limits=LIMITS,
    )
    assert exc.code == "unknown_files"
    assert "LIHGT.CONLLUA looks like LIGHT: name it LIGHT.CONLLUA" in exc.message
