"""A MISC attribute that looks like a misspelt coreference attribute (``Entitty=``,
``entity=``) is a warning of the validation, naming its line: the reader reads only the
exact names, so the mentions written there would silently not be read."""

from __future__ import annotations

import pytest

from scoring import parse_options
from scoring.skeletons import key_skeleton, validate_against_skeleton
from scoring.validation import (
    attribute_names,
    misspelt_attributes,
    misspelt_lines,
    validate_pair,
)

OPTIONS = parse_options(["-f", "corefud"]).options


def write(path, misc_second: str):
    rows = [
        "# global.Entity = eid-etype-head-other",
        "# newdoc id = d",
        "# sent_id = s1",
        "1\ta\ta\tX\t_\t_\t0\troot\t0:root\tEntity=(e1-x-1)",
        f"2\tb\tb\tX\t_\tGender=Masc\t1\tdep\t1:dep\t{misc_second}",
        "",
    ]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize(
    "misc, meant",
    [
        ("Entitty=(e1-x-1)", "Entity"),
        ("entity=(e1-x-1)", "Entity"),
        ("SpaceAfter=No|Enity=(e1-x-1)", "Entity"),
        ("SplitAnt=e1<e2", "SplitAnte"),
        ("Brige=e1<e2", "Bridge"),
    ],
)
def test_a_misspelt_coreference_attribute_is_named_with_its_line(tmp_path, misc, meant):
    path = write(tmp_path / "r.conllu", misc)
    [warning] = misspelt_attributes(path)
    assert warning.startswith(f"{path}:5: ") and f"misspelt {meant!r}" in warning


@pytest.mark.parametrize("misc", ["Entity=(e1-x-1)", "SpaceAfter=No", "_", "Gender=Masc"])
def test_exact_and_unrelated_attributes_say_nothing(tmp_path, misc):
    assert misspelt_attributes(write(tmp_path / "r.conllu", misc)) == []


def test_validation_reports_it_as_a_warning_not_a_problem(tmp_path):
    key = write(tmp_path / "k.conllu", "Entity=(e1-x-1)")
    response = write(tmp_path / "r.conllu", "Entitty=(e1-x-1)")
    warnings: list[str] = []
    assert validate_pair(key, response, options=OPTIONS, warnings=warnings) == []
    assert len(warnings) == 1 and ":5: " in warnings[0]
    offline: list[str] = []
    skeleton = key_skeleton(key, options=OPTIONS)
    assert validate_against_skeleton(skeleton, response, options=OPTIONS, warnings=offline) == []
    assert offline == warnings


TOKENS = [
    "# newdoc id = d",
    "# sent_id = s1",
    "# text = a b",
    "1\ta\ta\tX\t_\t_\t0\troot\t0:root\tEntity=(e1-x-1)",
    "2\tb\tb\tX\t_\tGender=Masc\t1\tdep\t1:dep\tSpaceAfter=No",
    "",
]


def last_token(misc: str) -> list[str]:
    return [*TOKENS[:-1], f"3\tc\tc\tX\t_\t_\t1\tdep\t1:dep\t{misc}"]


@pytest.mark.parametrize(
    ("lines", "newline", "warned"),
    [
        (TOKENS, "\n", 0),  # nothing misspelt
        (last_token("SpaceAfter=No|Entitty=(e1-x-1)"), "\n", 1),  # on the last line only,
        (last_token("entity=(e1-x-1)"), "\r\n", 1),  # with no newline after it
        (last_token("SpaceAfter=No|Enity"), "\r", 1),  # lines ended by CR; an item without =
        (last_token("Brige=e1<e2|SplitAnt=e1<e2"), "\n", 2),
        # a misspelt name in another column than MISC (FEATS) is not an attribute of MISC
        ([*TOKENS[:-1], "3\tc\tc\tX\t_\tEntitty=Yes|Brige=x\t1\tdep\t1:dep\t_"], "\n", 0),
        ([*TOKENS[:-1], "3\tc\tc\tX\t_\tEntitty=Yes\t1\tdep\t1:dep\tSpaceAfter=No"], "\n", 0),
        (["# Entitty=(e1-x-1)", *TOKENS], "\n", 0),  # a comment
        ([*TOKENS[:3], "Entitty=(e1-x-1)", *TOKENS[3:]], "\n", 1),  # a line without tabs
    ],
)
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_the_names_read_first_find_what_the_line_pass_finds(tmp_path, lines, newline, warned, bom):
    """The line pass reads a file only when the names read first (`attribute_names`, in
    blocks of whole lines) hold a suspicious one; the warnings are those of the line pass,
    lines and all."""
    path = tmp_path / "r.conllu"
    path.write_bytes((bom + newline.join(lines)).encode("utf-8"))
    by_lines = misspelt_lines(str(path))
    assert misspelt_attributes(str(path)) == by_lines and len(by_lines) == warned
    columns = [line.split("\t")[-1] for line in lines if not line.startswith("#")]
    checked = {
        item.partition("=")[0] for misc in columns if "=" in misc for item in misc.split("|")
    }
    for block_bytes in (1, 7, 64, 1 << 20):
        assert checked <= attribute_names(str(path), block_bytes=block_bytes)
    if warned:
        number = next(n for n, line in enumerate(lines, 1) if _misspelt(line))
        assert by_lines[0].startswith(f"{path}:{number}: ")


def _misspelt(line: str) -> bool:
    return any(m in line.split("\t")[-1] for m in ("Entitty", "entity", "Enity", "Brige"))
