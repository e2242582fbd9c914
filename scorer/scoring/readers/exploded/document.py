"""The exploded CONLL-UA document being read: its tokens, sentences and bridging links, the
geometry of its token lines (the columns read, and those that tell a line that lost a column),
and the `Document` built at its end. Its markable columns' brackets are `cells.Layer`'s."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from scoring.model import BridgingLink, Document, Markable, Sentence
from scoring.readers.exploded.cells import Layer
from scoring.readers.exploded.layout import (
    BRIDGING,
    DISCOURSE_DEIXIS,
    FORMAT,
    IDENTITY,
    MARKABLE_ID,
    NATIVE_COLUMNS,
    parse_attributes,
)

if TYPE_CHECKING:
    from scoring.readers.exploded.reader import Reader


class Doc:
    """The document being read."""

    def __init__(self, reader: Reader, name: str, line: int) -> None:
        self.reader = reader
        self.name = name
        self.line = line
        self.tokens: list[str] = []
        self.token_lines: list[int] = []
        self.zeros = 0  # zeros read at position ``zeros_at`` (before the word there)
        self.zeros_at = -1
        self.sentences: list[Sentence] = []
        self.comments: list[str] = []
        self.rows: list[tuple[str, ...]] = []
        wanted = reader.layers
        columns = reader.columns
        self.identity = self._layer(IDENTITY, columns, wanted)
        self.dd = self._layer(DISCOURSE_DEIXIS, columns, wanted)
        column = columns.get(BRIDGING)
        self.bridging_column = (
            column if column is not None and (wanted is None or BRIDGING in wanted) else None
        )
        self.bridging: list[BridgingLink] = []
        self.needed, self.guard, self.mirror = self._bounds(columns, reader.declared)
        self.identity_column = columns.get(IDENTITY)
        # the first line that leaves out trailing columns (line, columns) and the first that
        # writes them all with '_' in the last: a document does one or the other, so both
        # means a line lost a cell (`check_shape`)
        self.first_short: tuple[int, int] | None = None
        self.first_padded: int | None = None
        self.strict = wanted is not None
        self.active = [layer for layer in (self.identity, self.dd) if layer is not None]
        self.most = reader.declared if reader.declared is not None else 1 << 30
        self.slow = reader.layout  # keep raw rows: every line takes `token`
        # `Reader.lines` reads a line at once as a plain word when it has between `needed`
        # and `most` cells, '_' in the three `plain_columns` and a number as its ID
        self.fast: tuple[int, ...] | None = (
            None if self.slow else (self.needed, self.most, *self.plain_columns())
        )
        self.built: tuple[tuple[Markable, ...], tuple[Markable, ...]] | None = None
        """The identity and discourse-deixis markables, where `read_document` read them."""

    def _bounds(
        self, columns: dict[str, int | None], declared: int | None
    ) -> tuple[int, int | None, int | None]:
        """The columns a token line needs (up to the last one read), its guard and its
        mirror (the columns that tell a line that lost a column: `shifted`, `unopened`)."""
        # a line may stop after the columns a mode reads (trailing columns left out, as UA
        # scorer v1 reads them), but a column missing before the annotation columns would
        # shift every later cell: `shifted` refuses such lines instead of guessing
        annotation = [
            column
            for name, column in columns.items()
            if name in (IDENTITY, BRIDGING, DISCOURSE_DEIXIS) and column is not None
        ]
        needed = (
            max(
                [layer.column for layer in (self.identity, self.dd) if layer]
                + [self.bridging_column or 0, 1]
            )
            + 1
        )
        # the column just before the first annotation column: an annotation cell found there
        # means a column is missing on the line (`shifted`)
        guard = min(annotation) - 1 if annotation and min(annotation) > 1 else None
        # the first declared column after the annotation columns (REFERENCE, NOM_SEM: they
        # repeat the MarkableID of the IDENTITY markable they describe): on a line that
        # leaves out trailing columns, a markable named there that the line's IDENTITY
        # cell does not open means a column is missing before it (`unopened`)
        after = max(annotation) + 1 if annotation else None
        mirror = after if declared is not None and after is not None and after < declared else None
        return needed, guard, mirror

    def plain_columns(self) -> list[int]:
        """The three columns a plain word has '_' in: those read and the guard (repeated
        where fewer are read; ID is never '_' and stands in where none is)."""
        scan = [layer.column for layer in self.active]
        if self.bridging_column is not None:
            scan.append(self.bridging_column)
        if self.guard is not None:
            scan.append(self.guard)  # never more than three: at most two layers are read
        return (scan + scan[:1] * 2)[:3] if scan else [0, 0, 0]

    def native_settings(self) -> tuple[Any, ...] | None:
        """What `read_document` needs to read this document as `Reader.read_lines` would
        (see scoring/native/_exploded.c), or None where a column is beyond what it reads."""
        columns = [layer.column if layer is not None else -1 for layer in (self.identity, self.dd)]
        columns += [
            -1 if self.bridging_column is None else self.bridging_column,
            -1 if self.guard is None else self.guard,
            -1 if self.mirror is None else self.mirror,
        ]
        if max(columns) >= NATIVE_COLUMNS or self.fast is None:
            return None
        reader = self.reader
        return (*self.fast, *columns, reader.read_min, reader.check_min, Markable)

    @staticmethod
    def _layer(name: str, columns: dict[Any, Any], wanted: set[str] | None) -> Layer | None:
        column = columns.get(name)
        if column is None or (wanted is not None and name not in wanted):
            return None
        return Layer(name, column)

    def problem(self, message: str, code: str, line: int | None = None) -> None:
        self.reader.problem(
            self.reader.lineno if line is None else line, f"document '{self.name}': {message}", code
        )

    def end_sentence(self) -> None:
        if self.rows or self.comments:
            if self.reader.layout:
                self.sentences.append(Sentence(tuple(self.comments), tuple(self.rows)))
            self.comments = []
            self.rows = []

    # -- token lines ------------------------------------------------------------------------
    def token(self, cells: list[str]) -> None:
        reader = self.reader
        count = len(cells)
        if reader.layout:
            self.rows.append(tuple(cells))
        self.shape(cells, reader.lineno)
        if count < self.needed:
            if count < 2 or self.strict:
                missing = self._missing_column(count)
                self.problem(
                    f"the token line has {count} column{'s' if count != 1 else ''}; "
                    f"{missing} (expected at least {self.needed} whitespace-separated "
                    "columns, '_' for an empty one)",
                    "too_few_columns",
                )
                return
            cells = cells + ["_"] * (self.needed - count)
        elif reader.declared is not None and count > reader.declared:
            self.problem(
                f"the token line has {count} columns but '# global.columns' declares "
                f"{reader.declared} (expected no spaces inside a field)",
                "too_many_columns",
            )
            return
        if self.shifted(cells) or self.unopened(cells):
            return
        is_zero = "." in cells[0]
        position, zero = len(self.tokens), self.next_zero() if is_zero else 0
        for layer in self.active:
            cell = cells[layer.column]
            if cell != "_":
                layer.cell(self, cell, position, zero)
        if self.bridging_column is not None:
            cell = cells[self.bridging_column]
            if cell != "_":
                self.bridging_cell(cell)
        if not is_zero:
            self.tokens.append(sys.intern(cells[1]))
            self.token_lines.append(reader.lineno)

    def annotated(self, cells: list[str], lineno: int) -> None:
        """A token line of a document read without its layout that is not a plain word
        (`Reader.read_lines` takes those at once): something in a column read, a shape to
        note, or too few or too many columns."""
        n, high = len(cells), self.most  # `fast` reads lines of `needed` to `most` cells
        if n < self.needed or n > high:
            self.token(cells)
            return
        self.shape(cells, lineno)
        guard, mirror = self.guard, self.mirror
        if guard is not None and cells[guard] != "_" and self.shifted(cells):
            return
        if n < high and n > (high if mirror is None else mirror) and self.unopened(cells):
            return
        zero = self.next_zero() if "." in cells[0] else 0
        position = len(self.tokens)
        for layer in self.active:
            cell = cells[layer.column]
            if cell != "_":
                layer.cell(self, cell, position, zero)
        if self.bridging_column is not None:
            cell = cells[self.bridging_column]
            if cell != "_":
                self.bridging_cell(cell)
        if not zero:
            self.tokens.append(sys.intern(cells[1]))
            self.token_lines.append(lineno)

    def shifted(self, cells: list[str]) -> bool:
        """Whether the line has an annotation cell one column early (a column is missing
        before the annotation columns, so every later cell would be read in the wrong
        column); reported as ``too_few_columns``."""
        if self.guard is None or self.guard >= len(cells):
            return False
        cell = cells[self.guard]
        if cell == "_" or not (
            cell[0] == "(" or cell.startswith(")(") or cell.count(")") == len(cell)
        ):
            return False
        expected = self.reader.declared
        self.problem(
            f"column {self.guard + 1} holds '{cell[:40]}', an annotation cell: a column "
            f"is missing on this line, which has {len(cells)} columns (expected "
            + (
                f"the {expected} columns of '# global.columns'"
                if expected is not None
                else "every column up to the annotation"
            )
            + ", '_' for an empty one)",
            "too_few_columns",
        )
        return True

    def unopened(self, cells: list[str]) -> bool:
        """Whether the line leaves out trailing columns and a column after the annotation
        columns names a markable that its IDENTITY cell does not open: REFERENCE and
        NOM_SEM repeat the MarkableID of the IDENTITY markable opened on their line, so
        such a cell has moved one column left: a column is missing before it (an IDENTITY
        cell deleted, say, whose markable would otherwise vanish silently). Reported as
        ``too_few_columns``."""
        mirror, count = self.mirror, len(cells)
        if mirror is None or count >= self.most or count <= mirror:
            return False
        opened = None
        for index in range(mirror, count):
            cell = cells[index]
            if cell == "_" or "MarkableID=" not in cell:
                continue
            if opened is None:
                column = self.identity_column
                opened = (
                    set(MARKABLE_ID.findall(cells[column]))
                    if column is not None and column < count
                    else set()
                )
            for name in MARKABLE_ID.findall(cell):
                if name in opened:
                    continue
                reader = self.reader
                label = (
                    f" ({reader.declared_names[index]})"
                    if index < len(reader.declared_names)
                    else ""
                )
                self.problem(
                    f"column {index + 1}{label} holds '{cell[:40]}', which describes "
                    f"the markable '{name}', but the IDENTITY cell of this line does "
                    f"not open it: a column is missing on this line, which has "
                    f"{count} columns (expected the {reader.declared} columns of "
                    "'# global.columns', '_' for an empty one)",
                    "too_few_columns",
                )
                return True
        return False

    def next_zero(self) -> int:
        """The rank of a zero read now among the zeros before the next word."""
        position = len(self.tokens)
        if self.zeros_at != position:
            self.zeros_at = position
            self.zeros = 0
        self.zeros += 1
        return self.zeros

    def _missing_column(self, count: int) -> str:
        if count < 2:
            return "the FORM column is missing"
        columns = [(layer.column, layer.name) for layer in (self.identity, self.dd) if layer]
        if self.bridging_column is not None:
            columns.append((self.bridging_column, BRIDGING))
        names = [name for column, name in sorted(columns) if column >= count]
        return f"the {', '.join(names)} column{'s are' if len(names) > 1 else ' is'} missing"

    def bridging_cell(self, cell: str) -> None:
        start = cell.find("(")
        if start < 0:
            if cell.count(")") != len(cell):
                self.problem(
                    f"BRIDGING cell '{cell}' has no '(' (expected "
                    "'(MarkableID=…|Rel=…|MentionAnchor=…)', ')' or '_')",
                    "bridging_without_parens",
                )
            return
        for piece in cell[start + 1 :].split("("):
            attributes = parse_attributes(piece.rstrip(")"))
            anaphor = attributes.get("MarkableID")
            anchor = attributes.get("MentionAnchor")
            if not anaphor or not anchor:
                missing = "MarkableID" if not anaphor else "MentionAnchor"
                self.problem(
                    f"bridging annotation '({piece}' has no {missing} (expected "
                    "'(MarkableID=ANAPHOR|Rel=…|MentionAnchor=ANCHOR)')",
                    "bridging_incomplete",
                )
                continue
            self.bridging.append(
                BridgingLink(anaphor, anchor, attributes.get("Rel", ""), self.reader.lineno)
            )

    # -- the end of the document ------------------------------------------------------------
    def shape(self, cells: list[str], line: int) -> None:
        """Note a token line's number of columns for `check_shape`."""
        count = len(cells)
        if count < self.most:
            if self.first_short is None:
                self.first_short = (line, count)
        elif count == self.most and cells[-1] == "_" and self.first_padded is None:
            self.first_padded = line

    def check_shape(self) -> None:
        """A document that writes every declared column, '_' for an empty one, on one line
        and leaves out trailing columns on another has lost a cell on the short line: the
        real files leave out an empty last column on every line or on none, and a line
        that lost its IDENTITY cell (its markable gone, every later cell moved left) looks
        like one that left out an empty last column. Reported as ``too_few_columns`` at the
        first short line."""
        if self.first_short is None or self.first_padded is None:
            return
        line, count = self.first_short
        declared = self.reader.declared
        self.problem(
            f"the token line has {count} columns, but this document writes all "
            f"{declared} columns of '# global.columns' on other lines, '_' for an "
            f"empty one (line {self.first_padded}): a column is missing on this "
            f"line (expected {declared} columns here too)",
            "too_few_columns",
            line=line,
        )

    def build(self) -> Document:
        self.end_sentence()
        self.check_shape()
        reader = self.reader
        metadata = {"format": FORMAT}
        if reader.header is not None:
            metadata["global.columns"] = reader.header
        return Document(
            name=self.name,
            path=reader.path,
            line=self.line,
            tokens=tuple(self.tokens),
            identity=self.markables(self.identity) if self.built is None else self.built[0],
            discourse_deixis=self.markables(self.dd) if self.built is None else self.built[1],
            bridging=tuple(self.bridging),
            token_lines=tuple(self.token_lines),
            sentences=tuple(self.sentences),
            metadata=metadata,
        )

    def markables(self, layer: Layer | None) -> tuple[Markable, ...]:
        return () if layer is None else layer.markables(self, len(self.tokens))
