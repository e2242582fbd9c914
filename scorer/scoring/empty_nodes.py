"""Empty-node evaluation of CRAC 2026: how well a run reconstructs the empty nodes of the
gold CoNLL-U file, beside (and independent of) its coreference.

The measures are those of the organizers' evaluator (``crac2026_empty_nodes_eval.py`` of
the CRAC 2026 empty-node baseline), computed here from their definitions
(docs/crac-evaluation.md §2.5):

* every line whose ID is ``N.M`` is an empty node. It belongs to the sentence counted by the
  blank lines before it (the first sentence is 0; every blank line of the file counts, so
  the two files must lay their sentences out alike, as CorefUD files do), has the word order
  ``N``, its FORM, LEMMA, UPOS, XPOS and FEATS, and the head and relation of the **first**
  item of its DEPS column (``head:deprel``);
* each measure keys every empty node by a tuple of these, and compares the multisets of the
  keys of the key (gold) file and of the response file::

      tp = |K ∩ R|,  fp = |R − K|,  fn = |K − R|     (multiset operations)
      precision = tp / (tp + fp),  recall = tp / (tp + fn),  F1 = 2 tp / (2 tp + fp + fn)

  each 0 where its denominator is 0. The keys (`MEASURES`): ARC (sentence, head); DEP
  (+ deprel); WO (+ word order); DEP_WO (+ deprel, word order); FORM, LEMMA, UPOS, XPOS,
  FEATS (sentence, head, that field); ALL (every field).

Where the evaluator stops with a traceback, this module says what is wrong: an empty node
with fewer than ten columns, an ID that is not ``N.M``, a DEPS column without ``head:deprel``
(``_`` included) or with a head that is not a node ID. An empty node whose head is itself an
empty node (``17.2:conj``, which the evaluator cannot read) is keyed by that ID here: such a
run scores, where the evaluator gives no number.

Files are read as UTF-8 with an optional byte order mark; lines end at ``\\n``, with any
``\\r`` before it dropped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scoring.errors import ScoringInputError
from scoring.results import PRF, CorpusResult, MetricResult, PRCounts, ratio
from scoring.vocabulary import EMPTY_NODE_MEASURES, EMPTY_NODES

__all__ = [
    "EMPTY_NODES",
    "MEASURES",
    "EmptyNode",
    "empty_node_counts",
    "empty_node_result",
    "read_empty_nodes",
]

_FIELDS = {
    "ARC": (),
    "DEP": ("deprel",),
    "WO": ("word_order",),
    "DEP_WO": ("deprel", "word_order"),
    "FORM": ("form",),
    "LEMMA": ("lemma",),
    "UPOS": ("upos",),
    "XPOS": ("xpos",),
    "FEATS": ("feats",),
    "ALL": ("deprel", "word_order", "form", "lemma", "upos", "xpos", "feats"),
}
MEASURES = EMPTY_NODE_MEASURES
"""The ten measures, named and ordered as the organizers' evaluator prints them. Each keys
an empty node by (sentence, head) and the fields listed in `_FIELDS`."""
assert tuple(_FIELDS) == MEASURES

_EMPTY_ID = re.compile(r"([0-9]+)\.([0-9]+)")
_WORD_ID = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class EmptyNode:
    """One empty node of a file, with what the measures compare."""

    sentence: int  # blank lines before it in the file
    word_order: int  # N of its ID N.M
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int | tuple[int, int]  # first DEPS item's head: a word ID, or an empty node's (N, M)
    deprel: str
    line: int  # 1-based line in its file

    def key(self, measure: str) -> tuple[object, ...]:
        """The tuple ``measure`` compares this node by."""
        return (self.sentence, self.head, *(getattr(self, name) for name in _FIELDS[measure]))


def _lines(path: str) -> Iterator[tuple[int, str]]:
    """(line number, text without its line end) of a UTF-8 file, optional BOM dropped."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ScoringInputError(
            path, None, f"cannot open the file ({exc.strerror})", code="unreadable"
        ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScoringInputError(
                path,
                number,
                f"bytes that are not UTF-8 at column {exc.start + 1} (expected a UTF-8 text file)",
                code="encoding",
            ) from None
        yield number, text.rstrip("\r")


def _head(text: str) -> int | tuple[int, int] | None:
    if _WORD_ID.fullmatch(text):
        return int(text)
    found = _EMPTY_ID.fullmatch(text)
    return (int(found[1]), int(found[2])) if found else None


def read_empty_nodes(path: str | Path) -> list[EmptyNode]:
    """Every empty node of a CoNLL-U file, in file order.

    Raises `ScoringInputError` (file, line, what is wrong, what was expected) for an empty
    node line the measures cannot key: see the module's docstring.

    >>> import tempfile, os
    >>> word = "\\t".join(["1", "I", "_", "_", "_", "_", "0", "root", "0:root", "_"])
    >>> empty = "\\t".join(["1.1", "am", "be", "AUX", "_", "_", "_", "_", "1:cop|0:x", "_"])
    >>> text = word + "\\n" + empty + "\\n\\n"
    >>> with tempfile.NamedTemporaryFile("w", suffix=".conllu", delete=False) as f:
    ...     _ = f.write(text)
    >>> [(n.sentence, n.word_order, n.head, n.deprel, n.lemma) for n in read_empty_nodes(f.name)]
    [(0, 1, 1, 'cop', 'be')]
    >>> os.unlink(f.name)
    """
    path = str(path)
    nodes: list[EmptyNode] = []
    sentence = 0
    for number, line in _lines(path):
        if not line:
            sentence += 1
            continue
        first = line.partition("\t")[0]
        if not first[:1].isdigit() and not first.startswith("."):
            continue  # a comment, or a line the measures do not read
        if "." not in first or "-" in first:
            continue  # a word or a multiword token range
        columns = line.split("\t")
        found = _EMPTY_ID.fullmatch(columns[0])
        if found is None:
            raise ScoringInputError(
                path,
                number,
                f"empty node ID {columns[0]!r} is not of the form N.M (expected e.g. 5.1)",
                code="empty_node_id",
            )
        if len(columns) != 10:
            raise ScoringInputError(
                path,
                number,
                f"empty node {columns[0]} has "
                f"{len(columns)} tab-separated columns (expected the 10 "
                "of CoNLL-U)",
                code="empty_node_columns",
            )
        deps = columns[8].split("|", 1)[0]
        head_text, colon, deprel = deps.partition(":")
        head = _head(head_text) if colon else None
        if head is None:
            raise ScoringInputError(
                path,
                number,
                f"empty node {columns[0]} has DEPS {columns[8]!r}; the "
                "empty-node evaluation needs its first item as HEAD:DEPREL with HEAD a node "
                "ID (expected e.g. 5:nsubj)",
                code="empty_node_deps",
            )
        nodes.append(
            EmptyNode(
                sentence,
                int(found[1]),
                columns[1],
                columns[2],
                columns[3],
                columns[4],
                columns[5],
                head,
                deprel,
                number,
            )
        )
    return nodes


def empty_node_counts(
    key: Iterable[EmptyNode], response: Iterable[EmptyNode]
) -> dict[str, PRCounts]:
    """The counts of every measure: ``p_num = r_num = tp``, ``p_den = tp + fp`` (the
    response's nodes), ``r_den = tp + fn`` (the key's nodes).

    >>> def node(sentence, head, deprel="nsubj", form="_"):
    ...     return EmptyNode(sentence, 3, form, "_", "_", "_", "_", head, deprel, 1)
    >>> counts = empty_node_counts([node(0, 2), node(0, 2), node(1, 4)],
    ...                            [node(0, 2), node(1, 4, "obj"), node(1, 5)])
    >>> counts["ARC"], counts["DEP"]
    (PRCounts(p_num=2, p_den=3, r_num=2, r_den=3), PRCounts(p_num=1, p_den=3, r_num=1, r_den=3))
    """
    key, response = list(key), list(response)
    counts = {}
    for measure in MEASURES:
        gold = Counter(node.key(measure) for node in key)
        system = Counter(node.key(measure) for node in response)
        tp = sum((gold & system).values())
        counts[measure] = PRCounts(tp, len(response), tp, len(key))
    return counts


def _prf(counts: PRCounts) -> PRF:
    """Recall, precision and F1 = 2 tp / (|K| + |R|), as the evaluator computes them."""
    return PRF(
        ratio(counts.r_num, counts.r_den),
        ratio(counts.p_num, counts.p_den),
        ratio(2 * counts.p_num, counts.p_den + counts.r_den),
    )


def empty_node_result(key_path: str | Path, response_path: str | Path) -> CorpusResult:
    """The ten measures of a response file against a key file, as a `CorpusResult` whose
    ``metrics`` are named as `MEASURES` (no per-document results: the evaluation is of the
    whole file). Raises `ScoringInputError` for an empty node the measures cannot read."""
    counts = empty_node_counts(read_empty_nodes(key_path), read_empty_nodes(response_path))
    metrics = {name: MetricResult(name, _prf(value), (value,)) for name, value in counts.items()}
    return CorpusResult(metrics=metrics, conll=None)
