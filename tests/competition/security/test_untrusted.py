"""The bounded readers of untrusted structure (`competition.untrusted`): each limit refuses
before anything is built, naming the file and the place, and each is a setting."""

from __future__ import annotations

import io
import zipfile

import pytest

from competition.bundles.archive import BundleRefused
from competition.errors import DefinitionError
from competition.untrusted import InputLimits, archive_names_check, csv_rows, yaml_read

# --- YAML -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x: " + "[" * 500 + "]" * 500, "line 1: nested more than 32 levels deep"),
        ("x: " + "{a: " * 400 + "}" * 400, "line 1: nested more than 32 levels deep"),
        ("".join(" " * i + "a:\n" for i in range(40)), "line 33: nested more than 32 levels"),
        ("".join(" " * i + "-\n" for i in range(40)), "line 33: nested more than 32 levels deep"),
    ],
    ids=["lists", "flow-mappings", "block-mappings", "block-lists"],
)
def test_deep_nesting_is_refused_before_the_loader_recurses(text, expected):
    with pytest.raises(DefinitionError) as refused:
        yaml_read(text, name="c.yaml")
    assert refused.value.message.startswith(f"c.yaml: {expected}")


def test_nesting_far_beyond_python_recursion_is_refused_not_a_recursion_error():
    """A few hundred kilobytes of brackets: a YAML error or a limit, never RecursionError."""
    import yaml

    text = "x: " + "[" * 150_000 + "]" * 150_000
    with pytest.raises((DefinitionError, yaml.YAMLError)):
        yaml_read(text, name="c.yaml")


def test_a_nul_in_a_value_is_refused_with_its_place():
    text = 'title: ok\ntasks:\n  - slug: a\n    phases:\n      - {slug: "d\\0v"}\n'
    with pytest.raises(DefinitionError) as refused:
        yaml_read(text, name="c.yaml")
    assert refused.value.message == (
        "c.yaml: line 5, tasks[0].phases[0].slug: a NUL character (expected text)"
    )


def test_aliases_are_counted_expanded_and_their_depth_too_before_anything_is_built(
    monkeypatch,
):
    from competition import untrusted

    def never(*args, **kwargs):
        raise AssertionError("built before the scan refused it")

    monkeypatch.setattr(untrusted.yaml, "load", never)
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    )
    with pytest.raises(DefinitionError, match="more than 100000 values once its aliases"):
        yaml_read(laughs, name="c.yaml")
    tower = "a: &a " + "[" * 20 + "1" + "]" * 20 + "\n" + "b: &b " + "[" * 20 + "*a" + "]" * 20
    with pytest.raises(DefinitionError, match="nested more than 32 levels deep once its"):
        yaml_read(tower, name="c.yaml")
    with pytest.raises(DefinitionError) as itself:
        yaml_read("a: &a [*a]", name="c.yaml")  # a list that holds itself
    assert itself.value.message == "c.yaml: line 1, a[0]: the alias *a is inside itself"


def test_values_as_written_are_counted_before_they_are_built():
    text = "x: [" + ", ".join(["1"] * 60_000) + "]"
    with pytest.raises(DefinitionError) as refused:
        yaml_read(text, name="c.yaml")
    assert (
        refused.value.message == "c.yaml: line 1, x[49997]: the file holds more than 50000 values"
    )


def test_the_limits_are_settings(settings):
    settings.YAML_MAX_DEPTH = 3
    settings.YAML_MAX_NODES = 7
    assert yaml_read("a: {b: [1]}", name="c.yaml") == {"a": {"b": [1]}}
    with pytest.raises(DefinitionError, match="nested more than 3 levels"):
        yaml_read("a: {b: [[1]]}", name="c.yaml")
    with pytest.raises(DefinitionError, match="more than 7 values"):
        yaml_read("a: [1, 2, 3, 4, 5, 6]", name="c.yaml")
    assert InputLimits.current().yaml_depth == 3


def test_a_caller_chooses_its_refusal():
    with pytest.raises(BundleRefused):
        yaml_read("x: " + "[" * 40 + "]" * 40, name="b.zip: competition.yaml", error=BundleRefused)


# --- zip member names -----------------------------------------------------------------------


def infos(*names: str) -> list[zipfile.ZipInfo]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name in names:
            zf.writestr(name, b"")
    with zipfile.ZipFile(buffer) as zf:
        return zf.infolist()


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["data", "data/x"], "member 'data' is a file, and 'data/x' makes it a folder"),
        (["data/x", "data"], "member 'data' is a file, and 'data/x' makes it a folder"),
        (["data/", "data"], "member 'data' is a file, and 'data/' makes it a folder"),
        (["a/./b", "a/b"], "member 'a/b' is named twice"),
        (
            ["k/" + "n" * 256],
            "the part 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…nnnnnnnnnn'",
        ),
        (["/".join(["d" * 200] * 6)], "its name is 1205 bytes long; the limit is 1024"),
        (["é" * 128], "is 256 bytes long; the limit is 255"),
    ],
    ids=[
        "file-then-folder",
        "folder-then-file",
        "folder-entry",
        "twice",
        "long-part",
        "long-path",
        "multibyte",
    ],
)
def test_names_the_file_system_cannot_hold_are_refused(names, expected):
    with pytest.raises(DefinitionError) as refused:
        archive_names_check(infos(*names), name="c.zip")
    assert refused.value.message.startswith("c.zip: refused: ")
    assert expected in refused.value.message
    assert len(refused.value.message) < 300  # a long name is shortened, not repeated


def test_too_many_members_are_refused_before_any_is_looked_at(settings):
    settings.DEFINITION_MAX_MEMBERS = 3
    archive_names_check(infos("a", "b", "c"), name="c.zip")
    with pytest.raises(DefinitionError, match="c.zip: refused: 4 members; the limit is 3"):
        archive_names_check(infos("a", "b", "c", "d"), name="c.zip")
    with pytest.raises(BundleRefused, match="the limit is 2"):
        archive_names_check(infos("a", "b", "c"), name="b.zip", error=BundleRefused, members=2)


def test_ordinary_names_pass():
    archive_names_check(
        infos("competition.yaml", "keys/", "keys/identity/dev/a.conllua", "pages/o.md"),
        name="c.zip",
    )


# --- CSV ------------------------------------------------------------------------------------


def test_csv_rows_are_read_with_their_numbers():
    assert list(csv_rows('a,b\n"x\ny",2\n', name="r.csv")) == [(1, ["a", "b"]), (2, ["x\ny", "2"])]


def test_a_nul_is_refused_with_its_line():
    with pytest.raises(DefinitionError) as refused:
        list(csv_rows("a,b\n1,2\n3,x\x00y\n", name="r.csv"))
    assert refused.value.message == "r.csv: line 3: a NUL character (expected CSV text)"


@pytest.mark.parametrize("size", [10_001, 131_073, 400_000])
def test_a_cell_over_the_limit_is_refused_with_its_line(size):
    """Over the setting, and over the CSV reader's own limit (131,072): the same refusal."""
    text = "a,b\n1," + "x" * size + "\n"
    with pytest.raises(DefinitionError) as refused:
        list(csv_rows(text, name="r.csv"))
    assert refused.value.message.startswith("r.csv: line 2")
    assert "a cell longer than" in refused.value.message


def test_what_the_csv_reader_refuses_is_said_with_its_line():
    with pytest.raises(DefinitionError, match=r"^r.csv: line 2: not CSV \(new-line character"):
        list(csv_rows("a,b\n1,x\ry\n", name="r.csv"))
