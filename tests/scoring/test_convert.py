"""Conversion between exploded and compact CONLL-UA (scoring.writers, scoring.convert)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import convert
from scoring.errors import ScoringInputError
from scoring.model import Document, Markable
from scoring.readers import compact, conll2012, exploded, muc7
from scoring.writers import write_compact, write_exploded
from tests import paths
from tests.paths import CONFORMANCE, COREFUD_TESTS

ROOT = Path(__file__).resolve().parents[2]
CODI = sorted(paths.CORPORA.glob("codi-crac2*/*.CONLLUA"))
GUM = sorted(paths.GUM.glob("*.conllu"))
DATA = Path(__file__).resolve().parent / "data"


def markable_key(m: Markable) -> tuple:
    return (
        m.markable_id,
        m.entity_id,
        m.parts,
        m.min_span,
        tuple(sorted(m.element_of)),
        m.zero,
        tuple(sorted(m.attributes)),
    )


def annotations(doc: Document) -> tuple:
    """Everything the exploded format carries, independent of markable order."""
    return (
        doc.name,
        doc.tokens,
        sorted(map(markable_key, doc.identity)),
        sorted(map(markable_key, doc.discourse_deixis)),
        sorted((b.anaphor, b.anchor, b.relation) for b in doc.bridging),
    )


def extra_columns(doc: Document) -> list[tuple[str, ...]]:
    return [
        tuple(row[13:]) + ("_",) * (15 - max(len(row), 13)) for s in doc.sentences for row in s.rows
    ]


@pytest.mark.parametrize("path", CODI, ids=[p.name for p in CODI])
def test_exploded_to_compact_to_exploded_keeps_every_annotation(path, tmp_path):
    original = exploded.read(str(path))
    with open(tmp_path / "c.conllu", "w", encoding="utf-8") as out:
        write_compact(original, out)
    middle = compact.read(tmp_path / "c.conllu")
    assert [annotations(d)[:3] for d in middle] == [annotations(d)[:3] for d in original]
    with open(tmp_path / "e.conllua", "w", encoding="utf-8") as out:
        write_exploded(middle, out)
    back = exploded.read(str(tmp_path / "e.conllua"))
    assert [annotations(d) for d in back] == [annotations(d) for d in original]
    assert [extra_columns(d) for d in back] == [extra_columns(d) for d in original]
    assert [[s.comments for s in d.sentences] for d in back] == [
        [s.comments for s in d.sentences] for d in original
    ]


def relations(doc: Document) -> tuple:
    """Mentions, SplitAnte and Bridge by entity and span (markable ids are synthetic)."""
    by_id = {m.markable_id: m for m in doc.identity}
    mention = lambda m: (m.entity_id, m.parts, m.head, m.min_span)  # noqa: E731
    split = sorted({(m.entity_id, p) for m in doc.identity for p in m.element_of})
    bridges = sorted(
        (mention(by_id[b.anaphor]), mention(by_id[b.anchor]), b.relation) for b in doc.bridging
    )
    return doc.name, doc.tokens, sorted(map(mention, doc.identity)), split, bridges


@pytest.mark.parametrize("path", GUM, ids=[p.stem for p in GUM])
def test_compact_to_exploded_to_compact_keeps_mentions_split_antecedents_and_bridges(
    path, tmp_path
):
    original = compact.read(path)
    convert.convert(str(path), str(tmp_path / "e.conllua"), "exploded")
    assert [relations(d)[:3] for d in exploded.read(str(tmp_path / "e.conllua"))] == [
        relations(d)[:3] for d in original
    ]
    convert.convert(str(tmp_path / "e.conllua"), str(tmp_path / "c.conllu"), "compact")
    back = compact.read(tmp_path / "c.conllu")
    assert [relations(d) for d in back] == [relations(d) for d in original]
    assert any(r[3] or r[4] for r in map(relations, original))


def test_compact_heads_and_discontinuous_mentions_survive_a_round_trip(tmp_path):
    row = lambda i, misc="_": (  # noqa: E731
        "\t".join(
            [
                i,
                f"w{i}",
                "_",
                "_",
                "_",
                "_",
                "0",
                "_",
                "_",  # noqa
                misc,
            ]
        )
        + "\n"
    )
    source = tmp_path / "s.conllu"
    source.write_text(
        "# newdoc id = d\n# global.Entity = eid-etype-head-other\n"
        + row("1", "Entity=(e1[1/2]-person-2-")
        + row("2", "Entity=e1[1/2])")
        + row("3")
        + row("4", "Entity=(e1[2/2]-person-")
        + row("5", "Entity=e1[2/2])(e2-place-1-)")
        + "\n",
        encoding="utf-8",
    )
    convert.convert(str(source), str(tmp_path / "c.conllu"), "compact")
    [before], [after] = compact.read(source), compact.read(tmp_path / "c.conllu")
    assert (
        [(m.entity_id, m.parts, m.head) for m in after.identity]
        == [(m.entity_id, m.parts, m.head) for m in before.identity]
        == [("e1", ((0, 1), (3, 4)), 1), ("e2", ((4, 4),), 4)]
    )


def test_conll_and_muc7_files_convert_to_compact(tmp_path):
    conll = CONFORMANCE / "conll-reference" / "TC-A-1" / "key.conll"
    for source, reader in ((conll, conll2012), (DATA / "muc7_key.sgml", muc7)):
        target = tmp_path / f"{source.stem}.conllu"
        convert.convert(str(source), str(target), "compact")
        before, after = reader.read(source), compact.read(target)
        assert [(d.name, d.tokens) for d in after] == [(d.name, d.tokens) for d in before]
        assert [sorted((m.entity_id, m.parts) for m in d.identity) for d in after] == [
            sorted((m.entity_id, m.parts) for m in d.identity) for d in before
        ]


def test_main_reports_a_bad_input_on_stderr_with_exit_2_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.conllu"
    bad.write_text(
        "# newdoc id = d\n1\tw\t_\t_\t_\t_\t0\t_\t_\tEntity=(e1-x-1-\n\n", encoding="utf-8"
    )
    out = tmp_path / "out.conllua"
    assert convert.main(["--to", "exploded", str(bad), str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2: ") and "never closed" in err
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


def test_main_refuses_missing_files_unknown_targets_and_overwriting_the_input(tmp_path, capsys):
    assert convert.main(["--to", "compact", str(tmp_path / "nope"), str(tmp_path / "o")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert convert.main(["--to", "xml", str(DATA / "muc7_key.sgml"), str(tmp_path / "o")]) == 2
    same = str(tmp_path / "same.sgml")
    Path(same).write_text("<DOC></DOC>", encoding="utf-8")
    assert convert.main(["--to", "compact", same, same]) == 2
    assert "overwrite" in capsys.readouterr().err


def test_python_m_scoring_convert_runs_the_converter(tmp_path):
    out = tmp_path / "k.conllu"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring",
            "convert",
            "--to",
            "compact",
            str(DATA / "muc7_key.sgml"),
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [d.name for d in compact.read(out)] == ["nyt960214.0704", "nyt960214.0705"]


def test_crossing_markables_round_trip_through_exploded_with_named_closings(tmp_path):
    """e1 over tokens 0-2 and e2 over 1-3 cross: exploded closes them by name."""
    row = lambda i, misc="_": (  # noqa: E731
        "\t".join(
            [
                i,
                f"w{i}",
                "_",
                "_",
                "_",
                "_",
                "0",
                "_",
                "_",  # noqa
                misc,
            ]
        )
        + "\n"
    )
    source = tmp_path / "s.conllu"
    source.write_text(
        "# newdoc id = d\n"
        + row("1", "Entity=(e1-x-1-")
        + row("2", "Entity=(e2-x-1-")
        + row("3", "Entity=e1)")
        + row("4", "Entity=e2)")
        + "\n",
        encoding="utf-8",
    )
    convert.convert(str(source), str(tmp_path / "e.conllua"), "exploded")
    text = (tmp_path / "e.conllua").read_text(encoding="utf-8")
    assert "m1)" in text and "m2)" in text
    back = exploded.read(str(tmp_path / "e.conllua"), allow_crossing=True)
    assert sorted((m.entity_id, m.parts) for m in back[0].identity) == [
        ("e1", ((0, 2),)),
        ("e2", ((1, 3),)),
    ]


def test_crossing_mentions_of_one_entity_are_refused_by_the_compact_writer(tmp_path):
    source = (
        COREFUD_TESTS
        / "tests-ua"
        / "partial-match-corefud"
        / "overlapping_mentions"
        / "TC-OLMC-5.response"
    )
    docs = exploded.read(str(source), discontinuous=True, allow_crossing=True)
    with (
        pytest.raises(ScoringInputError) as caught,
        open(tmp_path / "c.conllu", "w", encoding="utf-8") as out,
    ):
        write_compact(docs, out)
    assert caught.value.code == "unwritable"
    assert "entity 10043" in str(caught.value)


UA_SUITE = sorted(
    p for p in (COREFUD_TESTS / "tests-ua").rglob("*") if p.suffix in (".key", ".response", ".sys")
)


def test_the_ua_suite_files_survive_exploded_to_compact_to_exploded(tmp_path):
    """Zeros, discontinuous markables (a repeated MarkableID) and crossing markables; the
    only refusals are the files with crossing mentions of one entity."""
    refused = []
    settings = {"discontinuous": True, "allow_crossing": True}
    for path in UA_SUITE:
        original = exploded.read(str(path), **settings)
        try:
            with open(tmp_path / "c.conllu", "w", encoding="utf-8") as out:
                write_compact(original, out)
        except ScoringInputError as problem:
            assert problem.code == "unwritable"
            refused.append(path.name)
            continue
        with open(tmp_path / "e.conllua", "w", encoding="utf-8") as out:
            write_exploded(compact.read(tmp_path / "c.conllu"), out)
        back = exploded.read(str(tmp_path / "e.conllua"), **settings)
        assert [annotations(d) for d in back] == [annotations(d) for d in original], path
    assert len(UA_SUITE) > 130
    assert sorted(refused) == ["TC-OLMC-5.response", "TC-OLMC-6.response", "TC-OLMC-7.response"]


COREFUD_SUITE = sorted(
    p for p in (COREFUD_TESTS / "tests-corefud").rglob("*") if p.suffix in (".key", ".response")
)


def test_the_corefud_suite_files_survive_compact_to_exploded_to_compact(tmp_path):
    """Mentions (parts, zeros) and word heads come back; zero heads and empty nodes inside
    multi-word mentions are what exploded files cannot carry."""

    def mentions(doc: Document, zero_headed: set) -> list:
        return sorted(
            (
                m.entity_id,
                m.parts,
                m.zero,
                None if m.head_zero or (m.entity_id, m.parts, m.zero) in zero_headed else m.head,
            )
            for m in doc.identity
        )

    for path in COREFUD_SUITE:
        original = compact.read(path)
        # an empty-node head does not survive (the compact writer then heads the mention by
        # its first node, as a mention without a head is read)
        zero_headed = {
            (m.entity_id, m.parts, m.zero) for d in original for m in d.identity if m.head_zero
        }
        with open(tmp_path / "e.conllua", "w", encoding="utf-8") as out:
            write_exploded(original, out)
        middle = exploded.read(str(tmp_path / "e.conllua"), discontinuous=True, allow_crossing=True)
        with open(tmp_path / "c.conllu", "w", encoding="utf-8") as out:
            write_compact(middle, out)
        back = compact.read(tmp_path / "c.conllu")
        assert [mentions(d, zero_headed) for d in back] == [
            mentions(d, zero_headed) for d in original
        ], path
    assert len(COREFUD_SUITE) > 130


@pytest.mark.parametrize("matching", ["exact", "partial-corefud", "head"])
def test_converted_files_score_as_their_exploded_originals(tmp_path, matching):
    """The natural key/response pair AMI ES2004a (2021 test vs 2022 dev): scored as exploded
    files and as their compact conversions, every metric agrees, under every matching.

    A '-Pseudo' entity is non-referring in a UA file but an ordinary entity in a compact file
    (as the CorefUD scorer reads it), so the exploded side here gives those entities an
    ordinary id: the conversion itself must change no number."""
    from scoring import score_files

    pair = {}
    for side, name in (
        ("key", "codi-crac21/AMI_test_partial.ES2004a.CONLLUA"),
        ("response", "codi-crac22/AMI_dev_v2.2022.ES2004a.CONLLUA"),
    ):
        docs = exploded.read(str(paths.CORPORA / name))
        for doc in docs:
            doc.name = doc.name.split("/", 1)[1]  # the split prefix differs between releases
            doc.identity = tuple(
                m._replace(entity_id=m.entity_id.replace("-Pseudo", "-P")) for m in doc.identity
            )
        for fmt, writer, suffix in (
            ("ua", write_exploded, "conllua"),
            ("corefud", write_compact, "conllu"),
        ):
            path = tmp_path / f"{side}.{suffix}"
            with open(path, "w", encoding="utf-8") as out:
                writer(docs, out)
            pair[side, fmt] = str(path)
    words = ["-s", "-a", matching, "-m", "muc", "bcub", "ceafe", "ceafm", "blanc", "lea"]
    exploded_scores = score_files(pair["key", "ua"], pair["response", "ua"], ["-f", "ua"] + words)
    compact_scores = score_files(
        pair["key", "corefud"], pair["response", "corefud"], ["-f", "corefud"] + words
    )
    assert compact_scores["metrics"] == exploded_scores["metrics"]
    assert 0 < exploded_scores["metrics"]["muc"]["f1"] < 1


def test_convert_reads_discontinuous_exploded_markables(tmp_path):
    source = COREFUD_TESTS / "tests-ua" / "discontinuous-craft" / "TC-O.key"
    assert convert.main(["--to", "compact", str(source), str(tmp_path / "o.conllu")]) == 0
    [doc] = compact.read(tmp_path / "o.conllu")
    assert any(len(m.parts) > 1 for m in doc.identity)


def test_a_converted_file_gets_the_mode_of_a_new_file_or_of_the_file_it_replaces(tmp_path):
    """Written through a temporary file and renamed, it must still be readable as any new
    file is (0666 less the umask), not owner-only like a temporary file; a file it replaces
    keeps its mode."""
    source = str(DATA / "muc7_key.sgml")
    new, existing = tmp_path / "new.conllu", tmp_path / "existing.conllu"
    existing.write_text("old", encoding="utf-8")
    existing.chmod(0o640)
    mask = os.umask(0o022)
    try:
        convert.convert(source, str(new), "compact")
        convert.convert(source, str(existing), "compact")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(new.stat().st_mode) == 0o644
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640
    assert [d.name for d in compact.read(existing)] == ["nyt960214.0704", "nyt960214.0705"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["existing.conllu", "new.conllu"]
