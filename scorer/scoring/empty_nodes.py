"""Empty-node evaluation of CRAC 2026: how well a run reconstructs the empty nodes of the
gold CoNLL-U file, beside (and independent of) its coreference.

The measures are those of the organizers' evaluator (``crac2026_empty_nodes_eval.py`` of
the CRAC 2026 empty-node baseline), computed here from their definitions
(docs/crac-evaluation.md §2.5):

* every line that starts with ASCII digits and a dot (``5.1``; also ``5.1.1``, ``5.``,
  ``5.1-5.1``, as the evaluator's ``^[0-9]*[.]`` takes them) is an empty node. It belongs
  to the sentence counted by the blank lines before it (the first sentence is 0; every
  blank line of the file counts, so the two files must lay their sentences out alike, as
  CorefUD files do), has the word order ``N`` (the digits before the dot), its FORM, LEMMA,
  UPOS, XPOS and FEATS, and the head and relation of the **first** item of its DEPS column
  (``head:deprel``, split at the first colon; the head read as Python's ``int`` reads it,
  ``+2`` and `` 2`` included, as the evaluator does);
* each measure keys every empty node by a tuple of these, and compares the multisets of the
  keys of the key (gold) file and of the response file::

      tp = |K ∩ R|,  fp = |R − K|,  fn = |K − R|     (multiset operations)
      precision = tp / (tp + fp),  recall = tp / (tp + fn),  F1 = 2 tp / (2 tp + fp + fn)

  each 0 where its denominator is 0. The keys (`MEASURES`): ARC (sentence, head); DEP
  (+ deprel); WO (+ word order); DEP_WO (+ deprel, word order); FORM, LEMMA, UPOS, XPOS,
  FEATS (sentence, head, that field); ALL (every field).

Files are read as the evaluator reads them: UTF-8 with an optional byte order mark, every
``\r\n``, lone ``\r`` and ``\n`` a line end (Python's universal newlines), so that a file
with CR line ends scores as one with LF, and ``\r\r\n`` is a line end and a blank line (the
evaluator then counts a sentence per line: a warning says so). Every empty node line the
evaluator scores is scored; no line that it reads as an empty node is skipped.

Where the evaluator stops with a traceback, this module refuses the file naming its line:
an empty node line of fewer than nine tab-separated columns (the evaluator reads DEPS, the
ninth, and ignores what follows it), a word order that is not a number (an ID ``.5``), a
first DEPS item without ``:`` (``_`` included), a head Python's ``int`` does not read. One
exception: an empty node whose head is itself an empty node (``17.2:conj``, which the
evaluator cannot read) is keyed by that ID here, so that such a run scores where the
evaluator gives no number (docs/scoring-deviations.md).
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
_EVALUATED = re.compile(r"([0-9]*)\.")  # the evaluator's empty node line: ^[0-9]*[.]


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


_CR_CR_LF = b"\r\r\n"


def _lines(path: str, warnings: list[str] | None = None) -> Iterator[tuple[int, str]]:
    """(line number, text) of a UTF-8 file, optional BOM dropped, lines split as Python's
    universal newlines split them (``\r\n``, ``\r``, ``\n``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ScoringInputError(
            path, None, f"cannot open the file ({exc.strerror})", code="unreadable"
        ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        column = exc.start - max(data.rfind(b"\n", 0, exc.start), data.rfind(b"\r", 0, exc.start))
        raise ScoringInputError(
            path,
            before.count(b"\n") + 1,
            f"bytes that are not UTF-8 at column {column} (expected a UTF-8 text file)",
            code="encoding",
        ) from None
    if _CR_CR_LF in data and warnings is not None:
        warnings.append(
            f"{path}: lines end in CR CR LF; read as the empty-node evaluator reads them "
            "(each such line end is a line end and a blank line, so every line starts a "
            "new sentence)"
        )
    yield from enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1)


def _head(text: str) -> int | tuple[int, int] | None:
    """The evaluator's ``int(head)``; an empty node's ID as (N, M)."""
    try:
        return int(text)
    except ValueError:
        found = _EMPTY_ID.fullmatch(text)
        return (int(found[1]), int(found[2])) if found else None


def read_empty_nodes(path: str | Path, warnings: list[str] | None = None) -> list[EmptyNode]:
    """Every empty node of a CoNLL-U file, in file order.

    Raises `ScoringInputError` (file, line, what is wrong, what was expected) for an empty
    node line the measures cannot key: see the module's docstring. ``warnings`` receives
    what a user should know (CR CR LF line ends).

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
    for number, line in _lines(path, warnings):
        if not line:
            sentence += 1
            continue
        found = _EVALUATED.match(line)
        if found is None:
            continue  # a word, a comment, a multiword range: no empty node
        nodes.append(_empty_node(path, number, line, found[1], sentence))
    return nodes


def _empty_node(path: str, number: int, line: str, order: str, sentence: int) -> EmptyNode:
    """The empty node of one line the evaluator reads as one (``order``: the digits
    before its first dot)."""
    columns = line.split("\t")
    if not order:
        raise ScoringInputError(
            path,
            number,
            f"empty node ID {columns[0]!r} has no word order before its dot (expected e.g. 5.1)",
            code="empty_node_id",
        )
    if len(columns) < 9:
        raise ScoringInputError(
            path,
            number,
            f"empty node {columns[0]} has {len(columns)} tab-separated columns (expected "
            "the 10 of CoNLL-U, at least the 9 up to DEPS)",
            code="empty_node_columns",
        )
    head_text, colon, deprel = columns[8].split("|", 1)[0].partition(":")
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
    form, lemma, upos, xpos, feats = columns[1:6]
    return EmptyNode(sentence, int(order), form, lemma, upos, xpos, feats, head, deprel, number)


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
    warnings: list[str] = []
    counts = empty_node_counts(
        read_empty_nodes(key_path, warnings), read_empty_nodes(response_path, warnings)
    )
    metrics = {name: MetricResult(name, _prf(value), (value,)) for name, value in counts.items()}
    result = CorpusResult(metrics=metrics, conll=None)
    result.warnings.extend(warnings)
    return result
