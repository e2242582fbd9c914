"""One pass over an exploded CONLL-UA file: its parts cut at ``# newdoc`` lines, each read
line by line, or after its first line at once by the C step `read_document` where it is built
and takes the document; the comment lines (``# newdoc``, ``# global.columns``) and the lines
that are not plain words (`Doc`) as they come. Every problem goes to `problem`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterator
from typing import Any

from scoring.errors import ScoringInputError
from scoring.model import Document
from scoring.readers.exploded.document import Doc
from scoring.readers.exploded.layout import (
    BRIDGING,
    CODI_CRAC_COLUMNS,
    DISCOURSE_DEIXIS,
    IDENTITY,
    LAYERS,
    MAX_LINE_CHARACTERS,
    NEWDOC,
    NEWDOC_ID,
    other_format,
)
from scoring.readers.exploded.segments import segments


class Reader:
    """One pass over one file; yields documents as they end."""

    def __init__(
        self,
        path: str,
        *,
        collect: list[Any] | None,
        layers: Collection[str] | None,
        check_min: bool,
        discontinuous: bool,
        allow_crossing: bool,
        layout: bool,
        read_min: bool = True,
        part: tuple[int, int, int, int] | None = None,
        native: Callable[..., Any] | None = None,
        chunk_size: int,
    ) -> None:
        self.path = str(path)
        self.part = part
        self.read_document = native  # the C step, or None: every line read here
        self.chunk_size = chunk_size
        self.collect = collect
        unknown = set(layers or ()) - set(LAYERS)
        if unknown:
            raise ValueError(f"unknown layers {sorted(unknown)}; valid: {sorted(LAYERS)}")
        self.layers = None if layers is None else {LAYERS[name] for name in layers}
        self.check_min = check_min
        self.read_min = read_min or check_min
        self.discontinuous = discontinuous
        self.allow_crossing = allow_crossing
        self.layout = layout
        self.columns: dict[str, int | None] = dict(CODI_CRAC_COLUMNS)
        self.declared: int | None = None  # number of columns in # global.columns
        self.declared_names: list[str] = []
        self.header: str | None = None
        self.names: set[str] = set()
        self.doc: Doc | None = None
        self.lineno = 0
        self.any_line = False

    # -- problems ---------------------------------------------------------------------------
    def problem(
        self, line: int | None, message: str, code: str, *, document: str | None = None
    ) -> None:
        if document is None and self.doc is not None:
            document = self.doc.name
        error = ScoringInputError(self.path, line, message, code=code, document=document)
        if self.collect is None:
            raise error
        self.collect.append(error)

    # -- the pass ---------------------------------------------------------------------------
    def run(self) -> Iterator[Document]:
        try:
            handle = open(self.path, "rb")
        except OSError as exc:
            raise ScoringInputError(
                self.path, None, f"cannot open the file ({exc.strerror})", code="unreadable"
            ) from None
        with handle:
            if self.part is None:
                parts = segments(handle, self.chunk_size)
            else:  # the file's lines before its first document, then the part
                prefix, start, end, lineno = self.part
                if start > 0:
                    yield from self.lines(handle.read(prefix), 1)
                    handle.seek(start)
                parts = segments(handle, self.chunk_size, lineno if start > 0 else 1, end - start)
            for segment, lineno in parts:
                yield from self.lines(segment, lineno)

        if not self.any_line:
            self.problem(
                1,
                "the file is empty (expected exploded CONLL-UA: a "
                "'# newdoc id = NAME' line and token lines)",
                "empty_file",
            )
            return
        if self.doc is None:
            self.problem(
                1,
                "no '# newdoc id = NAME' line (expected one before the first "
                "token line of each document)",
                "no_newdoc",
            )
            return
        finished = self.finish()
        if finished is not None:
            yield finished

    def lines(self, segment: bytes, lineno: int) -> Iterator[Document]:
        """Read the lines of ``segment`` (its first is line ``lineno``): a document's first
        line, then the rest of it at once in C where `read_document` is built and takes it,
        else line by line."""
        try:  # decoded at once; line by line only where a byte is not UTF-8
            text = segment.decode("utf-8")
        except UnicodeDecodeError:
            lines, bad = self.decoded(segment, lineno)
            yield from self.read_lines(lines, lineno, bad, b"\x00" in segment)
            return
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]  # a byte-order mark
        nul = b"\x00" in segment
        cut = text.find("\n") + 1
        if cut and self.read_document is not None and not nul:
            yield from self.read_lines([text[: cut - 1]], lineno, {}, False)
            if self.native(text, cut, lineno + 1):
                return
            text, lineno = text[cut:], lineno + 1
        lines = text.split("\n")
        if not lines[-1]:
            lines.pop()  # the segment ends with a line end
        yield from self.read_lines(lines, lineno, {}, nul)

    def native(self, text: str, start: int, lineno: int) -> bool:
        """Read the rest of the document begun on the line before ``lineno`` (``text`` from
        offset ``start``) with `read_document`; False where it leaves the document to
        `read_lines` (not plain, or a layout mode: nothing is read then)."""
        doc, read_document = self.doc, self.read_document
        if doc is None or doc.fast is None or doc.line != lineno - 1 or doc.tokens:
            return False
        settings = doc.native_settings()
        if settings is None or read_document is None:
            return False
        read = read_document(text, start, lineno, settings)
        if read is None:
            return False
        doc.tokens, doc.token_lines, identity, dd, bridging = read
        doc.built = (identity, dd)
        for self.lineno, cell in bridging:
            doc.bridging_cell(cell)
        return True

    def read_lines(
        self, lines: list[str], lineno: int, bad: dict[int, tuple[str, str]], nul: bool
    ) -> Iterator[Document]:
        """Read ``lines`` (the first is line ``lineno``) one by one; ``bad``: the lines that
        are not UTF-8, ``nul``: whether one may hold a NUL character. A plain word (`Doc.fast`)
        and a token line of such a document with something to read (`Doc.annotated`) are read
        here, every other line by `other_line`."""
        if nul or max(map(len, lines), default=0) > MAX_LINE_CHARACTERS:
            bad.update(self.unreadable(lines, lineno))
        doc = self.doc
        plain = doc is not None and doc.fast is not None  # read without its layout
        fast = plain and not bad
        if doc is not None and doc.fast is not None:
            low, high, first_column, second_column, third_column = doc.fast
            append_token, append_line = doc.tokens.append, doc.token_lines.append
            mirror = doc.mirror if doc.mirror is not None else high
            fast_doc = doc  # what `fast` implies, in a name the checker can follow
        intern = sys.intern
        first_line = lineno
        for lineno, cells in enumerate(map(str.split, lines), lineno):  # noqa: B020 (counts on)
            # the fast path: a word token line with nothing in the columns read (nor, when
            # it leaves out trailing columns, in the first column after them: `unopened`)
            if (
                fast
                and low <= (n := len(cells)) <= high
                and cells[first_column] == "_"
                and cells[second_column] == "_"
                and cells[third_column] == "_"
                and cells[0].isdigit()
                and (n >= high or n <= mirror or cells[mirror] == "_")
            ):
                if n != high:
                    if fast_doc.first_short is None:
                        fast_doc.first_short = (lineno, n)
                elif cells[-1] == "_" and fast_doc.first_padded is None:
                    fast_doc.first_padded = lineno
                append_token(intern(cells[1]))
                append_line(lineno)
                continue
            if plain and cells and cells[0][0] != "#" and lineno not in bad:
                self.lineno = lineno  # a token line with something to read
                fast_doc.annotated(cells, lineno)
                continue
            finished = self.other_line(cells, lines[lineno - first_line], lineno, fast, bad)
            if self.doc is not doc:
                doc = self.doc
                plain = doc is not None and doc.fast is not None
                fast = plain and not bad
                if doc is not None and doc.fast is not None:
                    low, high, first_column, second_column, third_column = doc.fast
                    append_token, append_line = doc.tokens.append, doc.token_lines.append
                    mirror = doc.mirror if doc.mirror is not None else high
                    fast_doc = doc
            if finished is not None:
                yield finished

    def other_line(
        self, cells: list[str], line: str, lineno: int, fast: bool, bad: dict[int, tuple[str, str]]
    ) -> Document | None:
        """Read a line that is not a plain word (``cells``: its fields): a bad line (reported),
        a blank line, a comment, or a token line with something to read; the document that a
        ``# newdoc`` line finishes, if any."""
        if bad and lineno in bad:
            self.lineno = lineno
            self.problem(lineno, *bad[lineno])
            if bad[lineno][1] != "undecodable":
                return None  # never read: a NUL or a line too long to be a token line
        doc = self.doc
        if not cells:
            if doc is not None and (doc.rows or doc.comments):
                doc.end_sentence()
            return None
        if cells[0][0] == "#":
            if fast and "newdoc" not in line and "global." not in line and "#begin" not in line:
                return None  # a comment `comment` would only keep, for the layout
            self.lineno = lineno
            self.any_line = True
            return self.comment(line.strip())
        self.lineno = lineno
        if doc is None or doc.slow:
            self.any_line = True
            self.token(cells, line)
        else:  # a token line of a well-formed layout with something to read
            doc.annotated(cells, lineno)
        return None

    @staticmethod
    def decoded(segment: bytes, lineno: int) -> tuple[list[str], dict[int, tuple[str, str]]]:
        """The lines of a segment that is not all UTF-8 (bad bytes replaced), and what is
        wrong on each bad line, by line number (reported when the line is reached)."""
        pieces = segment.split(b"\n")
        if not pieces[-1]:
            pieces.pop()
        lines, bad = [], {}
        for lineno, raw in enumerate(pieces, lineno):  # noqa: B020 (counts on from the segment's line)
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a byte-order mark
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad[lineno] = (
                    f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1} is not "
                    "UTF-8 (expected UTF-8 text)",
                    "undecodable",
                )
                line = raw.decode("utf-8", errors="replace")
            lines.append(line)
        return lines, bad

    @staticmethod
    def unreadable(lines: list[str], lineno: int) -> dict[int, tuple[str, str]]:
        """Lines that hold a NUL character or are longer than `MAX_LINE_CHARACTERS`, by line
        number, with what is wrong: refused, never read."""
        found = {}
        for number, line in enumerate(lines, lineno):
            if len(line) > MAX_LINE_CHARACTERS:
                found[number] = (
                    f"the line has {len(line):,} characters (expected at most "
                    f"{MAX_LINE_CHARACTERS:,}: one token and its annotation)",
                    "line_too_long",
                )
            elif "\x00" in line:
                found[number] = (
                    f"a NUL character (byte 0x00) at column {line.index(chr(0)) + 1} "
                    "(expected text without NUL characters)",
                    "nul_character",
                )
        return found

    def comment(self, text: str) -> Document | None:
        match = NEWDOC.match(text) if "newdoc" in text else None
        if match is not None:
            finished = self.finish() if self.doc is not None else None
            id_match = NEWDOC_ID.match(match.group(1))
            name = id_match.group(1).strip() if id_match else ""
            if not name:
                self.problem(
                    self.lineno,
                    f"'{text}' names no document (expected '# newdoc id = NAME')",
                    "bad_newdoc",
                )
                name = f"<unnamed document at line {self.lineno}>"
            elif name in self.names:
                self.problem(
                    self.lineno,
                    f"document '{name}' appears twice in the file "
                    "(expected unique '# newdoc id' names)",
                    "duplicate_document",
                    document=name,
                )
            self.names.add(name)
            self.doc = Doc(self, name, self.lineno)
            self.doc.comments.append(text)
            return finished
        if text.startswith("# global.columns"):
            self.read_header(text)
            return None
        if text.startswith("#begin document") or text.startswith("# global.Entity"):
            kind = other_format(text)
            self.problem(
                self.lineno, f"this looks like {kind} (expected exploded CONLL-UA)", "wrong_format"
            )
            if self.collect is not None:
                raise Abort
        if self.doc is not None:
            self.doc.comments.append(text)
        return None

    def read_header(self, text: str) -> None:
        self.header = text
        _, _, value = text.partition("=")
        names = value.split()
        self.declared = len(names)
        self.declared_names = names
        if IDENTITY not in names:
            self.problem(
                self.lineno,
                "'# global.columns' has no IDENTITY column (expected "
                "e.g. '# global.columns = ID FORM … IDENTITY BRIDGING "
                "DISCOURSE_DEIXIS')",
                "bad_columns_header",
            )
        self.columns = {
            name: names.index(name) if name in names else None
            for name in (IDENTITY, BRIDGING, DISCOURSE_DEIXIS)
        }
        needed = self.layers if self.layers is not None else ()
        for name in needed:
            if self.columns[name] is None:
                self.problem(
                    self.lineno,
                    f"'# global.columns' has no {name} column, which "
                    "this scoring mode reads (expected it among the column names)",
                    "bad_columns_header",
                )

    def token(self, cells: list[str], line: str) -> None:
        if self.doc is None:
            kind = other_format(line)
            if kind is not None:
                self.problem(
                    self.lineno,
                    f"this looks like {kind} (expected exploded CONLL-UA)",
                    "wrong_format",
                )
                if self.collect is not None:
                    raise Abort
            self.problem(
                self.lineno,
                "token line before the first '# newdoc id = NAME' "
                "line (expected every token inside a document)",
                "tokens_before_newdoc",
            )
            self.doc = Doc(self, f"<tokens before line {self.lineno}>", self.lineno)
        self.doc.token(cells)

    def finish(self) -> Document | None:
        if self.doc is None:
            return None
        built = self.doc.build()
        self.doc = None
        return built


class Abort(Exception):
    """Stop collecting: the file is in another format, further problems would be noise."""
