"""Reader for compact CONLL-UA / CorefUD 1.0 files (coreference in the MISC column).

A compact file is CoNLL-U: ten tab-separated columns, comment lines, blank lines between
sentences, ``# newdoc id = NAME`` at each document. Mentions live in ``Entity=`` in MISC::

    Entity=(e5-person-2-        opening: fields joined by "-", in the order of # global.Entity
    Entity=(e5-person-1-)       a single-word mention
    Entity=e5)                  a closing names its entity (the newest open mention of e5)
    Entity=(e9[1/2]--1)         part 1 of 2 of a discontinuous mention ... e9[2/2])
                                (part k continues the earliest mention of e9 with k-1 parts)

``# global.Entity`` gives the field order: CorefUD ``eid-etype-head-other`` (the default),
GUM ``GRP-etype-infstat-salience-centering-minspan-link-identity``, or the order our own
converter writes, ``eid-etype-head-other-mid-min-ua`` (see docs/formats.md). The first field
is the entity id. ``head`` is the 1-based position of the head among the mention's nodes,
empty nodes included; a word head is the ``min_span`` (CorefUD partial matching: the
response must contain the key's head, UA scorer v2 VCM). Without a head field, ``head`` stays
None here and scoring takes the first node (`scoring.clusters.with_first_node_heads`, as
udapi does for v2); GUM's ``minspan`` is an ordinary attribute, as in v2; ``min`` and ``mid``
(our converter) carry an exploded file's ``Min`` (1-based document token ids) and
``MarkableID``; ``ua`` carries the remaining exploded
attributes as ``Key:Value`` pairs. Every other field is kept in ``Markable.attributes``.

Token positions are 0-based document positions of words (integer IDs). Multiword-token
ranges (``3-4``) are not words. Empty nodes (``8.1``) are zeros as scoring.model says: a zero
sits at the position of the next word and carries its rank among the empty nodes before that
word; a mention of several nodes records the empty nodes it contains in ``Markable.zeros``.
Zero-headed mentions get a ``deps`` attribute: the head's DEPS with each parent as a 0-based
document word position (``12``), an empty node (``12.1``) or ``root``, joined by ``|``.

Split antecedents: ``SplitAnte=e1<e3,e2<e3`` (on the anaphor's first word) makes ``e1`` and
``e2`` elements of the plural entity ``e3``: the first mention of each antecedent entity gets
``element_of = ("e3",)``, which is what an exploded ``ElementOf`` means (an entity-level
relation). Bridging: ``Bridge=e12<e15[:rel]`` on the first word of a mention of ``e15`` (the
anaphor) links it to the nearest mention of ``e12`` that starts before it (the nearest one
after it if none starts before). In files written by our converter (a ``ua`` field in the
header) the exact markable-level ``ElementOf`` and ``Bridge`` records of the ``ua`` field are
used instead, and ``SplitAnte=``/``Bridge=`` are only informative. Discourse deixis, which
CorefUD lacks, is read from ``DiscourseDeixis=`` in MISC (same syntax as ``Entity=``).

Bad input raises ScoringInputError (``FILE:LINE: ...``). Dangling, repeated or one-antecedent
SplitAnte and dangling Bridge targets occur in real gold files (UD_English-GUM #82, #93,
udapi-python #101): they are reported as warnings (``warnings=`` list) and dropped.
"""

from __future__ import annotations

import io
from functools import partial

import re
from dataclasses import dataclass, field
from pathlib import Path

from scoring.clusters import first_node
from scoring.errors import ScoringInputError
from scoring.model import BridgingLink, Document, Markable, Sentence
from scoring.readers.text import read_collecting, read_text  # noqa: F401 (re-exported)

FORMAT = "corefud"
DEFAULT_ENTITY_FIELDS = ("eid", "etype", "head", "other")
COLUMNS = 10
MISC = 9
DEPS = 8
ID_FIELDS = ("eid", "grp")  # the first field is the entity id whatever it is called
_SPECIAL_FIELDS = {"head", "mid", "min", "ua"}

_ITEM = re.compile(r"\(([^()]*)(\))?|([^()]+)\)")
_PART = re.compile(r"^(.*)\[(\d+)/(\d+)\]$")
_EMPTY_ID = re.compile(r"^\d+\.\d+$")
_RANGE_ID = re.compile(r"^\d+-\d+$")
_NEWDOC = re.compile(r"^#\s*newdoc(?:\s+id\s*=\s*(.*?))?\s*$")
_GLOBAL_ENTITY = re.compile(r"^#\s*global\.Entity\s*=\s*(.*?)\s*$")

# Percent-escaping of values inside an Entity bracket (the writer uses the same table).
_ESCAPED = "%-,:()|=<>+/[] \t"


def escape(value: str) -> str:
    """Escape the characters that delimit compact Entity fields, as %XX."""
    if not any(ch in _ESCAPED for ch in value):
        return value
    return "".join(f"%{ord(ch):02X}" if ch in _ESCAPED else ch for ch in value)


def unescape(value: str) -> str:
    if "%" not in value:
        return value
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value)


def sniff(text_head: str) -> bool:
    """True for CoNLL-U text: a ``# global.Entity`` line or a first token line of 10 columns."""
    for line in text_head.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if _GLOBAL_ENTITY.match(stripped):
                return True
            if stripped.lower().startswith(("#begin document", "# global.columns")):
                return False
            continue
        fields = line.rstrip("\r\n").split("\t")
        return len(fields) == COLUMNS and bool(re.match(r"^\d+([.-]\d+)?$", fields[0]))
    return False


def read(path: str | Path, *, warnings: list[str] | None = None,
         collect: list | None = None, layout: bool = True) -> list[Document]:
    """Read every document of a compact CONLL-UA / CorefUD file.

    ``warnings`` collects problems that do not stop reading (``FILE:LINE: message``).
    ``collect``: None raises the first ScoringInputError; a list receives it instead and
    no document is returned (the exploded reader's convention). ``layout=False`` keeps each
    sentence's comments (its ``# sent_id``) but not its token rows, which only a converter
    needs: scoring reads that way, in a fraction of the memory.
    """
    return read_collecting(partial(_read, layout=layout), path, warnings, collect)


def _read(path: str, warnings: list[str] | None, layout: bool = True) -> list[Document]:
    text = read_text(path)
    reader = _Reader(path, warnings, layout=layout)
    for number, raw in enumerate(io.StringIO(text, newline=None), start=1):
        reader.line(number, raw)
    del text
    reader.finish()
    if not reader.documents:
        raise ScoringInputError(path, None, "no token lines (expected a CoNLL-U file with "
                                "Entity= annotations in MISC)", code="empty_file")
    return reader.documents


# ---------------------------------------------------------------------------------------
# Parsing


@dataclass
class _Mention:
    """A mention being read: node-index ranges of its parts, and its bracket fields."""

    entity: str
    fields: dict[str, str]
    line: int
    order: int
    layer: str
    parts_total: int = 1
    ranges: dict[int, list[int]] = field(default_factory=dict)  # part -> [first, last]
    closed: set[int] = field(default_factory=set)


@dataclass(slots=True)
class _Node:
    position: int
    rank: int  # 0 for a word
    sentence: int
    local_id: str
    deps: str


class _LazyIndex(dict):
    """(sentence, token ID) → node, built on first use (only zero heads need it)."""

    def __init__(self, nodes: list[_Node]) -> None:
        super().__init__()
        self.nodes = nodes

    def get(self, key, default=None):
        if not self and self.nodes:
            self.update(((n.sentence, n.local_id), n) for n in self.nodes)
        return super().get(key, default)


class _Reader:
    def __init__(self, path: str, warnings: list[str] | None, *, layout: bool = True) -> None:
        self.path = path
        self.layout = layout
        self.sentence_tokens = 0
        self.warnings = warnings
        self.documents: list[Document] = []
        self.fields: tuple[str, ...] = DEFAULT_ENTITY_FIELDS
        self.header = "-".join(DEFAULT_ENTITY_FIELDS)
        self.doc: _DocumentBuilder | None = None
        self.comments: list[str] = []
        self.rows: list[tuple[str, ...]] = []
        self.unnamed = 0
        self.globals: dict[str, str] = {}

    # one physical line
    def line(self, number: int, raw: str) -> None:
        line = raw.rstrip("\r\n")
        if not line.strip():
            self.end_sentence()
            return
        if line.startswith("#"):
            self.comment(number, line.strip())
            return
        if self.doc is None:
            self.start_document(number, None)
        fields = tuple(line.split("\t"))
        if len(fields) != COLUMNS:
            spaced = tuple(line.split())
            if len(spaced) == COLUMNS:
                fields = spaced
            else:
                raise ScoringInputError(
                    self.path, number, f"{len(fields)} tab-separated columns (expected {COLUMNS}: "
                    "ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC)", code="columns",
                    document=self.doc.name)
        if self.layout:
            self.rows.append(fields)
        self.sentence_tokens += 1
        self.doc.token(number, fields)

    def comment(self, number: int, line: str) -> None:
        if match := _NEWDOC.match(line):
            self.end_sentence()
            self.start_document(number, match.group(1) or None)
            return
        if match := _GLOBAL_ENTITY.match(line):
            self.set_fields(number, match.group(1))
            return
        if self.doc is None and line.startswith("# global."):
            key, _, value = line[1:].partition("=")
            self.globals[key.strip()] = value.strip()  # file-level header comments
            return
        self.comments.append(line)

    def set_fields(self, number: int, header: str) -> None:
        names = tuple(name.strip().lower() for name in header.split("-"))
        if not names or not names[0]:
            raise ScoringInputError(self.path, number, f"global.Entity = {header!r} names no "
                                    "fields (expected e.g. eid-etype-head-other)",
                                    code="entity_header")
        self.fields = names
        self.header = header
        if self.doc is not None:
            self.doc.set_fields(names, header)

    def start_document(self, number: int, name: str | None) -> None:
        self.finish_document()
        if name is None:
            self.unnamed += 1
            name = str(len(self.documents) + 1)
        self.doc = _DocumentBuilder(self.path, name, number, self.fields, self.header,
                                    self.warnings)
        self.doc.globals = dict(self.globals)

    def end_sentence(self) -> None:
        if self.sentence_tokens:
            assert self.doc is not None
            self.doc.sentence(Sentence(tuple(self.comments), tuple(self.rows)))
            self.comments = []
            self.rows = []
            self.sentence_tokens = 0

    def finish_document(self) -> None:
        self.end_sentence()
        if self.doc is not None:
            self.documents.append(self.doc.build())
            self.doc = None
        self.comments = []

    def finish(self) -> None:
        self.finish_document()


class _DocumentBuilder:
    def __init__(self, path: str, name: str, line: int, fields: tuple[str, ...], header: str,
                 warnings: list[str] | None) -> None:
        self.path = path
        self.name = name
        self.line = line
        self.warnings = warnings
        self.globals: dict[str, str] = {}
        self.set_fields(fields, header)
        self.tokens: list[str] = []
        self.token_lines: list[int] = []
        self.nodes: list[_Node] = []
        self.empty_count: list[int] = []  # empty nodes among nodes[0..i]
        self.sentences: list[Sentence] = []
        self.sentence_index = 0
        self.zeros_before = 0  # empty nodes since the last word
        self.open: dict[tuple[str, str], list[_Mention]] = {}  # (layer, entity) -> stack
        self.parts_open: dict[tuple[str, str, int, int], list[_Mention]] = {}
        self.pending: dict[tuple[str, str, int], list[_Mention]] = {}
        self.mentions: list[_Mention] = []
        self.split_ante: list[tuple[str, str, int]] = []  # (antecedent, plural, line)
        # (anchor, anaphor, relation, line, node index)
        self.bridges: list[tuple[str, str, str, int, int]] = []

    def set_fields(self, fields: tuple[str, ...], header: str) -> None:
        self.fields = fields
        self.header = header
        self.exact_ua = "ua" in fields

    def fail(self, line: int, message: str, code: str = "invalid") -> ScoringInputError:
        return ScoringInputError(self.path, line, message, code=code, document=self.name)

    def warn(self, line: int, message: str) -> None:
        if self.warnings is not None:
            self.warnings.append(f"{self.path}:{line}: {message}")

    # token lines
    def token(self, number: int, fields: tuple[str, ...]) -> None:
        token_id = fields[0]
        if token_id.isdigit():
            node = _Node(len(self.tokens), 0, self.sentence_index, token_id, fields[DEPS])
            self.tokens.append(fields[1])
            self.token_lines.append(number)
            self.zeros_before = 0
        elif _EMPTY_ID.match(token_id):
            self.zeros_before += 1
            node = _Node(len(self.tokens), self.zeros_before, self.sentence_index, token_id,
                         fields[DEPS])
        elif _RANGE_ID.match(token_id):
            return  # a multiword token: its words follow on their own lines
        else:
            raise self.fail(number, f"token ID {token_id!r} (expected a word ID such as 5, an "
                            "empty node such as 5.1 or a multiword range such as 5-6)", "token_id")
        self.nodes.append(node)
        index = len(self.nodes) - 1
        self.empty_count.append((self.empty_count[-1] if index else 0) + (node.rank > 0))
        misc = fields[MISC]
        if misc == "_" or "=" not in misc:
            return
        for item in misc.split("|"):
            key, _, value = item.partition("=")
            if key == "Entity":
                self.brackets(number, index, value, "identity")
            elif key == "DiscourseDeixis":
                self.brackets(number, index, value, "discourse_deixis")
            elif key == "SplitAnte" and not self.exact_ua:
                self.read_split_ante(number, value)
            elif key == "Bridge" and not self.exact_ua:
                self.read_bridge(number, value, index)

    def brackets(self, number: int, index: int, value: str, layer: str) -> None:
        pos = 0
        for match in _ITEM.finditer(value):
            if match.start() != pos:
                break
            pos = match.end()
            if match.group(3) is not None:
                self.close(number, index, match.group(3), layer)
            else:
                mention = self.open_mention(number, index, match.group(1), layer)
                if match.group(2):
                    self.close_part(number, index, mention, layer)
        if pos != len(value) or not value:
            key = "Entity" if layer == "identity" else "DiscourseDeixis"
            raise self.fail(number, f"cannot read {key}={value!r} (expected openings "
                            "'(e1-…', single-word mentions "
                            "'(e1-…)' and closings 'e1)')", "brackets")

    def open_mention(self, number: int, index: int, content: str, layer: str) -> _Mention:
        values = content.split("-")
        fields = {name: (values[i] if name == "ua" else unescape(values[i]))
                  if i < len(values) else "" for i, name in enumerate(self.fields)}
        raw_id = values[0]
        part, total = 1, 1
        if match := _PART.match(raw_id):
            raw_id, part, total = match.group(1), int(match.group(2)), int(match.group(3))
            if not 1 <= part <= total:
                raise self.fail(number, f"discontinuous part [{part}/{total}] (expected "
                                "[k/n] with 1 <= k <= n)", "brackets")
        entity = unescape(raw_id)
        if not entity:
            raise self.fail(number, f"opening '({content}' has no entity id (expected "
                            f"'({self.fields[0]}-…')", "brackets")
        if part == 1:
            mention = _Mention(entity, fields, number, len(self.mentions), layer, total)
            self.mentions.append(mention)
            if total > 1:
                self.pending.setdefault((layer, entity, total), []).append(mention)
        else:
            # the part continues the earliest mention of the entity whose next part it is
            candidates = [m for m in self.pending.get((layer, entity, total), ())
                          if len(m.ranges) == part - 1]
            if not candidates:
                raise self.fail(number, f"part [{part}/{total}] of entity {entity} has no "
                                f"part [{part - 1}/{total}] before it", "brackets")
            mention = candidates[0]
            for name, val in fields.items():
                if val and not mention.fields.get(name):
                    mention.fields[name] = val
        mention.ranges[part] = [index, index]
        if total > 1:
            self.parts_open.setdefault((layer, entity, part, total), []).append(mention)
        else:
            self.open.setdefault((layer, entity), []).append(mention)
        mention.fields["_part"] = str(part)
        return mention

    def close(self, number: int, index: int, content: str, layer: str) -> None:
        raw_id = content.split("-")[0]
        if match := _PART.match(raw_id):
            entity = unescape(match.group(1))
            part, total = int(match.group(2)), int(match.group(3))
            stack = self.parts_open.get((layer, entity, part, total))
            if not stack:
                raise self.fail(number, f"closing '{content})' has no open part [{part}/{total}] "
                                f"of entity {entity} (expected an earlier '({raw_id}-…')",
                                "unopened")
            mention = stack.pop()
            self.finish_part(number, index, mention, part)
            return
        entity = unescape(raw_id)
        stack = self.open.get((layer, entity))
        if not stack:
            raise self.fail(number, f"closing '{content})' has no open mention of entity "
                            f"{entity} (expected an earlier '({raw_id}-…')", "unopened")
        self.finish_part(number, index, stack.pop(), 1)

    def close_part(self, number: int, index: int, mention: _Mention, layer: str) -> None:
        part = int(mention.fields["_part"])
        if mention.parts_total > 1:
            self.parts_open[(layer, mention.entity, part, mention.parts_total)].pop()
        else:
            self.open[(layer, mention.entity)].pop()
        self.finish_part(number, index, mention, part)

    def finish_part(self, number: int, index: int, mention: _Mention, part: int) -> None:
        mention.ranges[part][1] = index
        mention.closed.add(part)
        if len(mention.closed) == mention.parts_total and mention.parts_total > 1:
            self.pending[(mention.layer, mention.entity, mention.parts_total)].remove(mention)

    def read_split_ante(self, number: int, value: str) -> None:
        for entry in value.split(","):
            ante, sep, plural = entry.partition("<")
            if not sep or not ante or not plural:
                raise self.fail(number, f"SplitAnte entry {entry!r} (expected "
                                "ANTECEDENT<PLURAL, e.g. SplitAnte=e1<e3,e2<e3)", "split_ante")
            self.split_ante.append((ante, plural, number))

    def read_bridge(self, number: int, value: str, index: int) -> None:
        for entry in value.split(","):
            anchor, sep, rest = entry.partition("<")
            anaphor, _, relation = rest.partition(":")
            if not sep or not anchor or not anaphor:
                raise self.fail(number, f"Bridge entry {entry!r} (expected ANCHOR<ANAPHOR[:rel], "
                                "e.g. Bridge=e12<e15)", "bridge")
            self.bridges.append((anchor, anaphor, relation, number, index))

    def sentence(self, sentence: Sentence) -> None:
        self.sentences.append(sentence)
        self.sentence_index += 1

    # the finished document
    def build(self) -> Document:
        for stack in list(self.open.values()) + list(self.parts_open.values()):
            if stack:
                mention = stack[0]
                raise self.fail(mention.line, f"mention of entity {mention.entity} is never "
                                f"closed (expected '{mention.entity})' before the end of "
                                f"document {self.name})", "unclosed")
        for stack in self.pending.values():
            if stack:
                mention = stack[0]
                missing = sorted(set(range(1, mention.parts_total + 1)) - mention.closed)
                raise self.fail(mention.line, f"discontinuous mention of entity {mention.entity} "
                                f"lacks part(s) {missing} of {mention.parts_total}", "unclosed")
        locals_by_sentence = _LazyIndex(self.nodes)
        built: list[Markable] = []
        mids: dict[str, int] = {}
        ua_links: list[tuple[str, str, str, int]] = []  # (anaphor mid, anchor mid, rel, line)
        ua_elements: dict[int, tuple[str, ...]] = {}
        for mention in self.mentions:
            markable, element_of, bridges = self.markable(mention, locals_by_sentence)
            if markable.markable_id in mids and mention.layer == "identity":
                raise self.fail(mention.line, f"markable id {markable.markable_id} is used twice "
                                "(expected one mid per mention)", "duplicate_markable")
            if mention.layer == "identity":
                mids[markable.markable_id] = len(built)
            ua_elements[len(built)] = element_of
            ua_links.extend((markable.markable_id, anchor, rel, mention.line)
                            for anchor, rel in bridges)
            built.append(markable)
        layers = [m.layer for m in self.mentions]
        if self.exact_ua:
            built = [self.with_elements(markable, ua_elements[i]) if ua_elements[i] else markable
                     for i, markable in enumerate(built)]
            bridging = self.exact_bridges(ua_links, mids)
        else:
            built = self.apply_split_ante(built, layers)
            bridging = self.resolve_bridges(built, layers)
        identity = tuple(m for m, layer in zip(built, layers) if layer == "identity")
        deixis = tuple(m for m, layer in zip(built, layers) if layer == "discourse_deixis")
        return Document(
            name=self.name, path=self.path, line=self.line, tokens=tuple(self.tokens),
            identity=identity, discourse_deixis=deixis, bridging=tuple(bridging),
            token_lines=tuple(self.token_lines), sentences=tuple(self.sentences),
            metadata={**self.globals, "format": FORMAT, "global.Entity": self.header})

    def markable(self, mention: _Mention, locals_by_sentence: dict[tuple[int, str], _Node]
                 ) -> tuple[Markable, tuple[str, ...], list[tuple[str, str]]]:
        ranges = mention.ranges
        zero = 0
        if len(ranges) == 1 and self._no_empty_node(*ranges[1]):
            first, last = ranges[1]  # the common case: contiguous words only
            nodes = self.nodes[first:last + 1]
            parts = [(nodes[0].position, nodes[-1].position)]
            zeros: list[tuple[int, int]] = []
        else:
            nodes = [self.nodes[i] for part in sorted(ranges)
                     for i in range(ranges[part][0], ranges[part][1] + 1)]
            words = sorted({n.position for n in nodes if n.rank == 0})
            zeros = sorted({(n.position, n.rank) for n in nodes if n.rank})
            if words:
                parts = []
                for w in words:
                    if parts and parts[-1][1] == w - 1:
                        parts[-1] = (parts[-1][0], w)
                    else:
                        parts.append((w, w))
            else:  # a zero mention: the first empty node is the mention
                position, zero = zeros.pop(0)
                parts = [(position, position)]
        fields = mention.fields
        head = head_zero = None
        if fields.get("head"):
            try:
                h = int(fields["head"])
            except ValueError:
                raise self.fail(mention.line, f"head {fields['head']!r} of entity "
                                f"{mention.entity} (expected a number)", "head") from None
            if not 1 <= h <= len(nodes):
                raise self.fail(mention.line, f"head {h} of entity {mention.entity} is outside "
                                f"its mention of {len(nodes)} nodes (expected 1..{len(nodes)})",
                                "head")
            node = nodes[h - 1]
            head, head_zero = node.position, node.rank
        attributes: list[tuple[str, str]] = []
        min_span = None
        element_of: tuple[str, ...] = ()
        bridges: list[tuple[str, str]] = []
        if fields.get("min"):
            try:
                bounds = [int(x) - 1 for x in fields["min"].split(",")]
            except ValueError:
                raise self.fail(mention.line, f"min {fields['min']!r} (expected a token number "
                                "or two joined by a comma)", "min") from None
            min_span = (bounds[0], bounds[-1])
        if min_span is None and head is not None and not head_zero:
            min_span = (head, head)  # CorefUD partial matching: the head is the minimum
        for name, value in fields.items():
            if name in _SPECIAL_FIELDS or name == self.fields[0] or name.startswith("_"):
                continue
            if value:
                attributes.append((name, value))
        if fields.get("ua"):
            for pair in fields["ua"].split(","):
                key, _, value = pair.partition(":")
                key = unescape(key)
                if key == "ElementOf":
                    element_of += tuple(unescape(value).split(","))
                elif key == "Bridge":
                    anchor, _, rel = value.partition("/")
                    bridges.append((unescape(anchor), unescape(rel)))
                elif key:
                    attributes.append((key, unescape(value)))
        markable_id = fields.get("mid") or f"m{mention.order + 1}"
        markable = Markable(
            markable_id=markable_id, entity_id=mention.entity, parts=tuple(parts),
            line=mention.line, min_span=min_span, head=head, zero=zero,
            attributes=tuple(attributes), zeros=tuple(zeros), head_zero=head_zero or 0,
        )
        # The node that heads it when scored (v2: the first one when none is annotated).
        head_node = (head, head_zero or 0) if head is not None else first_node(markable)
        if head_node[1]:  # an empty node: a zero, which carries its head's dependencies
            source = next(n for n in nodes if (n.position, n.rank) == head_node)
            markable = markable._replace(attributes=markable.attributes + (
                ("deps", self.doc_deps(source, locals_by_sentence)),))
        return markable, element_of, bridges

    def _no_empty_node(self, first: int, last: int) -> bool:
        before = self.empty_count[first - 1] if first else 0
        return self.empty_count[last] == before

    def doc_deps(self, node: _Node, locals_by_sentence: dict[tuple[int, str], _Node]) -> str:
        if node.deps in ("", "_"):
            return ""
        out = []
        for dep in node.deps.split("|"):
            parent, _, label = dep.partition(":")
            if parent == "0":
                where = "root"
            else:
                target = locals_by_sentence.get((node.sentence, parent))
                if target is None:
                    where = parent
                elif target.rank:
                    where = f"{target.position}.{target.rank}"
                else:
                    where = str(target.position)
            out.append(f"{where}:{label}")
        return "|".join(out)

    @staticmethod
    def with_elements(markable: Markable, elements: tuple[str, ...]) -> Markable:
        merged = tuple(dict.fromkeys(markable.element_of + elements))
        return Markable(markable.markable_id, markable.entity_id, markable.parts, markable.line,
                        markable.min_span, markable.head, merged, markable.zero,
                        markable.attributes, markable.zeros, markable.head_zero)

    def apply_split_ante(self, built: list[Markable], layers: list[str]) -> list[Markable]:
        if not self.split_ante:
            return built
        first: dict[str, int] = {}
        for i, (markable, layer) in enumerate(zip(built, layers)):
            if layer == "identity":
                first.setdefault(markable.entity_id, i)
        seen: set[tuple[str, str]] = set()
        antecedents: dict[str, set[str]] = {}
        additions: dict[int, list[str]] = {}
        for ante, plural, line in self.split_ante:
            if (ante, plural) in seen:
                self.warn(line, f"SplitAnte {ante}<{plural} is repeated; read once")
                continue
            seen.add((ante, plural))
            missing = [e for e in (ante, plural) if e not in first]
            if missing:
                self.warn(line, f"SplitAnte {ante}<{plural} names entity {missing[0]}, which has "
                          "no mention in the document; ignored")
                continue
            antecedents.setdefault(plural, set()).add(ante)
            additions.setdefault(first[ante], []).append(plural)
        for plural, antes in antecedents.items():
            if len(antes) < 2:
                line = next(line for a, p, line in self.split_ante if p == plural)
                self.warn(line, f"SplitAnte of entity {plural} has one antecedent "
                          f"({next(iter(antes))}); a split antecedent needs two")
        return [self.with_elements(m, tuple(additions[i])) if i in additions else m
                for i, m in enumerate(built)]

    def resolve_bridges(self, built: list[Markable], layers: list[str]) -> list[BridgingLink]:
        if not self.bridges:
            return []
        by_entity: dict[str, list[Markable]] = {}
        opened_at: dict[tuple[int, str], Markable] = {}
        for markable, layer in zip(built, layers):
            if layer == "identity":
                by_entity.setdefault(markable.entity_id, []).append(markable)
                opened_at.setdefault((markable.line, markable.entity_id), markable)
        links: list[BridgingLink] = []
        seen: set[tuple[str, str, str]] = set()
        for anchor_entity, anaphor_entity, relation, line, node in self.bridges:
            anaphor = opened_at.get((line, anaphor_entity))
            if anaphor is None:
                later = [m for m in by_entity.get(anaphor_entity, ())
                         if m.start >= self.nodes[node].position]
                anaphor = later[0] if later else None
            if anaphor is None or anchor_entity not in by_entity:
                missing = anaphor_entity if anaphor is None else anchor_entity
                self.warn(line, f"Bridge {anchor_entity}<{anaphor_entity} names entity "
                          f"{missing}, which has no mention here; ignored")
                continue
            candidates = by_entity[anchor_entity]
            before = [m for m in candidates if m.start < anaphor.start]
            anchor = (max(before, key=lambda m: (m.start, m.end)) if before
                      else min(candidates, key=lambda m: (m.start, m.end)))
            key = (anaphor.markable_id, anchor.markable_id, relation)
            if key in seen:
                self.warn(line, f"Bridge {anchor_entity}<{anaphor_entity} is repeated; read once")
                continue
            seen.add(key)
            links.append(BridgingLink(anaphor.markable_id, anchor.markable_id, relation, line))
        return links

    def exact_bridges(self, records: list[tuple[str, str, str, int]],
                      mids: dict[str, int]) -> list[BridgingLink]:
        links = []
        for anaphor, anchor, relation, line in records:
            if anchor not in mids or anaphor not in mids:
                self.warn(line, f"bridging anchor {anchor} of {anaphor} is not a mention of "
                          "the document; ignored")
                continue
            links.append(BridgingLink(anaphor, anchor, relation, line))
        return links
