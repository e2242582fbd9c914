"""`key_skeleton` / `validate_against_skeleton`: a response checked against the key's names,
word forms and sentence ids finds exactly the problems `validate_pair` finds against the key
itself, and the skeleton carries no annotation of the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scoring import parse_options
from scoring.api import key_skeleton, validate_against_skeleton, validate_pair
from tests.conftest import KEY_DOCS, RESPONSE_DOCS, conllua

ROOT = Path(__file__).resolve().parents[2]
GUM = ROOT / "fixtures" / "corefud" / "key" / "en_gum-corefud-test.conllu"
GUM_SYS = ROOT / "fixtures" / "corefud" / "string-match" / "en_gum-corefud-test.conllu"
COREFUD = parse_options(["-f", "corefud"]).options
UA = parse_options([]).options


def _same(key: Path, response: Path, options) -> list[tuple[str, str]]:
    direct = validate_pair(str(key), str(response), options=options)
    offline = validate_against_skeleton(
        key_skeleton(str(key), options=options), str(response), options=options, key_label=str(key)
    )
    seen = [(p.code, str(p)) for p in offline]
    assert seen == [(p.code, str(p)) for p in direct]
    return seen


def _ua_cases(tmp_path: Path) -> list[str]:
    good = conllua(RESPONSE_DOCS["light"])
    return [
        good,
        good.replace("dragon", "wyvern"),
        good.replace("light_2", "light_x"),
        conllua(RESPONSE_DOCS["light"][:1]),
        "this is not a CONLL-UA file\n",
    ]


def test_ua_responses_get_the_same_problems_offline(tmp_path):
    key = tmp_path / "light.conllua"
    key.write_text(conllua(KEY_DOCS["light"]), encoding="utf-8")
    codes = []
    for number, text in enumerate(_ua_cases(tmp_path)):
        response = tmp_path / f"r{number}.conllua"
        response.write_text(text, encoding="utf-8")
        codes.append([code for code, _ in _same(key, response, UA)])
    assert codes[0] == [] and "token_mismatch" in codes[1]
    assert "missing_documents" in codes[2] and "extra_documents" in codes[2]
    assert codes[3] == ["missing_documents"] and codes[4]


def test_corefud_responses_get_the_same_problems_offline(tmp_path):
    assert _same(GUM, GUM_SYS, COREFUD) == []
    text = GUM_SYS.read_text(encoding="utf-8")
    first_sid = next(line for line in text.splitlines() if line.startswith("# sent_id"))
    renamed = tmp_path / "en_gum.conllu"
    renamed.write_text(text.replace(first_sid, "# sent_id = nowhere-1", 1), encoding="utf-8")
    assert [code for code, _ in _same(GUM, renamed, COREFUD)] == ["sentence_mismatch"]


def test_the_skeleton_holds_no_annotation():
    skeleton = key_skeleton(str(GUM), options=COREFUD)
    text = json.dumps(skeleton)
    assert "Entity" not in text and "eid" not in text and "salientEntities" not in text
    assert set(skeleton) == {"format", "documents"}
    assert all(set(doc) == {"name", "tokens", "sent_ids"} for doc in skeleton["documents"])
    assert skeleton["documents"][0]["name"] == "GUM_bio_byron"


@pytest.mark.parametrize("broken", [{"documents": [{"name": "d"}]}, {}])
def test_a_thin_skeleton_still_checks(tmp_path, broken):
    response = tmp_path / "r.conllua"
    response.write_text(conllua(RESPONSE_DOCS["ami"]), encoding="utf-8")
    problems = validate_against_skeleton(broken, str(response), options=UA)
    assert all(p.code in ("missing_documents", "extra_documents", "token_count") for p in problems)


@pytest.mark.parametrize("key, options", [(GUM, COREFUD), (None, UA)])
def test_a_key_checked_as_its_own_run_gives_its_skeleton_from_that_reading(tmp_path, key, options):
    """`validate_pair(key, key, skeleton={})` (how a gold key is checked when it is stored)
    fills the skeleton `key_skeleton` reads, so an upload needs no reading of its own."""
    if key is None:
        key = tmp_path / "light.conllua"
        key.write_text(conllua(KEY_DOCS["light"]), encoding="utf-8")
    skeleton: dict = {}
    assert validate_pair(str(key), str(key), options=options, skeleton=skeleton) == []
    assert skeleton == key_skeleton(str(key), options=options)
    assert skeleton["documents"] and all(doc["tokens"] for doc in skeleton["documents"])
