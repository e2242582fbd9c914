"""A seeded generator of small CorefUD (compact) key/response pairs with empty nodes and zeros.

Each pair is one file per side: one or two documents of one to three sentences, a few
words each, empty nodes between them (``3.1``, ``0.1`` before the first word), each empty
node with one to three DEPS items (parent ``0``, a word, another empty node; shared parents
and deprels on purpose, so that the dependency alignment of zeros has ties and near-ties).
The mentions are zeros (one empty node), words, and spans of several nodes, some headed by
an empty node, some without a head field (the first node heads them, as udapi reads them).
The response has the key's words and sentences; its empty nodes are the key's with some
moved, added or dropped and their DEPS changed, and its mentions are copies of the key's
(where their nodes still exist) and new ones, in other entities. Same seed, same files.

``python -m bench.zero_corpus OUT --pairs N [--seed S]`` writes ``OUT/NNNN-key.conllu`` and
``OUT/NNNN-response.conllu`` and a ``pairs.json`` naming them (a differential sweep against
the CorefUD scorer reads that list).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

HEADER = "# global.Entity = eid-etype-head-other"
FORMS = "a b c d e f g h i j".split()
RELATIONS = ("nsubj", "obj", "iobj", "obl")
TYPES = ("person", "object", "")


@dataclass
class _Empty:
    after: int  # the word it follows (0: before the first word)
    deps: list[tuple[str, str]]  # (parent ID, deprel)


@dataclass
class _Sentence:
    words: int
    empties: list[_Empty] = field(default_factory=list)

    def nodes(self) -> list[str]:
        """Node IDs in file order: each word, then the empty nodes that follow it."""
        out = []
        for word in range(self.words + 1):
            if word:
                out.append(str(word))
            rank = 0
            for empty in self.empties:
                if empty.after == word:
                    rank += 1
                    out.append(f"{word}.{rank}")
        return out


@dataclass
class _Mention:
    sentence: int
    nodes: tuple[str, ...]  # contiguous node IDs of one sentence, in file order
    entity: str
    head: int | None  # 1-based index among the nodes; None: no head field


def _deps(rng: random.Random, words: int, others: list[str]) -> list[tuple[str, str]]:
    parents = ["0", *map(str, range(1, words + 1)), *others]
    chosen = rng.sample(parents, min(len(parents), rng.choice((1, 1, 2, 3))))
    return [(p, rng.choice(RELATIONS[: rng.choice((2, 4))])) for p in chosen]


def _sentence(rng: random.Random) -> _Sentence:
    s = _Sentence(rng.randint(2, 5))
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        s.empties.append(_Empty(rng.choice((0, *range(1, s.words + 1))), []))
    s.empties.sort(key=lambda e: e.after)
    for e in s.empties:
        e.deps = _deps(rng, s.words, [])
    return s


def _perturb_empties(rng: random.Random, s: _Sentence) -> _Sentence:
    """The response's empty nodes: each kept, moved, re-labelled or dropped; some added."""
    out = _Sentence(s.words)
    for e in s.empties:
        roll = rng.random()
        if roll < 0.15:
            continue  # dropped
        after = rng.randint(0, s.words) if roll < 0.35 else e.after
        deps = _deps(rng, s.words, []) if rng.random() < 0.3 else list(e.deps)
        out.empties.append(_Empty(after, deps))
    for _ in range(rng.choice((0, 0, 1))):
        out.empties.append(_Empty(rng.randint(0, s.words), _deps(rng, s.words, [])))
    out.empties.sort(key=lambda e: e.after)
    return out


def _mentions(
    rng: random.Random, sentences: list[_Sentence], entities: list[str]
) -> list[_Mention]:
    """Properly nested mentions (no two of one entity on one node)."""
    out: list[_Mention] = []
    for number, s in enumerate(sentences):
        nodes = s.nodes()
        for a, b in _spans(rng, nodes):
            span = tuple(nodes[a : b + 1])
            head = _head(rng, span)
            used = {m.entity for m in out if m.sentence == number and set(m.nodes) & set(span)}
            free = [e for e in entities if e not in used]
            if free:
                out.append(_Mention(number, span, rng.choice(free), head))
    return out


def _spans(rng: random.Random, nodes: list[str]) -> list[tuple[int, int]]:
    """A sentence's mention spans (first and last node): most of its empty nodes as zeros,
    up to three more, without crossing spans or repeats."""
    spans: list[tuple[int, int]] = []
    for node in (n for n in nodes if "." in n):  # most empty nodes are zeros
        if rng.random() < 0.7:
            i = nodes.index(node)
            spans.append((i, i))
    for _ in range(rng.randint(0, 3)):
        a = rng.randrange(len(nodes))
        b = min(len(nodes) - 1, a + rng.choice((0, 0, 1, 2, 3)))
        spans.append((a, b))
    kept: list[tuple[int, int]] = []
    for a, b in spans:
        if (a, b) in kept or any(c < a <= d < b or a < c <= b < d for c, d in kept):
            continue
        kept.append((a, b))
    return kept


def _head(rng: random.Random, span: tuple[str, ...]) -> int | None:
    """A mention's head (1-based in its span; None: no head given), often an empty node."""
    roll = rng.random()
    if len(span) == 1:
        return 1 if roll < 0.9 else None
    if roll < 0.15:
        return None
    if roll < 0.45 and any("." in n for n in span):
        return 1 + rng.choice([i for i, n in enumerate(span) if "." in n])
    return rng.randint(1, len(span))


def _response_mentions(
    rng: random.Random, key: list[_Mention], sentences: list[_Sentence], entities: list[str]
) -> list[_Mention]:
    rename = {e: rng.choice(entities) for e in sorted({m.entity for m in key})}
    out: list[_Mention] = []
    for m in key:
        present = set(sentences[m.sentence].nodes())
        if rng.random() < 0.2 or not set(m.nodes) <= present:
            continue
        entity = rename[m.entity] if rng.random() < 0.85 else rng.choice(entities)
        head = m.head
        if rng.random() < 0.15 and len(m.nodes) > 1:
            head = rng.choice((None, rng.randint(1, len(m.nodes))))
        out.append(_Mention(m.sentence, m.nodes, entity, head))
    extra = _mentions(rng, sentences, entities)
    for m in extra:
        if rng.random() < 0.5:
            out.append(m)
    return _nested_only(out)


def _nested_only(mentions: list[_Mention]) -> list[_Mention]:
    out: list[_Mention] = []
    for m in mentions:
        clash = False
        for o in out:
            if o.sentence != m.sentence:
                continue
            same = set(o.nodes) & set(m.nodes)
            if same and o.entity == m.entity:
                clash = True
            if same and not (set(o.nodes) <= set(m.nodes) or set(m.nodes) <= set(o.nodes)):
                clash = True
        if not clash:
            out.append(m)
    return out


def _misc(sentence: int, node: str, mentions: list[_Mention]) -> str:
    opening, single, closing = [], [], []
    for m in mentions:
        if m.sentence != sentence or node not in m.nodes:
            continue
        etype = TYPES[int(m.entity[1:]) % len(TYPES)]
        # no head field at all where none is given (udapi refuses an empty one)
        fields = f"{m.entity}-{etype}" if m.head is None else f"{m.entity}-{etype}-{m.head}"
        if len(m.nodes) == 1:
            single.append(f"({fields})")
        elif m.nodes[0] == node:
            opening.append((-len(m.nodes), f"({fields}"))
        elif m.nodes[-1] == node:
            closing.append((len(m.nodes), f"{m.entity})"))
    items = [t for _, t in sorted(opening)] + single + [t for _, t in sorted(closing)]
    return "Entity=" + "".join(items) if items else "_"


def _write(
    documents: list[tuple[str, list[_Sentence], list[_Mention]]],
) -> str:
    lines = [HEADER]
    for name, sentences, mentions in documents:
        lines.append(f"# newdoc id = {name}")
        for number, s in enumerate(sentences):
            lines.append(f"# sent_id = {name}-s{number + 1}")
            lines.append("# text = " + " ".join(FORMS[: s.words]))
            deps_of = {}
            for word in range(s.words + 1):
                rank = 0
                for e in s.empties:
                    if e.after == word:
                        rank += 1
                        deps_of[f"{word}.{rank}"] = e.deps
            for node in s.nodes():
                misc = _misc(number, node, mentions)
                if "." in node:
                    deps = "|".join(f"{p}:{r}" for p, r in sorted(deps_of[node], key=_dep_order))
                    row = [node, "z", "_", "PRON", "_", "_", "_", "_", deps, misc]
                else:
                    word = int(node)
                    head, rel = ("0", "root") if word == 1 else ("1", "dep")
                    form = FORMS[word - 1]
                    row = [node, form, form, "X", "_", "_", head, rel, f"{head}:{rel}", misc]
                lines.append("\t".join(row))
            lines.append("")
    return "\n".join(lines) + "\n"


def _dep_order(dep: tuple[str, str]) -> tuple[float, str]:
    return (float(dep[0]), dep[1])


def pair(seed: int) -> tuple[str, str]:
    """(key text, response text) of one generated pair."""
    rng = random.Random(seed)
    entities = [f"e{n}" for n in range(1, rng.randint(2, 5) + 1)]
    key_docs, resp_docs = [], []
    for d in range(rng.choice((1, 1, 2))):
        name = f"d{d + 1}"
        sentences = [_sentence(rng) for _ in range(rng.randint(1, 3))]
        key_mentions = _mentions(rng, sentences, entities)
        resp_sentences = [_perturb_empties(rng, s) for s in sentences]
        resp_mentions = _response_mentions(rng, key_mentions, resp_sentences, entities)
        key_docs.append((name, sentences, key_mentions))
        resp_docs.append((name, resp_sentences, resp_mentions))
    return _write(key_docs), _write(resp_docs)


def write_pairs(folder: Path, count: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """Write ``count`` pairs into ``folder``; (name, key path, response path) of each."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for n in range(count):
        key, response = pair(seed + n)
        name = f"{seed + n:05d}"
        key_path, resp_path = folder / f"{name}-key.conllu", folder / f"{name}-response.conllu"
        key_path.write_text(key, encoding="utf-8")
        resp_path.write_text(response, encoding="utf-8")
        out.append((name, str(key_path), str(resp_path)))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    pairs = write_pairs(args.out, args.pairs, args.seed)
    (args.out / "pairs.json").write_text(json.dumps(pairs), encoding="utf-8")


if __name__ == "__main__":
    main()
