"""The analyses of a CorefUD run that the CRAC 2026 organizers ask for: scores by entity
range, by entity type and by mention type. Pure functions over the compact reader's
documents; the platform stores their rows beside the scores (`analysis_rows`).

Mentions are compared by their **head** (head match, the CRAC primary matching): a key and a
response mention with the same head and span are the same mention, else the one mention of
a head on each side. A head is a word, by its position, or an empty node, by the position of
the next word and its rank among the empty nodes there, so empty nodes only one side has
shift nothing. Mentions headed by empty nodes are first paired by their heads' dependencies
(DEPS), as the CRAC 2024+ scoring pairs zeros (``--zero-match-method dependent``). A
mention's head is its ``head`` field, or its first node where the file gives none. Nodes
(for the entity range) are the words and empty nodes of the gold document in file order.

**Entity range** (udapi ``corefud.Stats``, ``report_entity_range``): the distance in nodes,
empty nodes counted, between the head of an entity's first mention and the head of its last,
mentions ordered as udapi orders them (by first node; of two starting at the same node, the
longer first; then by last node). Entities of two or more mentions fall in the buckets
`RANGE_BUCKETS` (``0-9`` … ``1000+``).

**Entity type**: the ``etype`` of the entity's mentions in the key (the first mention that
has one; ``none`` where no mention has one).

By range and by type, the key entities of one bucket are scored against the response
entities that go with them (both without singletons, as the CRAC primary score). Each
response entity goes with the key entity it shares most mention heads with (on a tie, the
one whose first mention comes first); one that shares none belongs to no bucket::

    K_c = {key entities in c},  R_c = {response entities that go with an entity of K_c}
    MUC, B³, CEAFe (and CoNLL, the mean of their F1) of K_c against R_c

so a response entity that merges a bucket's entity with smaller ones loses precision there,
and a bucket's entity that is split loses recall. Counts are summed over the documents.

**Mention type**: a mention is a *zero* when its head is an empty node, a *pronoun* when its
head's UPOS is ``PRON``, *nominal* when it has another UPOS (nouns, proper nouns and the
rest), and *unknown* when its head has no UPOS (``_``: AMI's files give none), never guessed
as nominal. For each type,
the anaphor-level score of `scoring.extra_metrics.zero_counts` with that type's mentions in
the place of zeros: each non-first key mention of the type is resolved (tp) when its
response counterpart follows a mention of the same key entity in its response entity; see
there for fn, wl and fp. Stored as metric ``anaphor``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring.clusters import Partition
from scoring.extra_metrics import zero_counts, zero_dependency_alignment
from scoring.metrics.contingency import Contingency
from scoring.metrics.coref import b_cubed, ceafe, muc
from scoring.model import Document, Markable
from scoring.readers import compact
from scoring.results import PRF, PRCounts, f_score
from scoring.serialize import ScoreRow, encode_counts
from scoring.vocabulary import ANAPHOR, CONLL

__all__ = [
    "ANALYSES",
    "MENTION_TYPES",
    "RANGE_BUCKETS",
    "analysis_mode",
    "analysis_rows",
    "document_analysis",
    "entity_ranges",
    "range_bucket",
]

ENTITY_RANGE, ENTITY_TYPE, MENTION_TYPE = "entity range", "entity type", "mention type"
ANALYSES = (ENTITY_RANGE, ENTITY_TYPE, MENTION_TYPE)
"""The analyses, as the first words of their rows' mode names."""

RANGE_BUCKETS = ((0, 9), (10, 99), (100, 999), (1000, None))
"""Entity range buckets in nodes, inclusive; None: no upper bound."""

MENTION_TYPES = ("pronoun", "zero", "nominal", "unknown")
NO_UPOS = ("", "_")
"""A UPOS cell that says nothing: the mention's type is unknown."""

ENTITY_METRICS = (("muc", muc), ("bcub", b_cubed), ("ceafe", ceafe))

Node = tuple[int, int]  # (word position, rank among the empty nodes before it; 0: the word)


MAX_CATEGORY = 80
"""Longest category kept in a mode name (an etype is the gold file's text; the platform
stores mode names of up to 100 characters)."""


def analysis_mode(analysis: str, category: str) -> str:
    """The mode name of an analysis's rows: ``entity range 10-99``, ``mention type zero``
    (a category longer than `MAX_CATEGORY` is cut there).

    >>> analysis_mode("entity type", "person")
    'entity type person'
    """
    return f"{analysis} {category[:MAX_CATEGORY]}"


def range_bucket(distance: int) -> str:
    """The bucket name of an entity range.

    >>> range_bucket(0), range_bucket(10), range_bucket(999), range_bucket(12000)
    ('0-9', '10-99', '100-999', '1000+')
    """
    for low, high in RANGE_BUCKETS:
        if high is None or distance <= high:
            return f"{low}+" if high is None else f"{low}-{high}"
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True, slots=True)
class _Mention:
    entity: str
    head: int  # node index of its head in its own file (the entity range counts these)
    anchor: Node  # its head as (word position, empty-node rank): the same on both sides
    span: tuple[object, ...]  # its parts, to tell apart mentions of one head
    type: str  # pronoun, zero, nominal, unknown
    order: tuple[object, ...]  # udapi's mention order: first node, more nodes first, last node
    deps: str = ""  # a zero's head's dependencies (the compact reader's ``deps``)


def _node_order(doc: Document) -> tuple[dict[Node, int], list[str]]:
    """Each node's index in file order, and each node's UPOS (from the layout rows)."""
    index: dict[Node, int] = {}
    upos: list[str] = []
    position = rank = 0
    for sentence in doc.sentences:
        for row in sentence.rows:
            node_id = row[0]
            if "-" in node_id:
                continue
            if "." in node_id:
                rank += 1
                index[(position, rank)] = len(upos)
            else:
                index[(position, 0)] = len(upos)
                position += 1
                rank = 0
            upos.append(row[3] if len(row) > 3 else "_")
    return index, upos


def _head(markable: Markable) -> Node:
    if markable.head is None:
        return markable.start, markable.zero
    return markable.head, markable.head_zero


def _mention_order(markable: Markable, index: dict[Node, int]) -> tuple[int, int, int]:
    """(first node, minus the number of nodes, last node): udapi's order of mentions (a
    mention starting at the same node as a longer one follows it)."""
    if markable.zero:
        node = index.get((markable.start, markable.zero), markable.start)
        return node, -1, node
    words = [(position, 0) for start, end in markable.parts for position in range(start, end + 1)]
    nodes = sorted(index.get(node, node[0]) for node in (*words, *markable.zeros))
    return nodes[0], -len(nodes), nodes[-1]


def _mentions(doc: Document | None) -> tuple[list[_Mention], dict[str, str]]:
    """A document's identity mentions (each once) and its entities' etypes."""
    if doc is None:
        return [], {}
    index, upos = _node_order(doc)
    mentions: dict[tuple[object, ...], _Mention] = {}
    etypes: dict[str, str] = {}
    for markable in doc.identity:
        node = _head(markable)
        code = index.get(node, node[0])  # without layout rows: the word position
        tag = upos[code] if code < len(upos) else ""
        if node[1]:
            kind = "zero"
        elif tag in NO_UPOS:
            kind = "unknown"
        else:
            kind = "pronoun" if tag == "PRON" else "nominal"
        span = (markable.parts, markable.zero, markable.zeros)
        attributes = dict(markable.attributes)
        mentions.setdefault(
            (markable.entity_id, node, span),
            _Mention(
                markable.entity_id,
                code,
                node,
                span,
                kind,
                _mention_order(markable, index),
                attributes.get("deps", "") if node[1] else "",
            ),
        )
        etype = attributes.get("etype", "")
        if etype and markable.entity_id not in etypes:
            etypes[markable.entity_id] = etype
    return list(mentions.values()), etypes


def entity_ranges(doc: Document) -> dict[str, int]:
    """The range of every entity of two or more mentions, by entity id: as udapi's
    ``corefud.Stats`` measures it (see the module's docstring; it may be negative there where
    a first mention's head follows the last one's, taken as a distance here)."""
    mentions, _ = _mentions(doc)
    by_entity: dict[str, list[_Mention]] = defaultdict(list)
    for mention in mentions:
        by_entity[mention.entity].append(mention)
    ranges = {}
    for entity, items in by_entity.items():
        if len(items) > 1:
            items.sort(key=lambda mention: mention.order)
            ranges[entity] = abs(items[-1].head - items[0].head)
    return ranges


def _response_codes(key: list[_Mention], response: list[_Mention]) -> list[int]:
    """Head matching: each response mention's code, the index of the key mention it
    matches, or a fresh code (len(key) and up). Mentions headed by empty nodes are paired
    first by their heads' dependencies, as the CRAC 2024+ scoring pairs zeros
    (`zero_dependency_alignment`); then a response mention matches the key mention of the
    same head and span; else the one key mention of its head when both sides have exactly
    one left there."""
    codes: list[int | None] = [None] * len(response)
    taken: set[int] = set()
    key_zeros: dict[Hashable, str] = {
        n: m.deps for n, m in enumerate(key) if m.anchor[1] and m.deps
    }
    response_zeros: dict[Hashable, str] = {
        n: m.deps for n, m in enumerate(response) if m.anchor[1] and m.deps
    }
    if key_zeros and response_zeros:
        for key_number, number in zero_dependency_alignment(key_zeros, response_zeros).items():
            codes[number] = key_number
            taken.add(key_number)
    free_key: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for number, mention in enumerate(key):
        if number not in taken:
            free_key[(mention.anchor, mention.span)].append(number)
    for number, mention in enumerate(response):
        if codes[number] is not None:
            continue
        same = free_key.get((mention.anchor, mention.span))
        if same:
            matched = codes[number] = same.pop(0)
            taken.add(matched)
    left_key: dict[Node, list[int]] = defaultdict(list)
    for number, mention in enumerate(key):
        if number not in taken:
            left_key[mention.anchor].append(number)
    left_response: dict[Node, list[int]] = defaultdict(list)
    for number, mention in enumerate(response):
        if codes[number] is None:
            left_response[mention.anchor].append(number)
    for head, numbers in left_response.items():
        if len(numbers) == 1 and len(left_key.get(head, ())) == 1:
            codes[numbers[0]] = left_key[head][0]
    fresh = len(key)
    for number, code in enumerate(codes):
        if code is None:
            codes[number] = fresh
            fresh += 1
    return codes  # type: ignore[return-value]


def _clusters(mentions: list[_Mention], codes: Sequence[int]) -> list[list[int]]:
    """Entities of two or more mentions as sorted lists of mention codes, in order of
    their first mention."""
    entities: dict[str, list[int]] = {}
    for mention, code in zip(mentions, codes):
        entities.setdefault(mention.entity, []).append(code)
    return [sorted(set(c)) for c in entities.values() if len(set(c)) > 1]


def _entity_counts(key: list[list[int]], response: list[list[int]]) -> dict[str, PRCounts]:
    table = Contingency(
        Partition(key, [None] * len(key)), Partition(response, [None] * len(response))
    )
    return {name: metric(table) for name, metric in ENTITY_METRICS}


def _owners(key: list[list[int]], response: list[list[int]]) -> list[int | None]:
    """For each response entity, the key entity it shares most heads with (the first such
    in key order on a tie), or None when it shares none."""
    entities_of: dict[int, list[int]] = defaultdict(list)
    for number, cluster in enumerate(key):
        for code in cluster:
            entities_of[code].append(number)
    owners: list[int | None] = []
    for cluster in response:
        shared: dict[int, int] = defaultdict(int)
        for code in cluster:
            for number in entities_of.get(code, ()):
                shared[number] += 1
        owners.append(min(shared, key=lambda n: (-shared[n], n)) if shared else None)
    return owners


def document_analysis(
    key: Document, response: Document | None
) -> dict[tuple[str, str], dict[str, PRCounts]]:
    """The counts of one document: ``{(analysis, category): {metric: PRCounts}}``, metrics
    ``muc``, ``bcub``, ``ceafe`` for the entity analyses and ``anaphor`` for mention types.
    A category appears where the key has an entity or an anaphor of it. ``response`` None:
    the response has no such document (everything missed)."""
    return _document_counts(_mentions(key), _mentions(response))


def _document_counts(
    key: tuple[list[_Mention], dict[str, str]], response: tuple[list[_Mention], dict[str, str]]
) -> dict[tuple[str, str], dict[str, PRCounts]]:
    (gold, etypes), (system, _) = key, response
    key_codes = list(range(len(gold)))
    response_codes = _response_codes(gold, system)
    # Entities in the order of their first mentions (udapi's order), not the reader's: a
    # tie of `_owners` goes to the entity that starts first.
    key_clusters = sorted(
        _clusters(gold, key_codes), key=lambda cluster: min(gold[code].order for code in cluster)
    )
    response_clusters = _clusters(system, response_codes)
    buckets: dict[tuple[str, str], list[int]] = defaultdict(list)
    for number, cluster in enumerate(key_clusters):
        ordered = sorted(cluster, key=lambda code: gold[code].order)
        distance = abs(gold[ordered[-1]].head - gold[ordered[0]].head)
        buckets[(ENTITY_RANGE, range_bucket(distance))].append(number)
        entity = gold[cluster[0]].entity
        buckets[(ENTITY_TYPE, etypes.get(entity, "none")[:MAX_CATEGORY])].append(number)
    owner = _owners(key_clusters, response_clusters)
    out: dict[tuple[str, str], dict[str, PRCounts]] = {}
    for category, members in buckets.items():
        chosen = set(members)
        out[category] = _entity_counts(
            [key_clusters[i] for i in members],
            [c for c, o in zip(response_clusters, owner) if o in chosen],
        )
    order = {code: gold[code].anchor for code in key_codes}
    order.update(
        {code: mention.anchor for code, mention in zip(response_codes, system) if code >= len(gold)}
    )
    for mention_type in MENTION_TYPES:
        key_typed = {code for code in key_codes if gold[code].type == mention_type}
        if not any(
            code in key_typed
            for cluster in key_clusters
            for code in sorted(cluster, key=order.__getitem__)[1:]
        ):
            continue
        response_typed = {
            code for code, mention in zip(response_codes, system) if mention.type == mention_type
        }
        out[(MENTION_TYPE, mention_type)] = {
            ANAPHOR: zero_counts(
                key_clusters,
                response_clusters,
                {},
                key_typed,
                order=order.__getitem__,
                response_zeros=response_typed,
            )
        }
    return out


def _prf(counts: PRCounts) -> PRF:
    recall, precision = counts.recall, counts.precision
    return PRF(recall, precision, f_score(recall, precision))


def analysis_rows_of(pairs: Iterable[tuple[Document, Document | None]]) -> list[ScoreRow]:
    """The rows of documents paired key → response: per category, each metric's counts summed
    over the documents, and ``conll`` for the entity analyses."""
    return _rows(document_analysis(key, response) for key, response in pairs)


def _rows(documents: Iterable[dict[tuple[str, str], dict[str, PRCounts]]]) -> list[ScoreRow]:
    totals: dict[tuple[str, str], dict[str, PRCounts]] = defaultdict(dict)
    for document in documents:
        for where, by_metric in document.items():
            for name, counts in by_metric.items():
                found = totals[where].get(name)
                totals[where][name] = counts if found is None else found + counts
    rows: list[ScoreRow] = []
    for (analysis, category), metrics in sorted(totals.items(), key=_category_order):
        mode = analysis_mode(analysis, category)
        scores = {name: _prf(counts) for name, counts in metrics.items()}
        for name, counts in metrics.items():
            prf = scores[name]
            rows.append(
                ScoreRow(mode, name, None, prf.recall, prf.precision, prf.f1, encode_counts(counts))
            )
        if all(name in scores for name, _ in ENTITY_METRICS):
            parts = [scores[name] for name, _ in ENTITY_METRICS]
            rows.append(
                ScoreRow(
                    mode,
                    CONLL,
                    None,
                    sum(p.recall for p in parts) / 3,
                    sum(p.precision for p in parts) / 3,
                    sum(p.f1 for p in parts) / 3,
                    {},
                )
            )
    return rows


def _category_order(item: tuple[tuple[str, str], object]) -> tuple[int, int, str]:
    (analysis, category), _ = item
    if analysis == ENTITY_RANGE:
        rank = [range_bucket(low) for low, _ in RANGE_BUCKETS].index(category)
    elif analysis == MENTION_TYPE:
        rank = MENTION_TYPES.index(category)
    else:
        rank = 0
    return ANALYSES.index(analysis), rank, category


def analysis_rows(key_path: str | Path, response_path: str | Path) -> list[ScoreRow]:
    """The analysis rows of a compact (CorefUD) response file against its key: one mode per
    analysis and category (`analysis_mode`), no per-document rows. Documents are paired by
    name; a key document the response lacks counts as unanswered. Raises
    `ScoringInputError` for a file the compact reader refuses."""
    # Only each document's mentions are kept, never its rows: the memory of the mentions.
    responses = {doc.name: _mentions(doc) for doc in compact.iter_documents(response_path)}
    nothing: tuple[list[_Mention], dict[str, str]] = ([], {})
    return _rows(
        _document_counts(_mentions(doc), responses.get(doc.name, nothing))
        for doc in compact.iter_documents(key_path)
    )
