"""Compact files: a span in two entities is scored as the CorefUD scorer scores it.

Both reference scorers map such a span to the last cluster that holds it; the CorefUD scorer
takes the clusters in udapi's order of entities (by first mention over the whole file, ties
by entity id), so the compact reader gives each document that order (`Document.
entity_order`) and the engine scores in it (docs/scoring-deviations.md).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import udapi.core.document

from scoring import score_files
from scoring.readers import compact, entity_ranks
from tests.paths import GUM, TEST_DATA

REPRO = TEST_DATA / "repros" / "compact-same-span-entity-order"
OPTIONS = ["-f", "corefud", "-a", "exact", "-s", "-m", "muc", "bcub", "lea", "blanc"]


def recall_precision(result: dict, metric: str) -> tuple[float, float]:
    found = result["metrics"][metric]
    return found["recall"], found["precision"]


@pytest.mark.parametrize("response", ["sys.conllu", "sys-swapped.conllu"])
def test_a_word_in_two_entities_scores_as_the_corefud_scorer(response):
    """`(6--1-)(1--1-)` and `(1--1-)(6--1-)` alike: entity 6 comes after entity 1 in udapi's
    order (same first mention, ids compared), so the word counts in entity 6 (the README's
    numbers of ufal/corefud-scorer 4fd7b0e)."""
    result = score_files(str(REPRO / "key.conllu"), str(REPRO / response), OPTIONS)
    expected = {"muc": (0.0, 1.0), "bcub": (0.5, 1.0), "lea": (0.0, 2 / 3), "blanc": (0.0, 0.0)}
    for metric, (recall, precision) in expected.items():
        found = recall_precision(result, metric)
        assert found == pytest.approx((recall, precision), abs=1e-9), metric


def test_an_entity_id_reused_in_two_documents_is_ordered_by_its_first_document():
    """The second trigger: entity 2 of the second document is ordered by its first mention
    in the first one, as udapi keeps one entity per id for the file (MUC R 0.4762 in the
    README: 10 of 21 key links)."""
    result = score_files(
        str(REPRO / "roundtrip-9600017-key.conllu"),
        str(REPRO / "roundtrip-9600017-sys.conllu"),
        ["-f", "corefud", "-a", "exact"],
    )
    assert result["metrics"]["muc"]["recall"] == pytest.approx(10 / 21, abs=1e-9)


def udapi_orders(path: Path) -> list[tuple[str, ...]]:
    """Each document's entities in udapi's order (its whole-file `coref_entities`)."""
    logging.disable(logging.WARNING)  # udapi warns about every empty HEAD column
    try:
        document = udapi.core.document.Document()
        document.load_conllu(str(path))
        entities = document.coref_entities
    finally:
        logging.disable(logging.NOTSET)
    ours = compact.read(path)
    names = [doc.name for doc in ours]
    by_document: dict[str, list[str]] = {name: [] for name in names}
    for entity in entities:
        seen = set()
        for mention in entity.mentions:
            bundle = mention.head.root.bundle
            name = _document_of(bundle, names)
            if name not in seen:
                eid = entity.eid
                if "GRP" in document.meta.get("global.Entity", ""):
                    eid = eid.partition(".")[2]  # udapi's per-document prefix "dN."
                by_document[name].append(compact.python_unescape(eid))
                seen.add(name)
    return [tuple(by_document[name]) for name in names]


def _document_of(bundle, names: list[str]) -> str:
    while bundle is not None:
        newdoc = bundle.trees[0].newdoc
        if newdoc:
            return newdoc if newdoc is not True else names[0]
        index = bundle.number - 2
        bundle = bundle.document.bundles[index] if index >= 0 else None
    return names[0]


@pytest.mark.parametrize(
    "path", sorted(GUM.glob("*.conllu")) + sorted(REPRO.glob("*.conllu")), ids=lambda p: p.name
)
def test_each_documents_entities_come_in_udapis_order(path):
    assert [doc.entity_order for doc in compact.read(path)] == udapi_orders(path)


@pytest.mark.parametrize(
    "path", sorted(GUM.glob("*.conllu")) + sorted(REPRO.glob("*.conllu")), ids=lambda p: p.name
)
def test_the_order_is_udapis_with_the_ranks_out_of_memory(path, monkeypatch):
    """Past `entity_ranks.IN_MEMORY` ids the ranks move to a SQLite file: here after every
    document, so an id reused in a later document is found there."""
    monkeypatch.setattr(entity_ranks, "IN_MEMORY", 0)
    assert [doc.entity_order for doc in compact.read(path)] == udapi_orders(path)


def test_ranks_moved_out_of_memory_are_found_with_the_recent_ones(monkeypatch):
    monkeypatch.setattr(entity_ranks, "IN_MEMORY", 2)
    ranks = entity_ranks.EntityRanks()
    ranks.add({"a": 0, "b": 1})
    assert ranks.stored is None
    ranks.add({"c": 2})  # the third: all three move to the file
    ranks.add({"d": 3})
    assert ranks.recent == {"d": 3}
    assert ranks.known(["d", "x", "b", "a"]) == {"d": 3, "b": 1, "a": 0}
    ranks.close()
    assert ranks.stored is None


@pytest.mark.parametrize("in_memory", [entity_ranks.IN_MEMORY, 0])
def test_the_order_compares_first_node_length_last_node_then_id_as_text(
    tmp_path, monkeypatch, in_memory
):
    """Entities by first mention: the earlier first word; from the same word the longer
    mention; then the earlier last word; then the id as text ('10' before '6')."""
    rows = [
        "1\ta\t_\t_\t_\t_\t0\t_\t_\tEntity=(6--1-)(10--1-)(7--1-",
        "2\tb\t_\t_\t_\t_\t1\t_\t_\tEntity=(8--1-)",
        "3\tc\t_\t_\t_\t_\t1\t_\t_\tEntity=7)",
    ]
    path = tmp_path / "order.conllu"
    path.write_text(
        "# global.Entity = eid-etype-head-other\n# newdoc id = d\n# sent_id = 1\n"
        + "\n".join(rows)
        + "\n\n# newdoc id = e\n# sent_id = 2\n"
        "1\tx\t_\t_\t_\t_\t0\t_\t_\tEntity=(9--1-)\n"
        "2\ty\t_\t_\t_\t_\t1\t_\t_\tEntity=(8--1-)\n\n",
        encoding="utf-8",
    )
    first, second = compact.read(path)
    assert first.entity_order == ("7", "10", "6", "8")
    assert second.entity_order == ("8", "9")  # 8 is ordered by its mention in document d
