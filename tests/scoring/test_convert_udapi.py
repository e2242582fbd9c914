"""Compact files written by `python -m scoring convert --to compact` are read by udapi, the
library the CorefUD scorer reads with, as the same entities and mentions our reader sees."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import udapi.core.document as udapi_document

from scoring.convert import main as convert
from scoring.readers import compact
from tests.paths import CODI21, CODI22

ROOT = Path(__file__).resolve().parents[2]
# One-document files: udapi numbers entities over a whole file, and the UA files restart
# their entity ids in every document (docs/formats.md, "Converting")
FILES = sorted(
    [
        *CODI21.glob("AMI*.CONLLUA"),
        *CODI22.glob("AMI*.CONLLUA"),
        *(ROOT / "fixtures" / "baselines" / "codi-crac21").glob("*/AMI.CONLLUA"),
    ]
)


def udapi_partition(path: Path) -> list[set[tuple[int, ...]]]:
    """Each entity as the set of its mentions, a mention as its document token numbers."""
    logging.disable(logging.WARNING)  # udapi warns of every '_' syntactic HEAD
    try:
        doc = udapi_document.Document()
        doc.load_conllu(str(path))
    finally:
        logging.disable(logging.NOTSET)
    number = {
        id(node): i for i, node in enumerate(n for tree in doc.trees for n in tree.descendants)
    }
    return sorted(
        (
            sorted(tuple(sorted(number[id(w)] for w in m.words)) for m in e.mentions)
            for e in doc.coref_entities
        ),
        key=repr,
    )


def our_partition(path: Path) -> list[set[tuple[int, ...]]]:
    entities: dict[str, list[tuple[int, ...]]] = {}
    offset = 0  # one token numbering over the file, as udapi's above
    for doc in compact.read(path):
        for m in doc.identity:
            words = tuple(
                sorted(offset + p for start, end in m.parts for p in range(start, end + 1))
            )
            entities.setdefault(f"{doc.name}/{m.entity_id}", []).append(words)
        offset += len(doc.tokens)
    return sorted((sorted(mentions) for mentions in entities.values()), key=repr)


@pytest.mark.parametrize("source", FILES, ids=lambda p: p.name)
def test_udapi_reads_the_converted_file_as_we_do(tmp_path, source):
    target = tmp_path / "converted.conllu"
    assert convert(["--to", "compact", str(source), str(target)]) == 0
    header = next(
        line
        for line in target.read_text(encoding="utf-8").splitlines()
        if line.startswith("# global.Entity")
    )
    assert "head" not in header  # nothing to put there: udapi refuses an empty field
    theirs = udapi_partition(target)
    assert theirs and theirs == our_partition(target)


def test_there_are_files_to_convert():
    assert len(FILES) >= 8


def test_an_entity_bridging_to_itself_is_left_out_of_the_standard_bridge_field(tmp_path):
    """udapi refuses 'Bridge=e1<e1'; the mention-level link stays in our own field."""
    light = CODI21 / "light_test.CONLLUA"
    target = tmp_path / "light.conllu"
    assert convert(["--to", "compact", str(light), str(target)]) == 0
    for line in target.read_text(encoding="utf-8").splitlines():
        for item in line.split("\t")[-1].split("|") if "\t" in line else ():
            if item.startswith("Bridge="):
                for entry in item[len("Bridge=") :].split(","):
                    anchor, _, rest = entry.partition("<")
                    assert anchor != rest.partition(":")[0], line
