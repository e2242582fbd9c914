"""The bracket cells of an exploded CONLL-UA document's markable columns (IDENTITY,
DISCOURSE_DEIXIS): one `Layer` per column holds the markables opened and the stack of those
still open, reads each cell's closings and openings, and builds the markables at the end."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from scoring.model import Markable
from scoring.readers.exploded.layout import (
    EXPECTED_MARKABLE,
    NAMED_CLOSINGS,
    SCORED,
)

if TYPE_CHECKING:
    from scoring.readers.exploded.document import Doc


class Open(NamedTuple):
    """A markable being read: one start per part, one end per closed part. (A named tuple:
    one is built per markable, faster than a class instance.)"""

    markable_id: str
    entity_id: str
    line: int
    min_text: str | None
    element_of: tuple[str, ...]
    zero: int
    attributes: tuple[tuple[str, str], ...]
    starts: list[int]
    ends: list[int]


new_open = partial(tuple.__new__, Open)
"""An `Open` from the tuple of all its fields, built in C (the named tuple's own ``__new__``
is a Python function, and one is built per markable)."""
new_markable = partial(tuple.__new__, Markable)
"""The same for `Markable`: every one of its fields, in order."""


class Layer:
    """Bracket state of one markable column within one document."""

    __slots__ = ("column", "name", "opened", "stack")

    def __init__(self, name: str, column: int) -> None:
        self.name = name
        self.column = column
        self.opened: dict[str, Open] = {}
        self.stack: list[str] = []

    def cell(self, doc: Doc, cell: str, position: int, zero: int) -> None:
        """Read a bracket cell of this layer's column on a token line (not '_')."""
        stack = self.stack
        if cell == ")" and stack and not zero:  # the commonest closing cell
            self.opened[stack.pop()].ends.append(position)
            return
        if (
            cell[0] == "("
            and cell.count("(") == 1
            and cell.count(")") == (cell[-1] == ")")
            and (not zero or cell[-1] == ")")
        ):
            # the commonest opening cells, '(…)' and '(…': one markable, no closing before
            single = cell[-1] == ")"
            self.open(doc, cell[1:-1] if single else cell[1:], position, zero, single)
            return
        start = cell.find("(")
        prefix = cell if start < 0 else cell[:start]
        if prefix and not self.closings(doc, cell, prefix, position, zero):
            return
        if start >= 0:
            self.openings(doc, cell, start, position, zero)

    def closings(self, doc: Doc, cell: str, prefix: str, position: int, zero: int) -> bool:
        """Close the markables that ``prefix``, the closings before a cell's first '(', names
        (bare ')' or 'm_1)'); False where the cell is wrong (reported) and reads no further."""
        if zero:
            doc.problem(
                f"{self.name} cell '{cell}' closes a markable on a zero token "
                "(expected markables on zeros to open and close there)",
                "zero_in_span",
            )
            return False
        if prefix.count(")") == len(prefix):
            for _ in range(len(prefix)):
                if not self.close(doc, None, position, cell):
                    return False
        elif NAMED_CLOSINGS.fullmatch(prefix):
            for name in prefix.split(")")[:-1]:
                if not self.close(doc, name.strip() or None, position, cell):
                    return False
        else:
            doc.problem(
                f"{self.name} cell '{cell}' starts with '{prefix}' (expected "
                "closing brackets ')' before any '(', or '_')",
                "bad_cell",
            )
            return False
        return True

    def openings(self, doc: Doc, cell: str, start: int, position: int, zero: int) -> None:
        """Open the markables of a cell from its first '(' (at ``start``): each '(…' or '(…)'."""
        for piece in cell[start + 1 :].split("("):
            single = piece.endswith(")")
            body = piece[:-1] if single else piece
            if ")" in body:
                if body.endswith(")"):
                    doc.problem(
                        f"{self.name} cell '{cell}' has ')' after an opening (expected "
                        "closings first, e.g. ')(EntityID=…|MarkableID=…)')",
                        "close_after_open",
                    )
                else:
                    doc.problem(
                        f"{self.name} cell '{cell}' has ')' inside an opening "
                        f"(expected {EXPECTED_MARKABLE})",
                        "bad_cell",
                    )
                return
            if zero and not single:
                doc.problem(
                    f"{self.name} cell '{cell}' opens a markable on a zero token "
                    "that does not close there (expected '(…)' on zeros)",
                    "zero_in_span",
                )
                return
            self.open(doc, body, position, zero, single)

    def open(self, doc: Doc, body: str, position: int, zero: int, single: bool) -> None:
        attributes = {}
        for part in body.split("|"):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                doc.problem(
                    f"{self.name} markable '({body}' has the attribute '{part}', which "
                    f"is not NAME=VALUE (expected {EXPECTED_MARKABLE})",
                    "bad_cell",
                )
                return
            attributes[key] = value
        markable_id = attributes.get("MarkableID")
        entity_id = attributes.get("EntityID")
        if not markable_id:
            doc.problem(
                f"{self.name} markable '({body}' has no MarkableID (expected {EXPECTED_MARKABLE})",
                "missing_markable_id",
            )
            return
        if not entity_id:
            doc.problem(
                f"{self.name} markable '{markable_id}' has no EntityID (expected "
                f"{EXPECTED_MARKABLE})",
                "missing_entity_id",
            )
            return
        opened = self.opened
        entry = opened.get(markable_id)
        if entry is None:
            reader = doc.reader
            element_of = attributes.get("ElementOf")
            opened[markable_id] = new_open(
                (
                    markable_id,
                    entity_id,
                    reader.lineno,
                    attributes.get("Min") if reader.read_min else None,
                    tuple(e for e in element_of.split(",") if e) if element_of else (),
                    zero,
                    tuple((k, v) for k, v in attributes.items() if k not in SCORED)
                    if reader.layout
                    else (),
                    [position],
                    [position] if single else [],
                )
            )
        elif self.discontinuous_part(doc, entry, entity_id):
            entry.starts.append(position)
            if single:
                entry.ends.append(position)
        else:
            return
        if not single:
            self.stack.append(markable_id)

    def discontinuous_part(self, doc: Doc, existing: Open, entity_id: str) -> bool:
        if not doc.reader.discontinuous:
            doc.problem(
                f"MarkableID '{existing.markable_id}' is used twice in the "
                f"{self.name} column, first at line {existing.line} (expected "
                "unique MarkableIDs; the v2 options, e.g. -s, read a repeated "
                "MarkableID as one discontinuous markable)",
                "duplicate_markable_id",
            )
            return False
        if existing.entity_id != entity_id:
            doc.problem(
                f"MarkableID '{existing.markable_id}' has EntityID={entity_id} here but "
                f"EntityID={existing.entity_id} at line {existing.line} (expected the "
                "parts of a discontinuous markable to share one EntityID)",
                "duplicate_markable_id",
            )
            return False
        if len(existing.ends) < len(existing.starts):
            doc.problem(
                f"MarkableID '{existing.markable_id}' opens again before its part "
                f"from line {existing.line} is closed (expected the parts of a "
                "discontinuous markable one after another)",
                "duplicate_markable_id",
            )
            return False
        return True

    def close(self, doc: Doc, name: str | None, position: int, cell: str) -> bool:
        stack = self.stack
        if not stack:
            doc.problem(
                f"{self.name} cell '{cell}' closes a markable but none is open "
                "(expected as many ')' as open markables)",
                "unbalanced",
            )
            return False
        if name is None or name == stack[-1]:
            markable_id = stack.pop()
        elif name in stack:
            if not doc.reader.allow_crossing:
                inner = self.opened[stack[-1]]
                doc.problem(
                    f"{self.name} cell '{cell}' closes '{name}' while "
                    f"'{inner.markable_id}' (opened at line {inner.line}) is still "
                    "open inside it: crossing "
                    "markables (expected nested markables; --allow-boundary-crossing "
                    "reads crossing ones)",
                    "crossing",
                )
                return False
            stack.remove(name)
            markable_id = name
        else:
            doc.problem(
                f"{self.name} cell '{cell}' closes '{name}', which is not open "
                "(expected the MarkableID of an open markable before ')')",
                "unbalanced",
            )
            return False
        self.opened[markable_id].ends.append(position)
        return True

    def markables(self, doc: Doc, n_words: int) -> tuple[Markable, ...]:
        """The markables read, each closed (an unclosed one is a problem), with its Min."""
        built = []
        for entry in self.opened.values():
            markable_id, entity_id, line, min_text, element_of, zero, attributes, starts, ends = (
                entry
            )
            if len(ends) < len(starts):
                doc.problem(
                    f"{self.name} markable '{markable_id}' opened here is never "
                    "closed (expected a ')' on this or a later token of the document)",
                    "unclosed",
                    line=line,
                )
                continue
            parts = (
                ((starts[0], ends[0]),) if len(starts) == 1 else tuple(sorted(zip(starts, ends)))
            )
            min_span = None if min_text is None else self.min_span(doc, entry, n_words)
            # markable_id, entity_id, parts, line, min_span, head, element_of, zero,
            # attributes, zeros, head_zero
            built.append(
                new_markable(
                    (
                        markable_id,
                        entity_id,
                        parts,
                        line,
                        min_span,
                        None,
                        element_of,
                        zero,
                        attributes,
                        (),
                        0,
                    )
                )
            )
        return tuple(built)

    def min_span(self, doc: Doc, entry: Open, n_words: int) -> tuple[int, int] | None:
        text = entry.min_text
        if text is None:
            return None
        first, comma, last = text.partition(",")
        bounds = None
        if first.isdigit() and (not comma or last.isdigit()):
            low = int(first)
            high = int(last) if comma else low
            if 1 <= low <= high <= n_words:
                bounds = (low - 1, high - 1)
        if bounds is None and doc.reader.check_min:
            doc.problem(
                f"{self.name} markable '{entry.markable_id}' has Min={text} (expected "
                f"Min=I or Min=I,J with 1 ≤ I ≤ J ≤ {n_words}, the document's "
                "token numbers)",
                "bad_min",
                line=entry.line,
            )
        return bounds
