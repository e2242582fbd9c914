"""`scoring.engine.SharedWork`: the modes of one document pair share their first-node heads
and grouped layers (`score_modes`), and every mode's result stays the one it gets scored
alone. Checked on generated compact files with what the sharing has to get right: empty
nodes inside mentions and heading them, zeros with dependencies, mentions without a head,
discontinuous mentions, singletons, a span twice in one entity and in two entities."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scoring import ScoringInputError, clusters, parse_options, score, score_modes
from scoring.procedures import PROCEDURES

DEPRELS = ("nsubj", "obj", "obl", "nmod")


def _document(rng: random.Random, name: str, entities: int) -> list[list[str]]:
    """Sentences of nodes: a node is a word ("5") or an empty node ("5.1"), by ID."""
    sentences = []
    for _ in range(rng.randint(1, 4)):
        ids: list[str] = []
        for word in range(1, rng.randint(3, 9) + 1):
            ids.append(str(word))
            for rank in range(1, 3):
                if rng.random() < 0.2:
                    ids.append(f"{word}.{rank}")
                else:
                    break
        sentences.append(ids)
    return sentences


def _mentions(
    rng: random.Random, sentences: list[list[str]], entities: int
) -> list[tuple[str, int, list[tuple[int, int]], str]]:
    """(entity, sentence, parts as node index ranges, head field) of random mentions."""
    out = []
    for _ in range(rng.randint(2, 12)):
        s = rng.randrange(len(sentences))
        n = len(sentences[s])
        start = rng.randrange(n)
        end = min(n - 1, start + rng.choice((0, 0, 1, 2, 3)))
        parts = [(start, end)]
        if rng.random() < 0.15 and end + 2 < n:  # a discontinuous mention
            gap = rng.randint(end + 2, n - 1)
            parts.append((gap, rng.randint(gap, n - 1)))
        size = sum(b - a + 1 for a, b in parts)
        head = "" if rng.random() < 0.3 else str(rng.randint(1, size))
        entity = f"e{rng.randint(1, entities)}"
        out.append((entity, s, parts, head))
        if rng.random() < 0.1:  # the same span again, in the same or another entity
            other = entity if rng.random() < 0.5 else f"e{rng.randint(1, entities)}"
            out.append((other, s, parts, head))
    return out


def _edited(rng: random.Random, mentions, sentences):
    """A response: mentions moved, dropped, given other entities or heads, and added."""
    out = []
    for entity, s, parts, head in mentions:
        roll = rng.random()
        if roll < 0.1:
            continue
        if roll < 0.25:
            entity = f"e{rng.randint(1, 5)}"
        elif roll < 0.4 and len(parts) == 1:
            a, b = parts[0]
            parts = [(a, min(len(sentences[s]) - 1, b + rng.choice((-1, 1, 2))))]
            if parts[0][1] < a:
                parts = [(a, a)]
            size = parts[0][1] - a + 1
            head = "" if rng.random() < 0.3 else str(rng.randint(1, size))
        out.append((entity, s, parts, head))
    return out + _mentions(rng, sentences, 5)[: rng.randint(0, 3)]


def _lines(name: str, sentences, mentions, rng: random.Random) -> list[str]:
    opens: dict[tuple[int, int], list[tuple[int, str]]] = {}
    closes: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for entity, s, parts, head in mentions:
        total = len(parts)
        for k, (a, b) in enumerate(parts, 1):
            eid = f"{entity}[{k}/{total}]" if total > 1 else entity
            fields = f"-x-{head}-" if k == 1 else ""
            if a == b:
                opens.setdefault((s, a), []).append((-1, f"({eid}{fields})"))
            else:
                opens.setdefault((s, a), []).append((-(b - a), f"({eid}{fields}"))
                closes.setdefault((s, b), []).append((b - a, f"{eid})"))
    lines = [f"# newdoc id = {name}"]
    for s, ids in enumerate(sentences):
        lines.append(f"# sent_id = {name}-{s + 1}")
        words = [i for i in ids if "." not in i]
        for index, ident in enumerate(ids):
            cell = "".join(t for _, t in sorted(closes.get((s, index), []))) + "".join(
                t for _, t in sorted(opens.get((s, index), []))
            )
            misc = f"Entity={cell}" if cell else "_"
            parent = rng.choice(["0", *words])
            deps = "0:root" if parent == "0" else f"{parent}:{rng.choice(DEPRELS)}"
            if rng.random() < 0.2:
                deps += f"|{rng.choice(words)}:{rng.choice(DEPRELS)}"
            if "." in ident:
                lines.append(f"{ident}\t#Pron\t_\tPRON\t_\t_\t_\t_\t{deps}\t{misc}")
            else:
                head = "0" if parent == "0" else parent
                rel = "root" if parent == "0" else deps.split(":")[1].split("|")[0]
                lines.append(f"{ident}\tw{ident}\t_\tX\t_\t_\t{head}\t{rel}\t{deps}\t{misc}")
        lines.append("")
    return lines


def write_pair(directory: Path, seed: int, documents: int = 4) -> tuple[str, str]:
    rng = random.Random(seed)
    key_lines: list[str] = []
    response_lines: list[str] = []
    for d in range(documents):
        name = f"doc{d}"
        sentences = _document(rng, name, 5)
        mentions = _mentions(rng, sentences, 5)
        answer = _edited(rng, mentions, sentences)
        state = rng.getstate()
        key_lines += _lines(name, sentences, mentions, rng)
        rng.setstate(state)  # the same DEPS on both sides
        response_lines += _lines(name, sentences, answer, rng)
    key_lines.insert(1, "# global.Entity = eid-etype-head-other")
    response_lines.insert(1, "# global.Entity = eid-etype-head-other")
    key, response = directory / f"{seed}.key.conllu", directory / f"{seed}.response.conllu"
    key.write_text("\n".join(key_lines) + "\n", encoding="utf-8")
    response.write_text("\n".join(response_lines) + "\n", encoding="utf-8")
    return str(key), str(response)


def crac_modes(name: str) -> list:
    return [parse_options(list(words)).options for words in PROCEDURES[name].modes.values()]


WITHOUT_ZEROS = [
    parse_options(["-f", "corefud", "-m", "muc", "bcub", "ceafe", "mention", "-a", a]).options
    for a in ("head", "exact")
]
"""Zeros left out of coreference (no ``-z``), with a head and an exact mode."""

ORDERS = {
    "crac-2025": crac_modes("crac-2025"),
    "crac-2025, reversed": crac_modes("crac-2025")[::-1],
    "crac-2022": crac_modes("crac-2022"),
    "exact first": [crac_modes("crac-2023")[i] for i in (2, 0, 3, 1)],
    "zeros kept and not": [*crac_modes("crac-2025")[:2], *WITHOUT_ZEROS],
}


@pytest.mark.parametrize("order", ORDERS)
def test_modes_scored_together_equal_each_mode_scored_alone(tmp_path, order):
    options = ORDERS[order]
    scored = refused = 0
    for seed in range(40):
        key, response = write_pair(tmp_path, seed)
        try:
            alone = [score(key, response, options=o, processes=1) for o in options]
        except ScoringInputError as problem:
            with pytest.raises(ScoringInputError) as shared:
                score_modes(key, response, options=options)
            assert str(shared.value) == str(problem)
            refused += 1
            continue
        together = score_modes(key, response, options=options)
        for a, b in zip(together, alone):
            assert a == b  # every count, per-document result, warning and name
        scored += 1
    assert scored >= 30, (scored, refused)


def test_the_generated_files_have_what_the_sharing_must_get_right(tmp_path):
    """The inputs above are not trivial: zeros, mentions with empty nodes inside and
    without a head, discontinuous mentions and spans twice in one entity all occur."""
    from scoring.api import read_documents

    seen = {"zero": 0, "zeros inside": 0, "no head": 0, "discontinuous": 0, "twice": 0}
    for seed in range(40):
        key, _ = write_pair(tmp_path, seed)
        try:
            documents = read_documents(key, "corefud")
        except ScoringInputError:
            continue
        for doc in documents:
            spans = set()
            for m in doc.layer(False):
                seen["zero"] += bool(m.zero)
                seen["zeros inside"] += bool(m.zeros)
                seen["no head"] += m.head is None
                seen["discontinuous"] += len(m.parts) > 1
                identity = (m.entity_id, m.parts, m.zero, m.zeros)
                seen["twice"] += identity in spans
                spans.add(identity)
    assert all(seen.values()), seen


def test_the_compiled_grouping_and_clusters_score_as_python_does(tmp_path, monkeypatch):
    """Every mode of the crac procedures with `layer_groups_all` and `layer_clusters`, then
    with neither (`_groups` and `_clusters`): the same results, warnings included."""
    options = [*crac_modes("crac-2025"), crac_modes("crac-2022")[1], *WITHOUT_ZEROS]
    pairs = [write_pair(tmp_path, seed) for seed in range(40)]

    def scored() -> list:
        out = []
        for key, response in pairs:
            try:
                out.append(score_modes(key, response, options=options))
            except ScoringInputError as problem:
                out.append(str(problem))
        return out

    compiled = scored()
    monkeypatch.setattr(clusters, "_layer_groups", None)
    monkeypatch.setattr(clusters, "_layer_groups_all", None)
    monkeypatch.setattr(clusters, "_layer_clusters", None)
    assert scored() == compiled
