"""A seeded generator of CODI-CRAC-like exploded CONLL-UA key/response pairs for benchmarks.

Documents look like the CODI-CRAC dialogue files: ~10-token sentences, ~60 identity mentions
per ~500 tokens, a third of the entities singletons, nested mentions, a few non-referring
(``-Pseudo``) markables, split antecedents (``ElementOf``), and on request bridging links and
discourse-deixis markables with sentence-long antecedent segments. The response is the key
with mentions dropped, mentions moved to other entities and bridging anchors changed, so every
metric has work to do. Same seed, same files.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

HEADER = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM"
)
WORDS = (
    "the a we you they it that this house door key room man woman table light king "
    "chair go see take give think know want said is was and but so then here there "
    "very good old new gold fish sword tower guard ship road"
).split()
RELATIONS = ("poss", "poss-inv", "subset", "element", "other", "undersp-rel")


@dataclass(frozen=True)
class Shape:
    """What one generated corpus looks like."""

    documents: int = 100
    tokens: int = 500  # per document
    mentions: int = 60  # per document
    singleton_share: float = 0.35
    split_share: float = 0.02  # share of entities that are plurals with split antecedents
    bridging_share: float = 0.0  # share of mentions that are bridging anaphors
    dd_per_document: int = 0  # discourse-deixis anaphors per document
    seed: int = 1


@dataclass
class _Mention:
    start: int
    end: int
    entity: str
    markable_id: str
    element_of: list[str] = field(default_factory=list)


@dataclass
class _Document:
    name: str
    words: list[str]
    sentences: list[tuple[int, int]]
    mentions: list[_Mention]
    bridging: list[tuple[str, str, str]]  # anaphor id, anchor id, relation
    dd: list[_Mention]


def _spans(rng: random.Random, start: int, end: int, count: int) -> list[tuple[int, int]]:
    """Up to ``count`` distinct, properly nested spans inside [start, end]."""
    spans: list[tuple[int, int]] = []
    for _ in range(count * 4):
        if len(spans) >= count:
            break
        s = rng.randint(start, end)
        length = min(int(rng.expovariate(0.7)), end - s)
        e = s + length
        if (s, e) in spans:
            continue
        if all(
            e2 < s or e < s2 or (s2 <= s and e <= e2) or (s <= s2 and e2 <= e) for s2, e2 in spans
        ):
            spans.append((s, e))
    return spans


def _document(
    rng: random.Random, shape: Shape, index: int, n_tokens: int, n_mentions: int
) -> _Document:
    words = [rng.choice(WORDS) for _ in range(n_tokens)]
    sentences, position = [], 0
    while position < n_tokens:
        length = min(rng.randint(6, 14), n_tokens - position)
        sentences.append((position, position + length - 1))
        position += length
    per_sentence = n_mentions / max(1, len(sentences))
    spans: list[tuple[int, int]] = []
    for s, e in sentences:
        count = int(per_sentence) + (rng.random() < per_sentence % 1)
        spans.extend(_spans(rng, s, e, count))
    spans.sort(key=lambda span: (span[0], -span[1]))
    mentions: list[_Mention] = []
    entities: list[str] = []
    for number, (s, e) in enumerate(spans, 1):
        if not entities or rng.random() < shape.singleton_share + 0.15:
            entity = str(len(entities) + 1)
            if rng.random() < 0.05:
                entity += "-Pseudo"
            entities.append(entity)
        else:
            candidates = [x for x in entities[-30:] if not x.endswith("-Pseudo")] or entities
            entity = rng.choice(candidates)
        mentions.append(_Mention(s, e, entity, f"markable_{number}"))
    first_of: dict[str, _Mention] = {}
    for mention in mentions:
        first_of.setdefault(mention.entity, mention)
    atomic = [e for e in first_of if not e.endswith("-Pseudo")]
    plurals = set()
    for entity in list(atomic):
        if rng.random() < shape.split_share and len(atomic) > 3:
            members = rng.sample([a for a in atomic if a != entity and a not in plurals], 2)
            plurals.add(entity)
            for member in members:
                if entity not in first_of[member].element_of and member not in plurals:
                    first_of[member].element_of.append(entity)
    bridging = []
    for i, mention in enumerate(mentions[1:], 1):
        if rng.random() < shape.bridging_share:
            anchor = mentions[rng.randrange(i)]
            if anchor.entity != mention.entity:
                bridging.append((mention.markable_id, anchor.markable_id, rng.choice(RELATIONS)))
    dd = []
    for k in range(shape.dd_per_document if len(sentences) > 2 else 0):
        target = rng.randrange(len(sentences) - 1)
        s, e = sentences[target]
        later = sentences[rng.randrange(target + 1, len(sentences))]
        anaphor = rng.randint(later[0], later[1])
        entity = f"{k + 1}-DD"
        dd.append(_Mention(s, e, entity, f"dd_markable_{k + 1}"))
        dd.append(_Mention(anaphor, anaphor, entity, f"dd_anaphor_{k + 1}"))
    # DD segments are whole sentences and anaphors single tokens: keep them non-crossing
    dd = [
        m
        for i, m in enumerate(dd)
        if not any(
            o.start < m.start <= o.end < m.end
            or m.start < o.start <= m.end < o.end
            or (o.start, o.end) == (m.start, m.end)
            for o in dd[:i]
        )
    ]
    dd.sort(key=lambda m: (m.start, -m.end))
    return _Document(f"bench/doc_{index}", words, sentences, mentions, bridging, dd)


def _response(rng: random.Random, doc: _Document) -> _Document:
    """The key with ~10% of mentions dropped and ~15% moved to another entity."""
    kept = [m for m in doc.mentions if rng.random() >= 0.10]
    entities = sorted({m.entity for m in kept})
    mentions = []
    for m in kept:
        if rng.random() < 0.15:  # a wrong entity; its ElementOf goes too (no cycles)
            mentions.append(_Mention(m.start, m.end, rng.choice(entities), m.markable_id))
        else:
            mentions.append(_Mention(m.start, m.end, m.entity, m.markable_id, list(m.element_of)))
    ids = [m.markable_id for m in mentions]
    alive = set(ids)
    bridging = []
    for anaphor, anchor, relation in doc.bridging:
        if anaphor in alive and anchor in alive and rng.random() >= 0.1:
            if rng.random() < 0.2:
                anchor = rng.choice(ids)
            if anchor != anaphor:
                bridging.append((anaphor, anchor, relation))
    dd = [m for m in doc.dd if rng.random() >= 0.1]
    return _Document(doc.name, doc.words, doc.sentences, mentions, bridging, dd)


def _cells(mentions: list[_Mention], n_tokens: int, attributes) -> list[str]:
    """One bracket cell per token: closings first, then openings (outer first)."""
    opens: list[list[str]] = [[] for _ in range(n_tokens)]
    closes = [0] * n_tokens
    for m in mentions:  # sorted by (start, -end): outer markables open first
        body = attributes(m)
        if m.start == m.end:
            opens[m.start].append(f"({body})")
        else:
            opens[m.start].append(f"({body}")
            closes[m.end] += 1
    cells = []
    for i in range(n_tokens):
        singles = [o for o in opens[i] if o.endswith(")")]
        multis = [o for o in opens[i] if not o.endswith(")")]
        cells.append(")" * closes[i] + "".join(multis + singles) or "_")
    return cells


def _identity_attributes(m: _Mention) -> str:
    extra = f"|ElementOf={','.join(m.element_of)}" if m.element_of else ""
    return f"EntityID={m.entity}|MarkableID={m.markable_id}|Min={m.end + 1}|SemType=dn{extra}"


def _dd_attributes(m: _Mention) -> str:
    return f"EntityID={m.entity}|MarkableID={m.markable_id}|Min={m.start + 1},{m.end + 1}"


def _write(doc: _Document, out) -> None:
    n = len(doc.words)
    identity = _cells(doc.mentions, n, _identity_attributes)
    dd = _cells(doc.dd, n, _dd_attributes)
    bridging = ["_"] * n
    by_id = {m.markable_id: m for m in doc.mentions}
    for anaphor, anchor, relation in doc.bridging:
        m = by_id[anaphor]
        body = (
            f"(MarkableID={anaphor}|Rel={relation}|MentionAnchor={anchor}|"
            f"EntityAnchor={by_id[anchor].entity}"
        )
        cell = bridging[m.start]
        bridging[m.start] = (cell if cell != "_" else "") + body + (")" if m.start == m.end else "")
        if m.start != m.end:
            bridging[m.end] = ")" + (bridging[m.end] if bridging[m.end] != "_" else "")
    out.write(f"# newdoc id = {doc.name}\n")
    for number, (s, e) in enumerate(doc.sentences, 1):
        out.write(f"# sent_id = {doc.name}-{number}\n")
        for i in range(s, e + 1):
            out.write(
                f"{i + 1}\t{doc.words[i]}\t_\t_\t_\t_\t_\t_\t_\t_\t{identity[i]}\t"
                f"{bridging[i]}\t{dd[i]}\t_\t_\n"
            )
        out.write("\n")


def write_pair(directory: Path, shape: Shape, name: str = "bench") -> tuple[Path, Path]:
    """Write ``NAME.key.conllua`` and ``NAME.response.conllua``; return their paths."""
    rng = random.Random(shape.seed)
    key_path = Path(directory) / f"{name}.key.conllua"
    response_path = Path(directory) / f"{name}.response.conllua"
    with (
        open(key_path, "w", encoding="utf-8") as key,
        open(response_path, "w", encoding="utf-8") as response,
    ):
        key.write(HEADER + "\n")
        response.write(HEADER + "\n")
        for index in range(shape.documents):
            n_tokens = max(20, int(rng.gauss(shape.tokens, shape.tokens / 10)))
            n_mentions = max(2, round(shape.mentions * n_tokens / shape.tokens))
            doc = _document(rng, shape, index, n_tokens, n_mentions)
            _write(doc, key)
            _write(_response(rng, doc), response)
    return key_path, response_path


# ---------------------------------------------------------------------------------------
# CorefUD-shaped compact files (CoNLL-U, Entity= in MISC), as a CRAC dataset looks

UPOS = ("NOUN", "VERB", "DET", "PRON", "ADP", "ADJ", "PROPN", "ADV", "CCONJ", "PUNCT")
ETYPES = ("person", "place", "object", "organization", "abstract", "event", "time")


def _corefud_document(doc: _Document, rng: random.Random, zero_share: float) -> list[str]:
    """The lines of one document: words with UD-like columns, an empty node (a dropped
    subject, a zero mention of an entity of the document) in ``zero_share`` of the sentences,
    and the mentions of ``doc`` as CorefUD brackets with their head."""
    entities = {m.entity: f"e{m.entity.replace('-Pseudo', '')}" for m in doc.mentions}
    etype = {e: ETYPES[int(e[1:].split("-")[0]) % len(ETYPES)] for e in entities.values()}
    opens: dict[int, list[str]] = {}
    closes: dict[int, list[str]] = {}
    for m in doc.mentions:  # sorted by (start, -end): outer mentions open first
        eid = entities[m.entity]
        head = m.end - m.start + 1  # the last word: CorefUD heads are often the last noun
        if m.start == m.end:
            opens.setdefault(m.start, []).append(f"({eid}-{etype[eid]}-1-)")
        else:
            opens.setdefault(m.start, []).append(f"({eid}-{etype[eid]}-{head}-")
            closes.setdefault(m.end, []).insert(0, f"{eid})")
    known = list(entities.values()) or ["e1"]
    lines = [f"# newdoc id = {doc.name}"]
    for number, (s, e) in enumerate(doc.sentences, 1):
        words = doc.words[s : e + 1]
        lines.append(f"# sent_id = {doc.name}-{number}")
        lines.append(f"# text = {' '.join(words)}")
        zero_after = rng.randrange(len(words)) + 1 if rng.random() < zero_share else 0
        for i, form in enumerate(words):
            position = s + i
            local = i + 1
            head = 0 if i == 0 else 1
            deprel = "root" if i == 0 else rng.choice(("nsubj", "obj", "det", "obl", "nmod"))
            entity = "".join(closes.get(position, [])) + "".join(opens.get(position, []))
            misc = [f"Entity={entity}"] if entity else []
            if rng.random() < 0.15:
                misc.append("SpaceAfter=No")
            lines.append(
                f"{local}\t{form}\t{form}\t{rng.choice(UPOS)}\t_\t"
                f"{'Number=Sing' if i % 3 else '_'}\t{head}\t{deprel}\t"
                f"{head}:{deprel}\t{'|'.join(misc) or '_'}"
            )
            if local == zero_after:
                eid = rng.choice(known)
                lines.append(
                    f"{local}.1\t#Pron\t#PersPron\tPRON\t_\t_\t_\t_\t1:nsubj\t"
                    f"Entity=({eid}-{etype.get(eid, 'person')}-1-)"
                )
        lines.append("")
    return lines


def write_corefud(
    directory: Path,
    name: str,
    documents: int,
    *,
    seed: int = 1,
    tokens: int = 500,
    mentions: int = 60,
    zero_share: float = 0.1,
) -> tuple[Path, Path]:
    """Write ``NAME.key.conllu`` and ``NAME.response.conllu`` (CorefUD 1.x compact files:
    ``# global.Entity = eid-etype-head-other`` after the first ``# newdoc``, ``# sent_id``
    and ``# text`` per sentence, some empty nodes); the response has the errors of
    `_response`. Same seed, same files."""
    rng = random.Random(seed)
    shape = Shape(documents=documents, tokens=tokens, mentions=mentions, split_share=0.0)
    key_path = Path(directory) / f"{name}.key.conllu"
    response_path = Path(directory) / f"{name}.response.conllu"
    with (
        open(key_path, "w", encoding="utf-8") as key,
        open(response_path, "w", encoding="utf-8") as response,
    ):
        for index in range(documents):
            n_tokens = max(20, int(rng.gauss(tokens, tokens / 10)))
            n_mentions = max(2, round(mentions * n_tokens / tokens))
            doc = _document(rng, shape, index, n_tokens, n_mentions)
            doc = _Document(f"{name}/doc_{index}", doc.words, doc.sentences, doc.mentions, [], [])
            answer = _response(random.Random(rng.random()), doc)
            state = rng.getstate()
            key_lines = _corefud_document(doc, rng, zero_share)
            rng.setstate(state)  # the same words and columns in the response
            response_lines = _corefud_document(answer, rng, zero_share)
            for out, lines in ((key, key_lines), (response, response_lines)):
                if index == 0:
                    lines.insert(1, "# global.Entity = eid-etype-head-other")
                out.write("\n".join(lines) + "\n")
    return key_path, response_path
