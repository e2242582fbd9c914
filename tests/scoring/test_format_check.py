"""A response in the other format is refused in one line naming both formats, before the
expected format's reader would refuse its first line's columns."""

from __future__ import annotations

from scoring import parse_options
from scoring.api import validate_against_skeleton

CONLLUA = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM\n"
    "# newdoc id = d\n"
    "# sent_id = 1\n"
    "1\ta\t_\t_\t_\t_\t_\t_\t_\t_\t(EntityID=1|MarkableID=m1|Min=1|SemType=do)\t_\t_\t_\t_\n"
    "2\tb\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\t_\n"
)
COREFUD = (
    "# global.Entity = eid-etype-head-other\n"
    "# newdoc id = d\n"
    "# sent_id = 1\n"
    "1\ta\t_\t_\t_\t_\t0\troot\t_\tEntity=(1--1-)\n"
    "2\tb\t_\t_\t_\t_\t1\tdep\t_\t_\n"
)
SKELETON = {"documents": [{"name": "d", "tokens": ["a", "b"], "sent_ids": ["1"]}]}


def _problems(tmp_path, text: str, key_format: str, words: list[str]):
    response = tmp_path / "run.txt"
    response.write_text(text, encoding="utf-8")
    return validate_against_skeleton(
        {**SKELETON, "format": key_format},
        str(response),
        options=parse_options(words).options,
        expected_by="the phase",
    )


def test_a_conllua_file_for_a_corefud_phase_is_named_in_one_line(tmp_path):
    problems = _problems(tmp_path, CONLLUA, "corefud", ["-f", "corefud"])
    assert [(p.code, p.message) for p in problems] == [
        ("wrong_format", "this is a CONLL-UA file; the phase expects CorefUD CoNLL-U")
    ]


def test_a_corefud_file_for_a_conllua_phase_gets_no_scorer_flag_advice(tmp_path):
    problems = _problems(tmp_path, COREFUD, "ua", [])
    assert [p.message for p in problems] == [
        "this is a CorefUD CoNLL-U file; the phase expects CONLL-UA"
    ]
    assert "-f" not in problems[0].message


def test_files_in_the_expected_format_are_read_as_before(tmp_path):
    assert _problems(tmp_path, COREFUD, "corefud", ["-f", "corefud"]) == []
    assert _problems(tmp_path, CONLLUA, "ua", []) == []
    # a CoNLL-U file with a column missing is no other format: its reader names the line
    broken = COREFUD.replace("\t_\tEntity=(1--1-)", "\tEntity=(1--1-)")
    problems = _problems(tmp_path, broken, "corefud", ["-f", "corefud"])
    assert problems and "CONLL-UA" not in problems[0].message


def test_a_corefud_file_with_spaces_in_a_form_is_still_corefud(tmp_path):
    """Split at every space, the first token line has 11 words and an opening bracket where
    CONLL-UA keeps its IDENTITY column; the CorefUD reader recognises it, so it is no
    CONLL-UA file."""
    spaced = COREFUD.replace("1\ta\t_", "1\tvì vậy\t_")
    problems = _problems(tmp_path, spaced, "corefud", ["-f", "corefud"])
    assert [p.code for p in problems] == ["token_mismatch"]  # the key has "a" there
