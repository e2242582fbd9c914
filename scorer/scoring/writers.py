"""Writers: Documents back to text, as compact CONLL-UA (CorefUD) or exploded CONLL-UA.

Both writers take what any reader produced and keep everything the scorer reads; the layout
(comments, token rows, extra columns) comes from ``Document.sentences`` when the reader kept
it. docs/formats.md ("Conversion") says how exploded-only content rides in a compact file:

* identity mentions go to ``Entity=`` and discourse-deixis mentions to ``DiscourseDeixis=``,
  with ``# global.Entity = eid-etype-head-other-mid-min-ua``: ``mid`` is the MarkableID,
  ``min`` the exploded ``Min`` (1-based document token numbers, ``a`` or ``a,b``), and ``ua``
  the other markable attributes as ``Key:Value`` pairs joined by ``,``, including
  ``ElementOf`` and one ``Bridge:ANCHOR/REL`` per bridging link of which the mention is the
  anaphor. Values inside a bracket are %XX-escaped (`scoring.readers.compact.escape`).
* Standard ``SplitAnte=`` and ``Bridge=`` are written too, for other tools; our compact
  reader takes the exact markable-level records from the ``ua`` field instead.
* Columns after MISC other than IDENTITY, BRIDGING and DISCOURSE_DEIXIS (REFERENCE, NOM_SEM)
  ride verbatim as ``UA.<COLUMN>=cell`` MISC items (``%`` and ``|`` escaped), and the exploded
  column list as ``# global.ua.columns``, so the exploded writer can put them back.

Where markables of a document cross (overlap without nesting), the exploded writer closes
them by name (``markable_5)``, UA 2.0), which reads back with ``--allow-boundary-crossing``;
a bare ``)`` closes by stack order and would change their spans. The exploded writer
numbers tokens through the document (1…N, zeros ``N.k``, as the
CODI-CRAC files do) and drops multiword-token range lines, which exploded files lack; HEAD
and DEPS are copied as written; a space inside a field (GUM's ``XML=<ref target…>``) is
written ``%20``, since exploded columns are split on whitespace. A compact mention's head
rides as the markable attribute ``Head=`` (1-based document token number).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TextIO

from scoring.errors import ScoringInputError
from scoring.model import BridgingLink, Document, Markable, Sentence
from scoring.readers.compact import escape

COMPACT_FIELDS = "eid-etype-head-other-mid-min-ua"
CONLLU_COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
LAYER_COLUMNS = ("IDENTITY", "BRIDGING", "DISCOURSE_DEIXIS")
CODI_CRAC_COLUMNS = CONLLU_COLUMNS + LAYER_COLUMNS + ("REFERENCE", "NOM_SEM")
EXTRA_PREFIX = "UA."
_OWN_MISC = ("Entity", "DiscourseDeixis", "SplitAnte", "Bridge")
_NAMED_FIELDS = ("etype", "other")  # attributes that have their own compact field
_NOT_WRITTEN = ("deps", "Head")  # derived by the compact reader / carried by the head field

Node = tuple[int, int, int]
"""A node of the document in file order: ``(position, 0, rank)`` for the rank-th zero before
the word at ``position``, ``(position, 1, 0)`` for the word itself."""


def misc_escape(value: str) -> str:
    return value.replace("%", "%25").replace("|", "%7C")


def misc_unescape(value: str) -> str:
    return value.replace("%7C", "|").replace("%25", "%")


# ---------------------------------------------------------------------------------------
# Layout shared by both writers


def _columns(doc: Document) -> tuple[str, ...]:
    header = doc.metadata.get("global.columns") or doc.metadata.get("global.ua.columns")
    if header:
        return tuple(header.partition("=")[2].split() if "=" in header else header.split())
    return CODI_CRAC_COLUMNS if doc.metadata.get("format") == "ua" else CONLLU_COLUMNS


Row = tuple[Node | None, tuple[str, ...]]


def _layout(doc: Document) -> list[tuple[tuple[str, ...], list[Row]]]:
    """Sentences as (comments, [(node, row)]); rows are synthesised when the reader kept none."""
    fmt = doc.metadata.get("format")
    sentences: Iterable[Sentence] = doc.sentences if fmt in ("ua", "corefud") else ()
    out: list[tuple[tuple[str, ...], list[Row]]] = []
    position, rank = 0, 0
    for sentence in sentences:
        rows: list[Row] = []
        for row in sentence.rows:
            token_id = row[0]
            if fmt == "corefud" and "-" in token_id:
                rows.append((None, row))
                continue
            if "." in token_id:
                rank += 1
                rows.append(((position, 0, rank), row))
            else:
                rows.append(((position, 1, 0), row))
                position += 1
                rank = 0
        comments = tuple(
            c for c in sentence.comments if not c.lstrip("# ").startswith(("newdoc", "global."))
        )
        out.append((comments, rows))
    if position != len(doc.tokens):  # no usable layout: one row per word, sentences as read
        out = []
        lengths = [len(s.rows) for s in doc.sentences] if fmt == "conll" else [len(doc.tokens)]
        position = 0
        for length in lengths:
            rows = []
            for offset in range(length):
                rows.append(
                    ((position, 1, 0), (str(offset + 1), doc.tokens[position]) + ("_",) * 8)
                )
                position += 1
            out.append(((), rows))
    return out


def _part_nodes(markable: Markable) -> list[tuple[Node, Node]]:
    """First and last node of each part; a zero markable is one node."""
    if markable.zero:
        node = (markable.start, 0, markable.zero)
        return [(node, node)]
    zeros = set(markable.zeros)
    result = []
    for start, end in markable.parts:
        before = [k for p, k in zeros if p == start]
        after = [k for p, k in zeros if p == end + 1]
        first = (start, 0, min(before)) if before else (start, 1, 0)
        last = (end + 1, 0, max(after)) if after else (end, 1, 0)
        result.append((first, last))
    return result


def _node_list(markable: Markable, nodes: list[Node]) -> list[Node]:
    """The nodes a compact mention covers, in file order (for the head's rank)."""
    covered: list[Node] = []
    for first, last in _part_nodes(markable):
        covered.extend(n for n in nodes if first <= n <= last)
    return covered


def _min_text(span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    a, b = span[0] + 1, span[1] + 1
    return str(a) if a == b else f"{a},{b}"


def _closing_order(spans: list[tuple[Node, Node, str]]) -> list[str]:
    return [text for _, _, text in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True)]


def _opening_order(spans: list[tuple[Node, Node, str]]) -> list[str]:
    return [text for _, _, text in sorted(spans, key=lambda s: s[1], reverse=True)]


# ---------------------------------------------------------------------------------------
# Compact


def write_compact(documents: Iterable[Document], out: TextIO) -> None:
    """Write documents as compact CONLL-UA (CoNLL-U with ``Entity=`` in MISC).

    The ``head`` field is declared only when some mention has a head: the CorefUD tools
    (udapi) refuse an empty head field but read a file without one, taking each mention's
    first word as its head, as our reader does. A mention without a head in a file whose
    other mentions have one is written headed by its first node, which reads the same.
    """
    documents = list(documents)
    with_head = any(
        _head_position(m)[0] is not None
        for doc in documents
        for layer in (doc.identity, doc.discourse_deixis)
        for m in layer
    )
    fields = COMPACT_FIELDS if with_head else COMPACT_FIELDS.replace("-head", "")
    out.write(f"# global.Entity = {fields}\n")
    extra = next((_columns(d) for d in documents if len(_columns(d)) > len(CONLLU_COLUMNS)), None)
    if extra:
        out.write(f"# global.ua.columns = {' '.join(extra)}\n")
    for doc in documents:
        _write_compact_document(doc, out, with_head=with_head)


def _write_compact_document(doc: Document, out: TextIO, *, with_head: bool = True) -> None:
    layout = _layout(doc)
    nodes = [node for _, rows in layout for node, _ in rows if node is not None]
    columns = _columns(doc)
    extra = [
        (i, name)
        for i, name in enumerate(columns)
        if i >= len(CONLLU_COLUMNS) and name not in LAYER_COLUMNS
    ]
    items: dict[Node, dict[str, list[str]]] = {}

    def add(node: Node, key: str, text: str) -> None:
        items.setdefault(node, {}).setdefault(key, []).append(text)

    by_anaphor: dict[str, list[BridgingLink]] = {}
    for link in doc.bridging:
        by_anaphor.setdefault(link.anaphor, []).append(link)
    for key, layer in (("Entity", doc.identity), ("DiscourseDeixis", doc.discourse_deixis)):
        _check_compact_nesting(doc, layer)
        bridged = by_anaphor if key == "Entity" else {}
        for node, text in _compact_brackets(layer, nodes, bridged, with_head):
            add(node, key, text)
    _standard_relations(doc, add)
    out.write(f"# newdoc id = {doc.name}\n")
    _write_compact_rows(layout, items, extra, out)


def _compact_brackets(
    layer: Iterable[Markable],
    nodes: list[Node],
    by_anaphor: dict[str, list[BridgingLink]],
    with_head: bool,
) -> list[tuple[Node, str]]:
    """A layer's brackets as compact files write them: (node, the closings then openings at
    that node), an opening with the mention's fields (and its bridging links, by anaphor)."""
    opens: dict[Node, list[Any]] = {}
    closes: dict[Node, list[Any]] = {}
    for markable in layer:
        bridges = by_anaphor.get(markable.markable_id, [])
        fields = _compact_fields(markable, nodes, bridges)
        if not with_head:
            del fields[2]
        elif not fields[2]:
            fields[2] = "1"  # the first node, as a mention without a head is read
        parts = _part_nodes(markable)
        eid = escape(markable.entity_id)
        for k, (first, last) in enumerate(parts, start=1):
            label = eid if len(parts) == 1 else f"{eid}[{k}/{len(parts)}]"
            body = "-".join([label] + fields[1:]) if k == 1 else label
            if first == last:
                opens.setdefault(first, []).append((first, last, f"({body})"))
            else:
                opens.setdefault(first, []).append((first, last, f"({body}"))
                closes.setdefault(last, []).append((first, last, f"{label})"))
    return [
        (node, "".join(_closing_order(closes.get(node, [])) + _opening_order(opens.get(node, []))))
        for node in set(opens) | set(closes)
    ]


def _write_compact_rows(
    layout: list[tuple[tuple[str, ...], list[Row]]],
    items: dict[Node, dict[str, list[str]]],
    extra: list[tuple[int, str]],
    out: TextIO,
) -> None:
    """The document's sentences as CoNLL-U rows: its own MISC items first, then the
    coreference ``items`` of each node and the ``extra`` columns, kept in MISC."""
    for comments, rows in layout:
        for comment in comments:
            out.write(comment + "\n")
        for row_node, row in rows:
            fields = list(row[: len(CONLLU_COLUMNS)]) + ["_"] * (len(CONLLU_COLUMNS) - len(row))
            misc = (
                []
                if fields[9] == "_"
                else [
                    item for item in fields[9].split("|") if item.partition("=")[0] not in _OWN_MISC
                ]
            )
            for key, texts in (items.get(row_node, {}) if row_node is not None else {}).items():
                joiner = "" if key in ("Entity", "DiscourseDeixis") else ","
                misc.append(f"{key}={joiner.join(texts)}")
            for index, name in extra:
                if index < len(row) and row[index] != "_":
                    misc.append(f"{EXTRA_PREFIX}{name}={misc_escape(row[index])}")
            fields[9] = "|".join(misc) if misc else "_"
            out.write("\t".join(fields) + "\n")
        out.write("\n")


def _check_compact_nesting(doc: Document, layer: Iterable[Markable]) -> None:
    """A compact closing names its entity, not its mention: two crossing mentions of one
    entity would come back with each other's ends, so they are refused."""
    by_entity: dict[str, list[Markable]] = {}
    for markable in layer:
        by_entity.setdefault(markable.entity_id, []).append(markable)
    for entity, markables in by_entity.items():
        if len(markables) > 1 and _crossing(markables):
            raise ScoringInputError(
                doc.path,
                min(m.line for m in markables),
                f"document '{doc.name}': mentions of entity {entity} cross (overlap without "
                "nesting); compact files cannot write them (expected nested mentions, or "
                "--to exploded)",
                code="unwritable",
                document=doc.name,
            )


def _head_position(markable: Markable) -> tuple[int | None, int]:
    """A mention's head (document token position, zero rank), from a compact file or from
    the exploded ``Head=`` attribute; (None, 0) when it has none."""
    if markable.head is not None:
        return markable.head, markable.head_zero
    head = dict(markable.attributes).get("Head", "")
    return (int(head) - 1, 0) if head.isdigit() else (None, 0)


def _compact_fields(
    markable: Markable, nodes: list[Node], bridges: list[BridgingLink]
) -> list[str]:
    attributes = dict(markable.attributes)
    head = ""
    head_position, head_rank = _head_position(markable)
    if head_position is not None:
        node = (head_position, 0, head_rank) if head_rank else (head_position, 1, 0)
        covered = _node_list(markable, nodes)
        if node in covered:
            head = str(covered.index(node) + 1)
    pairs = [
        f"{escape(k)}:{escape(v)}"
        for k, v in markable.attributes
        if k not in _NAMED_FIELDS and k not in _NOT_WRITTEN
    ]
    if markable.element_of:
        pairs.append(f"ElementOf:{escape(','.join(markable.element_of))}")
    pairs.extend(f"Bridge:{escape(link.anchor)}/{escape(link.relation)}" for link in bridges)
    return [
        escape(markable.entity_id),
        escape(attributes.get("etype", "")),
        head,
        escape(attributes.get("other", "")),
        escape(markable.markable_id),
        _min_text(markable.min_span),
        ",".join(pairs),
    ]


def _standard_relations(doc: Document, add: Callable[[Node, str, str], None]) -> None:
    """``SplitAnte=`` and ``Bridge=`` for tools other than ours (entity level)."""
    first: dict[str, Markable] = {}
    by_id: dict[str, Markable] = {}
    for markable in doc.identity:
        first.setdefault(markable.entity_id, markable)
        by_id.setdefault(markable.markable_id, markable)
    seen: set[tuple[str, str]] = set()
    for markable in doc.identity:
        for plural in markable.element_of:
            pair = (markable.entity_id, plural)
            if plural in first and pair not in seen and plural != markable.entity_id:
                seen.add(pair)
                add(
                    _part_nodes(first[plural])[0][0],
                    "SplitAnte",
                    f"{escape(markable.entity_id)}<{escape(plural)}",
                )
    for link in doc.bridging:
        anaphor, anchor = by_id.get(link.anaphor), by_id.get(link.anchor)
        if anaphor is None or anchor is None or anaphor.entity_id == anchor.entity_id:
            continue  # (an entity bridging to itself has no entity-level form: udapi refuses
            # it; the mention-level link stays in the 'ua' field)
        rel = f":{escape(link.relation)}" if link.relation else ""
        add(
            _part_nodes(anaphor)[0][0],
            "Bridge",
            f"{escape(anchor.entity_id)}<{escape(anaphor.entity_id)}{rel}",
        )


# ---------------------------------------------------------------------------------------
# Exploded

_UNSAFE = str.maketrans({"(": "%28", ")": "%29", "|": "%7C", "=": "%3D", " ": "%20", "\t": "%09"})


def write_exploded(documents: Iterable[Document], out: TextIO) -> None:
    """Write documents as exploded CONLL-UA (the CODI-CRAC layout)."""
    documents = list(documents)
    columns = next((_columns(d) for d in documents if len(_columns(d)) > len(CONLLU_COLUMNS)), None)
    if columns is None:
        columns = CONLLU_COLUMNS + LAYER_COLUMNS
    out.write(f"# global.columns = {' '.join(columns)}\n")
    for doc in documents:
        _write_exploded_document(doc, columns, out)


def _write_exploded_document(doc: Document, columns: tuple[str, ...], out: TextIO) -> None:
    layout = _layout(doc)
    cells: dict[str, dict[Node, str]] = {}
    for name, layer in (("IDENTITY", doc.identity), ("DISCOURSE_DEIXIS", doc.discourse_deixis)):
        cells[name] = _exploded_brackets(layer)
    by_id = {m.markable_id: m for m in doc.identity}
    bridging: dict[Node, list[str]] = {}
    for link in doc.bridging:
        anaphor, anchor = by_id.get(link.anaphor), by_id.get(link.anchor)
        if anaphor is None:
            continue
        body = [f"MarkableID={link.anaphor}"]
        if link.relation:
            body.append(f"Rel={link.relation}")
        body.append(f"MentionAnchor={link.anchor}")
        if anchor is not None:
            body.append(f"EntityAnchor={anchor.entity_id}")
        anaphor_node = (
            (anaphor.start, 1, 0) if not anaphor.zero else (anaphor.start, 0, anaphor.zero)
        )
        bridging.setdefault(anaphor_node, []).append("(" + "|".join(body) + ")")
    cells["BRIDGING"] = {node: "".join(texts) for node, texts in bridging.items()}
    out.write(f"# newdoc id = {doc.name}\n")
    for comments, rows in layout:
        for comment in comments:
            out.write(comment + "\n")
        for node, row in rows:
            if node is None:
                continue  # a multiword-token range: exploded files have none
            position, is_word, rank = node
            token_id = str(position + 1) if is_word else f"{position}.{rank}"
            fields = [token_id] + [row[i] if i < len(row) else "_" for i in range(1, 9)]
            misc = row[9] if len(row) > 9 else "_"
            extra: dict[str, str] = {}
            kept = []
            source_is_exploded = doc.metadata.get("format") == "ua"
            if misc != "_" and not source_is_exploded:
                for item in misc.split("|"):
                    key, _, value = item.partition("=")
                    if key.startswith(EXTRA_PREFIX):
                        extra[key[len(EXTRA_PREFIX) :]] = misc_unescape(value)
                    elif key not in _OWN_MISC:
                        kept.append(item)
                misc = "|".join(kept) if kept else "_"
            fields.append(misc)
            for i in range(len(CONLLU_COLUMNS), len(columns)):
                name = columns[i]
                if name in cells:
                    fields.append(cells[name].get(node, "_"))
                elif source_is_exploded and i < len(row):
                    fields.append(row[i])
                else:
                    fields.append(extra.get(name, "_"))
            out.write("\t".join(_no_space(f) for f in fields) + "\n")
        out.write("\n")


def _no_space(field: str) -> str:
    """Exploded columns are split on whitespace: a space inside a field becomes %20."""
    return (
        field.replace(" ", "%20").replace("\t", "%09")
        if field.strip() and (" " in field or "\t" in field)
        else (field or "_")
    )


def _crossing(layer: Iterable[Markable]) -> bool:
    """True if two markable parts overlap without one containing the other."""
    spans = sorted({p for m in layer if not m.zero for p in m.parts}, key=lambda p: (p[0], -p[1]))
    stack: list[int] = []  # ends of the open spans
    for start, end in spans:
        while stack and stack[-1] < start:
            stack.pop()
        if stack and end > stack[-1]:
            return True
        stack.append(end)
    return False


def _exploded_brackets(layer: Iterable[Markable]) -> dict[Node, str]:
    layer = list(layer)
    named = _crossing(layer)  # bare ')' closes by stack order: crossing parts need names
    opens: dict[Node, list[Any]] = {}
    closes: dict[Node, list[Any]] = {}
    for markable in layer:
        body = _exploded_body(markable)
        if markable.zero:
            node = (markable.start, 0, markable.zero)
            opens.setdefault(node, []).append((node, node, f"({body})"))
            continue
        for start, end in markable.parts:  # several parts: the MarkableID repeats (UA 2.0)
            first, last = (start, 1, 0), (end, 1, 0)
            if first == last:
                opens.setdefault(first, []).append((first, last, f"({body})"))
            else:
                opens.setdefault(first, []).append((first, last, f"({body}"))
                closing = f"{markable.markable_id})" if named else ")"
                closes.setdefault(last, []).append((first, last, closing))
    cells = {}
    for node in set(opens) | set(closes):
        cells[node] = "".join(
            _closing_order(closes.get(node, [])) + _opening_order(opens.get(node, []))
        )
    return cells


def _exploded_body(markable: Markable) -> str:
    pairs = [("EntityID", markable.entity_id), ("MarkableID", markable.markable_id)]
    if markable.min_span is not None:
        pairs.append(("Min", _min_text(markable.min_span)))
    attributes = [(k, v) for k, v in markable.attributes if k not in _NOT_WRITTEN]
    if markable.head is not None and not markable.head_zero:
        attributes.append(("Head", str(markable.head + 1)))
    pairs.extend(attributes)
    if markable.element_of:
        pairs.append(("ElementOf", ",".join(markable.element_of)))
    return "|".join(
        f"{k}={v.translate(_UNSAFE)}" if k not in ("EntityID", "MarkableID") else f"{k}={v}"
        for k, v in pairs
    )
