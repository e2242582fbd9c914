"""Hostile bundles are refused with a message naming the bundle and the member at fault, and
nothing is created: no competition, no data file, no half-written phase."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from competition.bundles.archive import BundleRefused, unpack
from competition.definition.bundle_import import bundle_import
from competition.errors import CompetitionError
from competition.models import Competition, Phase, PhaseDataFile
from tests.competition.bundles.builders import (
    CODALAB_YAML,
    COREFUD_KEY,
    codalab_bundle,
    zip_bytes,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def olga(db):
    return get_user_model().objects.create_user("olga", password="pw-olga-123")


def refused(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "hostile.zip"
    path.write_bytes(data)
    with pytest.raises(CompetitionError) as caught:
        bundle_import(path=path, owner="olga")
    assert not Competition.objects.exists()
    assert not Phase.objects.exists() and not PhaseDataFile.objects.exists()
    assert "Traceback" not in caught.value.message
    return caught.value.message


def with_member(name: str, data: bytes = b"x", *, mode: int | None = None) -> bytes:
    buffer = io.BytesIO(codalab_bundle())
    with zipfile.ZipFile(buffer, "a") as zf:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        if mode is not None:
            info.external_attr = mode << 16
        zf.writestr(info, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("name", "mode", "expected"),
    [
        ("../outside.txt", None, "points outside the bundle"),
        ("/etc/passwd", None, "absolute path"),
        ("C:/evil.txt", None, "absolute path"),
        ("pages\\evil.txt", None, "backslashes"),
        ("link", stat.S_IFLNK | 0o777, "symbolic link"),
        ("fifo", stat.S_IFIFO | 0o644, "not a regular file"),
    ],
)
def test_unsafe_member_is_refused_by_name(tmp_path, name, mode, expected):
    message = refused(tmp_path, with_member(name, mode=mode))
    assert "hostile.zip" in message and repr(name) in message and expected in message


def test_compression_bomb_is_refused(tmp_path):
    message = refused(tmp_path, with_member("bomb.txt", b"0" * 5_000_000))
    assert "'bomb.txt' is compressed more than 100:1" in message


def test_member_count_and_total_size_limits(tmp_path, settings):
    settings.BUNDLE_MAX_MEMBERS = 5
    assert "members; the limit is 5" in refused(tmp_path, codalab_bundle())
    settings.BUNDLE_MAX_MEMBERS = 5000
    settings.BUNDLE_MAX_UNCOMPRESSED_BYTES = 2000
    assert "more than 2000 bytes uncompressed" in refused(tmp_path, codalab_bundle())
    settings.BUNDLE_MAX_UNCOMPRESSED_BYTES = 10**9
    settings.BUNDLE_MAX_BYTES = 100
    assert "larger than the limit of 100 bytes" in refused(tmp_path, codalab_bundle())


def test_a_zip_inside_a_data_item_is_never_opened(tmp_path):
    """CodaLab's Compute_pi example keeps a zip in its reference data: it is neither
    written nor opened, and the report says so."""
    inner = zip_bytes(
        {
            "inner.zip": zip_bytes({"k.conllu": COREFUD_KEY}),
            "en_ami-corefud-test.conllu": COREFUD_KEY,
        }
    )
    path = tmp_path / "b.zip"
    path.write_bytes(codalab_bundle(extra={"reference_dev.zip": inner}))
    result = bundle_import(path=path, owner="olga")
    dev = result.competition.tasks.get().phases.get(slug="development")
    assert list(dev.subcorpora.values_list("name", flat=True)) == ["en_ami"]
    assert "Data item reference_dev.zip: inner.zip: a zip inside it, not opened" in (
        result.report.not_imported
    )


def test_unpack_refuses_a_zip_at_the_deepest_level(tmp_path):
    source = tmp_path / "item.zip"
    source.write_bytes(zip_bytes({"inner.zip": zip_bytes({"k.conllu": COREFUD_KEY})}))
    with pytest.raises(BundleRefused, match="'inner.zip' is a zip inside a zip inside the bundle"):
        unpack(source, tmp_path / "out", name="b.zip: item.zip", depth=2)


def test_unsafe_member_of_a_data_item_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("../../escape.conllu", COREFUD_KEY)
    message = refused(tmp_path, codalab_bundle(extra={"reference_dev.zip": buffer.getvalue()}))
    assert "hostile.zip: reference_dev.zip" in message and "outside the bundle" in message


@pytest.mark.parametrize("path", ["../../etc/passwd", "/etc/passwd", "missing.zip"])
def test_yaml_naming_a_path_outside_the_bundle_is_refused(tmp_path, path):
    text = CODALAB_YAML.replace(
        "reference_data: reference_dev.zip\n    scoring_program: program.zip\n    input_data",
        f"reference_data: {path}\n    scoring_program: program.zip\n    input_data",
        1,
    )
    message = refused(tmp_path, codalab_bundle(yaml_text=text))
    assert "phases.1.reference_data" in message and repr(path) in message


def test_broken_gold_key_is_refused_through_the_key_checks(tmp_path):
    broken = b"# newdoc id = d1\n1\tthe\tthe\n"  # a token line of 3 columns, not 10
    message = refused(
        tmp_path,
        codalab_bundle(
            extra={"reference_dev.zip": zip_bytes({"en_ami-corefud-test.conllu": broken})}
        ),
    )
    assert "en_ami-corefud-test.conllu" in message


def test_data_file_equal_to_a_key_leaves_nothing_created(tmp_path):
    message = refused(
        tmp_path, codalab_bundle(extra={"input_dev.zip": zip_bytes({"copy.conllu": COREFUD_KEY})})
    )
    assert "input_dev.zip" in message


def test_yaml_alias_bomb_and_garbage_are_refused(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdef", "bcdefg")
    )
    assert "more than 100000 values" in refused(
        tmp_path, zip_bytes({"competition.yaml": bomb.encode()})
    )
    assert "cannot be read" in refused(tmp_path, b"PK\x03\x04 not a zip at all")
    assert "expected competition.yaml" in refused(tmp_path, zip_bytes({"x/a.txt": b"x"}))


def test_unknown_owner_is_refused(tmp_path):
    path = tmp_path / "b.zip"
    path.write_bytes(codalab_bundle())
    with pytest.raises(CompetitionError, match="no user 'nobody'"):
        bundle_import(path=path, owner="nobody")
    assert not Competition.objects.exists()
