"""A MISC attribute that looks like a misspelt coreference attribute (``Entitty=``,
``entity=``) is a warning of the validation, naming its line: the reader reads only the
exact names, so the mentions written there would silently not be read."""

from __future__ import annotations

import pytest

from scoring import parse_options
from scoring.skeletons import key_skeleton, validate_against_skeleton
from scoring.validation import misspelt_attributes, validate_pair

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
