"""One compact document being read, then built: its nodes (words and empty nodes) from its
token lines, its mentions (`scoring.readers.compact_mentions`), and at its end the
`Document` with its markables (`scoring.readers.compact_markables`), split antecedents and
bridges. The reader (`scoring.readers.compact._Reader`) makes one per document."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter, not_, sub
from typing import Any, cast

from scoring.model import LEADING_RANK, Document, Markable, Sentence
from scoring.readers.compact_markables import _MarkableMaking, _SentenceIndex
from scoring.readers.compact_mentions import _MentionReading
from scoring.readers.compact_state import _Made

FORMAT = "corefud"
MISC = 9
DEPS = 8
_EMPTY_ID = re.compile(r"^\d+\.\d+$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
_FIRST, _SECOND, _THIRD = itemgetter(0), itemgetter(1), itemgetter(2)


class _RowNodes(dict[Any, Any]):
    """Row → node index of a document with multiword ranges (None for a range's row)."""

    def __missing__(self, key: int) -> None:
        return None


class _DocumentBuilder(_MentionReading, _MarkableMaking):
    """One document being read. Its nodes (words and empty nodes, in file order) are
    parallel sequences: word position, rank among the empty nodes before the next word (0
    for a word), and, where the document has empty nodes, sentence, ID and DEPS (a zero's
    dependencies need them)."""

    def token(self, number: int, fields: tuple[str, ...]) -> None:
        token_id = fields[0]
        if token_id.isdigit():
            rank = 0
            self.tokens.append(fields[1])
            self.token_lines.append(number)
            self.zeros_before = 0
        elif _EMPTY_ID.match(token_id):
            if not self.node_sentences or self.node_sentences[-1] != self.sentence_index:
                self.zeros_before = LEADING_RANK  # before the sentence's first word
            self.zeros_before += 1
            rank = self.zeros_before
        elif _RANGE_ID.match(token_id):
            return  # a multiword token: its words follow on their own lines
        else:
            raise self.fail(
                number,
                f"token ID {token_id!r} (expected a word ID such as 5, an "
                "empty node such as 5.1 or a multiword range such as 5-6)",
                "token_id",
            )
        self.add_node(rank, token_id, fields[DEPS])
        self.annotate(number, len(self.positions) - 1, fields[MISC])

    def add_node(self, rank: int, token_id: str, deps: str) -> None:
        """One more node, at the current word position (its rank: 0 for a word)."""
        assert isinstance(self.positions, list)
        index = len(self.positions)
        if rank and self.ranks is None:  # the first empty node: keep ranks from now on
            self.ranks = [0] * index
            self.empty_count = [0] * index
        self.positions.append(len(self.tokens) - (rank == 0))
        if self.ranks is not None and self.empty_count is not None:  # kept together
            self.ranks.append(rank)
            self.empty_count.append((self.empty_count[-1] if index else 0) + (rank > 0))
        self.node_sentences.append(self.sentence_index)
        self.local_ids.append(token_id)
        self.node_deps.append(deps)

    def special_rows(
        self, rows: list[tuple[str, str, str, str]], row_lines: list[int], sizes: list[int]
    ) -> Sequence[int | None] | _RowNodes:
        """The nodes of a document with empty nodes or multiword tokens, from its token rows
        (ID, FORM, DEPS, MISC), by C-level operations over the columns; the node index of
        each row (None for a multiword range)."""
        ids = list(map(itemgetter(0), rows))
        words = list(map(str.isdigit, ids))
        self.tokens = list(compress(map(itemgetter(1), rows), words))
        self.token_lines = list(compress(row_lines, words))
        deps = list(map(itemgetter(2), rows))
        sentences = list(chain.from_iterable(map(repeat, range(len(sizes)), sizes)))
        row_node: list[int | None] | range | _RowNodes
        if "-" in "\t".join(ids):  # multiword ranges: rows that are not nodes
            is_node = list(map(not_, map(str.__contains__, ids, repeat("-"))))
            node_rows = list(compress(range(len(ids)), is_node))
            ids, words, deps, sentences = (
                list(compress(column, is_node)) for column in (ids, words, deps, sentences)
            )
            row_node = _RowNodes(zip(node_rows, range(len(node_rows))))
        else:
            row_node = range(len(ids))
        empty = list(map(not_, words))
        self.positions = list(map(sub, accumulate(map(int, words)), words))
        self.empty_count = list(accumulate(map(int, empty)))
        ranks = [0] * len(ids)
        for node in compress(range(len(ids)), empty):  # its rank among the empty nodes
            if not node or sentences[node] != sentences[node - 1]:
                ranks[node] = LEADING_RANK + 1  # before the sentence's first word
            else:
                ranks[node] = ranks[node - 1] + 1 if empty[node - 1] else 1
        self.ranks = ranks
        self.local_ids, self.node_deps, self.node_sentences = ids, deps, sentences
        return row_node

    def sentence(self, sentence: Sentence) -> None:
        self.sentences.append(sentence)
        self.sentence_index += 1

    # the finished document
    def build(self) -> Document:
        """The document: its mentions closed (else a ScoringInputError), made markables,
        split antecedents and bridges resolved, the discourse-deixis layer apart."""
        self.check_closed()
        made, layers, built, mids = self.made_markables()
        ua_links: list[tuple[str, str, str, int]] = []  # (anaphor mid, anchor mid, rel, line)
        ua_elements: dict[int, tuple[str, ...]] = {}
        for (markable, element_of, bridges), layer in zip(made, layers):
            if layer == "identity":
                mid = markable.markable_id
                if mid in mids:
                    raise self.fail(
                        markable.line,
                        f"markable id {mid} is used twice (expected one mid per mention)",
                        "duplicate_markable",
                    )
                mids[mid] = len(built)
            if element_of:
                ua_elements[len(built)] = element_of
            if bridges:
                ua_links.extend(
                    (markable.markable_id, anchor, rel, markable.line) for anchor, rel in bridges
                )
            built.append(markable)
        if self.exact_ua:
            built = [
                self.with_elements(markable, ua_elements[i]) if i in ua_elements else markable
                for i, markable in enumerate(built)
            ]
            bridging = self.exact_bridges(ua_links, mids)
        else:
            built = self.apply_split_ante(built, layers)
            bridging = self.resolve_bridges(built, layers)
        if "discourse_deixis" in layers:
            identity = tuple(m for m, layer in zip(built, layers) if layer == "identity")
            deixis = tuple(m for m, layer in zip(built, layers) if layer == "discourse_deixis")
        else:
            identity, deixis = tuple(built), ()
        return Document(
            name=self.name,
            path=self.path,
            line=self.line,
            tokens=tuple(self.tokens),
            identity=identity,
            discourse_deixis=deixis,
            bridging=tuple(bridging),
            token_lines=tuple(self.token_lines),
            sentences=tuple(self.sentences),
            metadata={**self.globals, "format": FORMAT, "global.Entity": self.header},
        )

    def check_closed(self) -> None:
        """A ScoringInputError for the first mention (or discontinuous part) never closed."""
        for stack in list(self.open.values()) + list(self.parts_open.values()):
            if stack:
                mention = stack[0]
                raise self.fail(
                    mention.line,
                    f"mention of entity {mention.entity} is never "
                    f"closed (expected '{mention.entity})' before the end of "
                    f"document {self.name})",
                    "unclosed",
                )
        for stack in self.pending.values():
            if stack:
                mention = stack[0]
                missing = sorted(set(range(1, mention.parts_total + 1)) - mention.closed)
                raise self.fail(
                    mention.line,
                    f"discontinuous mention of entity {mention.entity} "
                    f"lacks part(s) {missing} of {mention.parts_total}",
                    "unclosed",
                )

    def made_markables(self) -> tuple[Sequence[Any], list[str], list[Markable], dict[str, int]]:
        """(made, layers, built, mids): (markable, element_of, bridges) of each mention still
        to check and its layer, and the markables already checked with their mids. Where C
        made them all (`mention_markables`) without a mid twice, ElementOf or bridges,
        nothing is left to check."""
        if self.made is None:
            read = self.markable
            locals_by_sentence = _SentenceIndex(self)
            made = [read(mention, locals_by_sentence) for mention in self.mentions]
            return made, [m.layer for m in self.mentions], [], {}
        made = self.make_the_rest(self.made) if None in self.made else cast(_Made, self.made)
        layers = ["identity"] * len(made)
        built = list(map(_FIRST, made))
        mids = dict(zip(map(_FIRST, built), range(len(built))))  # (markable_id first)
        if len(mids) == len(built) and not any(map(_SECOND, made)) and not any(map(_THIRD, made)):
            return [], layers, built, mids  # no mid twice, no ElementOf, no bridges
        return made, layers, [], {}  # the loop of `build` says which mid is used twice
