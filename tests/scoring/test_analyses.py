"""The CRAC 2026 analyses (scoring.analyses): entity range, entity type and mention type,
on small hand-made documents whose scores are worked out in the docstrings."""

from __future__ import annotations

import json
from pathlib import Path

from scoring.analyses import analysis_rows, entity_ranges, range_bucket
from scoring.readers import compact
from tests.paths import GUM

DATA = Path(__file__).resolve().parent / "data"

WORDS = [  # id, form, UPOS
    ("1", "John", "PROPN"),
    ("2", "visited", "VERB"),
    ("3", "Prague", "PROPN"),
    ("4", "and", "CCONJ"),
    ("5", "he", "PRON"),
    ("6", "liked", "VERB"),
    ("7", "trams", "NOUN"),
    ("8", "there", "ADV"),
    ("8.1", "_", "PRON"),
    ("9", "so", "ADV"),
    ("10", "in", "ADP"),
    ("11", "the", "DET"),
    ("12", "city", "NOUN"),
]


def document(name: str, entities: dict[str, str], extra: tuple = ()) -> str:
    """A one-sentence CorefUD document; ``entities`` maps a node ID to its Entity value;
    ``extra`` adds (id, form, UPOS) nodes (empty nodes a system predicted)."""
    lines = [
        f"# newdoc id = {name}",
        "# global.Entity = eid-etype-head-other",
        f"# sent_id = {name}-1",
        "# text = John visited Prague and he liked trams there so in the city",
    ]
    nodes = sorted([*WORDS, *extra], key=lambda n: tuple(map(int, n[0].split("."))) + (0,))
    for node, form, upos in nodes:
        head, deps = ("_", "6:nsubj") if "." in node else ("0", "_")
        misc = f"Entity={entities[node]}" if node in entities else "_"
        lines.append(
            f"{node}\t{form}\t{form.lower()}\t{upos}\t_\t_\t{head}\t"
            f"{'_' if '.' in node else 'dep'}\t{deps}\t{misc}"
        )
    return "\n".join(lines) + "\n\n"


KEY = {
    "1": "(e1-person-1-)",
    "3": "(e2-place-1-)",
    "5": "(e1-person-1-)",
    "8.1": "(e1-person-1-)",
    "11": "(e2-place-2-",
    "12": "e2)",
}
# The zero joins Prague's entity instead of John's.
WRONG_ZERO = {
    "1": "(e1-person-1-)",
    "3": "(e2-place-1-)",
    "5": "(e1-person-1-)",
    "8.1": "(e2-place-1-)",
    "11": "(e2-place-2-",
    "12": "e2)",
}


def scores(tmp_path: Path, key: str, response: str) -> dict[tuple[str, str], tuple]:
    (tmp_path / "key.conllu").write_text(key)
    (tmp_path / "response.conllu").write_text(response)
    rows = analysis_rows(tmp_path / "key.conllu", tmp_path / "response.conllu")
    return {(r.mode, r.metric): (r.recall, r.precision, r.f1) for r in rows}


def close(found: tuple, recall: float, precision: float) -> bool:
    f1 = 2 * recall * precision / (recall + precision) if recall + precision else 0.0
    return all(abs(a - b) <= 1e-9 for a, b in zip(found, (recall, precision, f1)))


def test_range_buckets():
    assert [range_bucket(d) for d in (0, 9, 10, 99, 100, 999, 1000)] == [
        "0-9",
        "0-9",
        "10-99",
        "10-99",
        "100-999",
        "100-999",
        "1000+",
    ]


def test_a_perfect_response_scores_one_in_every_category(tmp_path):
    """John's entity: heads at nodes 0, 4 and 8 (the empty node counts): range 8, 0-9.
    Prague's: nodes 2 and 12: range 10, 10-99. Pronoun, zero and nominal anaphors: one each."""
    found = scores(tmp_path, document("d", KEY), document("d", KEY))
    assert sorted({mode for mode, _ in found}) == [
        "entity range 0-9",
        "entity range 10-99",
        "entity type person",
        "entity type place",
        "mention type nominal",
        "mention type pronoun",
        "mention type zero",
    ]
    assert all(value == (1.0, 1.0, 1.0) for value in found.values())


def test_a_zero_in_the_wrong_entity(tmp_path):
    """Response: {John, he}, {Prague, zero, the city}.

    0-9 (John's entity K = {J, he, z} against R = {J, he}): MUC R (3-2)/2 = 1/2, P 1;
    B³ R (2/3 + 2/3 + 0)/3 = 4/9, P 1; CEAFe φ = 2·2/(3+2) = 4/5 both.
    10-99 (Prague's K = {P, city} against R = {P, z, city}): MUC R 1, P (3-2)/2 = 1/2;
    B³ R 1, P (2/3 + 2/3 + 0)/3 = 4/9; CEAFe 4/5 both.
    Zero anaphor: its response entity holds no earlier mention of John's: a wrong link,
    R = P = 0. Pronoun (he after John) and nominal (the city after Prague): resolved."""
    found = scores(tmp_path, document("d", KEY), document("d", WRONG_ZERO))
    assert close(found[("entity range 0-9", "muc")], 1 / 2, 1)
    assert close(found[("entity range 0-9", "bcub")], 4 / 9, 1)
    assert close(found[("entity range 0-9", "ceafe")], 4 / 5, 4 / 5)
    assert close(found[("entity range 10-99", "muc")], 1, 1 / 2)
    assert close(found[("entity range 10-99", "bcub")], 1, 4 / 9)
    assert close(found[("entity range 10-99", "ceafe")], 4 / 5, 4 / 5)
    conll = found[("entity range 0-9", "conll")]
    parts = [found[("entity range 0-9", m)] for m in ("muc", "bcub", "ceafe")]
    assert abs(conll[2] - sum(p[2] for p in parts) / 3) <= 1e-12
    assert found[("entity type person", "muc")] == found[("entity range 0-9", "muc")]
    assert found[("entity type place", "bcub")] == found[("entity range 10-99", "bcub")]
    assert found[("mention type zero", "anaphor")] == (0.0, 0.0, 0.0)
    assert found[("mention type pronoun", "anaphor")] == (1.0, 1.0, 1.0)
    assert found[("mention type nominal", "anaphor")] == (1.0, 1.0, 1.0)


def test_an_empty_node_only_the_response_has_shifts_nothing(tmp_path):
    """A response with one more empty node (1.1, in no mention), otherwise the key: the
    nodes after it are one further on in the response, yet every mention still matches
    (words by position, empty nodes by position and rank)."""
    found = scores(tmp_path, document("d", KEY), document("d", KEY, extra=(("1.1", "_", "PRON"),)))
    assert all(value == (1.0, 1.0, 1.0) for value in found.values())
    assert len(found) == 7 * 4 - 3 * 3  # four rows per entity category, one per mention type


def test_a_zero_is_paired_by_its_dependencies_before_its_position(tmp_path):
    """The response predicts two empty nodes before "so" and puts John's zero on the
    second (8.2), the key on the first (8.1): by position and rank they differ, by their
    heads' dependencies (6:nsubj both) they are the same zero, so the response is perfect."""
    moved = {**{k: v for k, v in KEY.items() if k != "8.1"}, "8.2": "(e1-person-1-)"}
    found = scores(
        tmp_path, document("d", KEY), document("d", moved, extra=(("8.2", "_", "PRON"),))
    )
    assert found[("mention type zero", "anaphor")] == (1.0, 1.0, 1.0)
    assert all(value == (1.0, 1.0, 1.0) for value in found.values())


def test_a_document_the_response_lacks_is_all_missed(tmp_path):
    """Two key documents, the response answers one: recall halves, precision stays."""
    found = scores(tmp_path, document("a", KEY) + document("b", KEY), document("a", KEY))
    assert found[("entity range 0-9", "muc")] == (0.5, 1.0, 2 / 3)
    assert found[("mention type zero", "anaphor")] == (0.5, 1.0, 2 / 3)


def test_real_gum_documents_against_themselves():
    """Five GUM documents (mentions sharing a head, nested mentions, empty nodes): each
    against itself scores 1 in every category it has."""
    files = sorted(GUM.glob("*.conllu"))
    assert files, f"no GUM samples in {GUM}"
    for path in files:
        rows = analysis_rows(path, path)
        assert rows and all((r.recall, r.precision, r.f1) == (1.0, 1.0, 1.0) for r in rows)


def test_entity_ranges_are_udapis_on_the_gum_documents():
    """The 131 entities of two or more mentions of five GUM documents (empty nodes among
    them): the ranges udapi's corefud.Stats computes (reference data in
    tests/scoring/data/udapi-entity-ranges-gum.json, with how it was made)."""
    files = sorted(GUM.glob("*.conllu"))
    assert files, f"no GUM samples in {GUM}"
    reference = json.loads((DATA / "udapi-entity-ranges-gum.json").read_text())["ranges"]
    found = {doc.name: entity_ranges(doc) for path in files for doc in compact.read(path)}
    assert found == reference
    assert sum(map(len, found.values())) == 131


def test_the_first_mention_is_udapis_first_not_the_first_head(tmp_path):
    """A long mention whose head is its last word comes first (it starts first); a mention
    nested in it starts later, though its head comes earlier. Range: from the long mention's
    head (node 9, "city") to the last mention's (node 13), 4 — not 13 - 2 = 11."""
    lines = [
        "# newdoc id = n",
        "# global.Entity = eid-etype-head-other",
        "# sent_id = n-1",
        "# text = x",
    ]
    entities = {
        1: "Entity=(e1-place-10-",
        3: "Entity=(e1-place-1-)",
        10: "Entity=e1)",
        14: "Entity=(e1-place-1-)",
    }
    for word in range(1, 15):
        lines.append(f"{word}\tw{word}\tw\tNOUN\t_\t_\t0\tdep\t_\t{entities.get(word, '_')}")
    path = tmp_path / "n.conllu"
    path.write_text("\n".join(lines) + "\n\n")
    assert entity_ranges(compact.read(path)[0]) == {"e1": 4}


def test_the_docstring_examples_hold():
    import doctest

    import scoring.analyses

    result = doctest.testmod(scoring.analyses)
    assert result.attempted > 0 and result.failed == 0


def test_anaphors_without_upos_are_unknown_not_nominal(tmp_path):
    """AMI gives no UPOS (``_``): its anaphors' heads cannot be told pronoun from nominal.
    Here every word's UPOS is ``_``: the pronoun "he" and the nominal "the city" are both
    unknown anaphors (resolved, so 1.0); the zero stays a zero (its head is an empty node)."""
    blank = document("d", KEY).split("\n")
    blank = [
        "\t".join([*cells[:3], "_", *cells[4:]]) if len(cells) == 10 else line
        for line in blank
        for cells in [line.split("\t")]
    ]
    text = "\n".join(blank)
    found = scores(tmp_path, text, text)
    types = {mode for mode, _ in found if mode.startswith("mention type")}
    assert types == {"mention type unknown", "mention type zero"}
    assert close(found[("mention type unknown", "anaphor")], 1.0, 1.0)
