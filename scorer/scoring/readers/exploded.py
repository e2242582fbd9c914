"""Reader of the exploded CONLL-UA format, as the CODI-CRAC files write it.

One token per line, fields separated by any run of whitespace (the real files pad with spaces),
missing trailing fields read as ``_``, LF or CRLF line ends. Comment lines start with ``#``;
``# newdoc id = NAME`` starts a document (``# newdoc id=NAME`` and ``#newdoc id = NAME`` are
read the same way: the name is everything after the first ``=``, stripped; the reference
scorer's ``line[14:]`` would cut the unspaced spelling to a shifted name, spec Q2).

Three annotation columns are read: IDENTITY, BRIDGING and DISCOURSE_DEIXIS. Their positions
come from ``# global.columns`` when the file has it (so the UA v1.0 layout with a SPLIT column
works), else from the CODI-CRAC layout (0-based 10, 11, 12).

Bracket cells (IDENTITY and DISCOURSE_DEIXIS) write closings first, then openings:
``)``, ``))``, ``)(EntityID=1|MarkableID=m_2)``, ``(…(…``. A bare ``)`` closes the most recently
opened markable. A closing may also name its markable (``m_1)``, the UA 2.0 spelling): it must
then close the innermost open markable, unless crossing markables were allowed
(``--allow-boundary-crossing``), in which case it closes the named one.

Zeros (token lines whose ID contains a dot, e.g. ``5.1``) are not word tokens: a markable on a
zero line must open and close there; it sits at the position of the next word, with
``zero = k`` for the k-th zero since the previous word (see `scoring.model`).

Every problem is a `ScoringInputError` ``FILE:LINE: what is wrong (what was expected)`` with a
stable ``code`` and the document name. Pass ``collect=[]`` to gather problems instead of
raising the first one (the platform shows them all); the bad cell or line is then skipped.

Codes: ``undecodable``, ``empty_file``, ``wrong_format``, ``no_newdoc``, ``bad_newdoc``,
``tokens_before_newdoc``, ``duplicate_document``, ``too_few_columns``, ``too_many_columns``,
``bad_columns_header``, ``bad_cell``, ``close_after_open``, ``unbalanced``, ``crossing``,
``unclosed``, ``missing_entity_id``, ``missing_markable_id``, ``duplicate_markable_id``,
``zero_in_span``, ``bad_min``, ``bridging_incomplete``, ``bridging_without_parens``,
``line_too_long``, ``nul_character``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterator
from functools import partial
from typing import IO, Any, NamedTuple

from scoring.errors import ScoringInputError
from scoring.model import BridgingLink, Document, Markable, Sentence
from scoring.readers.text import count_newlines as _newlines
from scoring.readers.text import find_bytes as _find

FORMAT = "ua"

IDENTITY = "IDENTITY"
BRIDGING = "BRIDGING"
DISCOURSE_DEIXIS = "DISCOURSE_DEIXIS"
LAYERS = {"identity": IDENTITY, "bridging": BRIDGING, "discourse_deixis": DISCOURSE_DEIXIS}
"""Layer names (as callers pass them) and the column each is read from."""

MAX_LINE_CHARACTERS = 100_000
"""The longest line read (the real CODI-CRAC files stay under 700 characters); a longer one
is refused (``line_too_long``), as is a line with a NUL character (``nul_character``)."""

CODI_CRAC_COLUMNS = {IDENTITY: 10, BRIDGING: 11, DISCOURSE_DEIXIS: 12}
"""0-based column positions when a file has no ``# global.columns`` line."""

NEWDOC = re.compile(r"#\s*newdoc\b\s*(.*)$")
NEWDOC_ID = re.compile(r"id\s*=\s*(.*)$")
_SCORED = frozenset(("MarkableID", "EntityID", "Min", "ElementOf"))
_NAMED_CLOSINGS = re.compile(r"(?:[^()]*\))+")
_EXPECTED_MARKABLE = "'(EntityID=…|MarkableID=…)'; attribute names are case-sensitive"
_MARKABLE_ID = re.compile(r"MarkableID=([^|()\s]+)")


def sniff(text_head: str) -> bool:
    """True if the start of a file looks like exploded CONLL-UA."""
    for line in text_head.splitlines():
        stripped = line.strip()
        if stripped.startswith("# global.columns") and IDENTITY in stripped:
            return True
        if not stripped or stripped.startswith("#"):
            continue
        cells = stripped.split()
        return len(cells) >= 11 and (cells[10] == "_" or "(" in cells[10] or ")" in cells[10])
    return False


def other_format(text_head: str) -> str | None:
    """Name the format a file is in if it is clearly not exploded CONLL-UA, with its ``-f``."""
    for line in text_head.splitlines()[:200]:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#begin document") or stripped.startswith("#end document"):
            return "a CoNLL-2012 file; use -f conll"
        if stripped.startswith("# global.Entity"):
            return "a compact CONLL-U (CorefUD) file; use -f corefud"
        if stripped.startswith("<"):
            return "an SGML (MUC-7) file; use -f muc7"
        if stripped.startswith("# global.columns") and IDENTITY in stripped:
            return None  # declared exploded: a short first token line is the reader's to name
        if stripped.startswith("#"):
            continue
        cells = stripped.split("\t") if "\t" in stripped else stripped.split()
        if len(cells) == 10 and ("Entity=" in cells[9] or cells[9] == "_"):
            return "a compact CONLL-U (CorefUD) file with 10 columns; use -f corefud"
        return None
    return None


try:  # the rest of a document at once in C, where `make venv` built it (setup.py)
    from scoring.native._exploded import read_document as _native_read_document
except ImportError:  # pragma: no cover - a checkout without the build step
    _native_read_document = None
_read_document = _native_read_document
"""What `_Reader.lines` reads a document with after its first line, None: line by line
(tests set it to None to compare the two readings)."""
_NATIVE_COLUMNS = 64
"""`read_document` reads columns 0-63 (``MAX_CELLS`` in scoring/native/_exploded.c)."""

CHUNK = 1 << 18
"""Bytes read from the file at a time."""
_NEWDOC_HINT = re.compile(rb"#[ \t]*newdoc\b")
"""Where a ``# newdoc`` line (`_NEWDOC_LINE` at a line start) can match (the line start is
then checked); `_newdoc_hints` finds the same places."""
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _newdoc_hints(data: bytes, end: int) -> Iterator[int]:
    """Where `_NEWDOC_HINT` matches in ``data[:end]`` (the offset of its '#'), found from the
    literal ``newdoc`` (`find_bytes` skips text several bytes at a time; the expression
    tries every '#', and a file has a comment line per sentence)."""
    position = _find(data, b"newdoc", 0, end)
    while position >= 0:
        after = position + 6
        if after == end or data[after] not in _WORD:  # \b after "newdoc"
            hash_at = position - 1
            while hash_at >= 0 and data[hash_at] in b" \t":
                hash_at -= 1
            if hash_at >= 0 and data[hash_at] == 0x23:  # '#'
                yield hash_at
        position = _find(data, b"newdoc", after, end)


def _segments(
    handle: IO[bytes], lineno: int = 1, limit: int | None = None
) -> Iterator[tuple[bytes, int]]:
    """The bytes of a file from where ``handle`` stands (line ``lineno``), at most ``limit``
    of them, in parts cut before each ``# newdoc`` line, with their first line.

    Each byte is searched once and copied once into its part: a part longer than a chunk
    is gathered as a list of pieces (appending to one buffer would copy it again per chunk)."""
    pieces: list[bytes] = []  # the current part's whole lines read so far
    carry = b""  # an incomplete last line
    left = -1 if limit is None else limit
    while left:
        chunk = handle.read(CHUNK if left < 0 else min(CHUNK, left))
        if not chunk:
            break
        if left > 0:
            left -= len(chunk)
        data = carry + chunk if carry else chunk
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            carry = data
            continue
        previous = 0
        for hash_at in _newdoc_hints(data, cut):
            start = data.rfind(b"\n", 0, hash_at) + 1
            if (start > previous or pieces) and not data[start:hash_at].strip(b" \t"):
                pieces.append(data[previous:start])
                part = b"".join(pieces)
                yield part, lineno
                lineno += _newlines(part)
                pieces = []
                previous = start
        pieces.append(data[previous:cut])
        carry = data[cut:]
    pieces.append(carry)
    rest = b"".join(pieces)
    if rest:
        yield rest, lineno


class _Open(NamedTuple):
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


_new_open = partial(tuple.__new__, _Open)
"""An `_Open` from the tuple of all its fields, built in C (the named tuple's own ``__new__``
is a Python function, and one is built per markable)."""
_new_markable = partial(tuple.__new__, Markable)
"""The same for `Markable`: every one of its fields, in order."""


class _Layer:
    """Bracket state of one markable column within one document."""

    __slots__ = ("column", "name", "opened", "stack")

    def __init__(self, name: str, column: int) -> None:
        self.name = name
        self.column = column
        self.opened: dict[str, _Open] = {}
        self.stack: list[str] = []


def parse_attributes(text: str) -> dict[str, str]:
    """``EntityID=1|MarkableID=m|Min=3`` → dict. Parts without ``=`` are ignored."""
    return {
        key: value for key, eq, value in (part.partition("=") for part in text.split("|")) if eq
    }


class _Reader:
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
    ) -> None:
        self.path = str(path)
        self.part = part
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
        self.doc: _Doc | None = None
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
                segments = _segments(handle)
            else:  # the file's lines before its first document, then the part
                prefix, start, end, lineno = self.part
                if start > 0:
                    yield from self.lines(handle.read(prefix), 1)
                    handle.seek(start)
                segments = _segments(handle, lineno if start > 0 else 1, end - start)
            for segment, lineno in segments:
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
        if cut and _read_document is not None and not nul:
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
        doc = self.doc
        if doc is None or doc.fast is None or doc.line != lineno - 1 or doc.tokens:
            return False
        settings = doc.native_settings()
        if settings is None:
            return False
        read = _read_document(text, start, lineno, settings)
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
        are not UTF-8, ``nul``: whether one may hold a NUL character."""
        if nul or max(map(len, lines), default=0) > MAX_LINE_CHARACTERS:
            bad.update(self.unreadable(lines, lineno))
        doc = self.doc
        fast = doc is not None and doc.fast is not None and not bad
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
            if bad and lineno in bad:
                self.lineno = lineno
                self.problem(lineno, *bad[lineno])
                if bad[lineno][1] != "undecodable":
                    continue  # never read: a NUL or a line too long to be a token line
            if not cells:
                if doc is not None and (doc.rows or doc.comments):
                    doc.end_sentence()
                continue
            first = cells[0]
            if first[0] == "#":
                line = lines[lineno - first_line]
                if fast and "newdoc" not in line and "global." not in line and "#begin" not in line:
                    continue  # a comment `comment` would only keep, for the layout
                self.lineno = lineno
                self.any_line = True
                finished = self.comment(line.strip())
                if self.doc is not doc:
                    doc = self.doc
                    fast = doc is not None and doc.fast is not None and not bad
                    if doc is not None and doc.fast is not None:
                        low, high, first_column, second_column, third_column = doc.fast
                        append_token, append_line = doc.tokens.append, doc.token_lines.append
                        mirror = doc.mirror if doc.mirror is not None else high
                        fast_doc = doc  # what `fast` implies, in a name the checker can follow
                if finished is not None:
                    yield finished
                continue
            self.lineno = lineno
            if doc is None or doc.slow:
                self.any_line = True
                self.token(cells, lines[lineno - first_line])
                doc = self.doc
                fast = doc is not None and doc.fast is not None and not bad
                if doc is not None and doc.fast is not None:
                    low, high, first_column, second_column, third_column = doc.fast
                    append_token, append_line = doc.tokens.append, doc.token_lines.append
                    mirror = doc.mirror if doc.mirror is not None else high
                    fast_doc = doc  # what `fast` implies, in a name the checker can follow
                continue
            # a token line of a well-formed layout with something to read
            n = len(cells)
            if n < low or n > high:
                doc.token(cells)
                continue
            doc.shape(cells, lineno)
            if doc.guard is not None and cells[doc.guard] != "_" and doc.shifted(cells):
                continue
            if n < high and n > mirror and doc.unopened(cells):
                continue
            if "." in first:
                zero = doc.next_zero()
            else:
                zero = 0
            position = len(doc.tokens)
            for layer in doc.active:
                cell = cells[layer.column]
                if cell != "_":
                    doc.cell(layer, cell, position, zero)
            if doc.bridging_column is not None:
                cell = cells[doc.bridging_column]
                if cell != "_":
                    doc.bridging_cell(cell)
            if not zero:
                append_token(intern(cells[1]))
                append_line(lineno)

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
            self.doc = _Doc(self, name, self.lineno)
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
                raise _Abort
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
                    raise _Abort
            self.problem(
                self.lineno,
                "token line before the first '# newdoc id = NAME' "
                "line (expected every token inside a document)",
                "tokens_before_newdoc",
            )
            self.doc = _Doc(self, f"<tokens before line {self.lineno}>", self.lineno)
        self.doc.token(cells)

    def finish(self) -> Document | None:
        if self.doc is None:
            return None
        built = self.doc.build()
        self.doc = None
        return built


class _Abort(Exception):
    """Stop collecting: the file is in another format, further problems would be noise."""


class _Doc:
    """The document being read."""

    def __init__(self, reader: _Reader, name: str, line: int) -> None:
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
        # a line may stop after the columns a mode reads (trailing columns left out, as UA
        # scorer v1 reads them), but a column missing before the annotation columns would
        # shift every later cell: `shifted` refuses such lines instead of guessing
        annotation = [
            column
            for name, column in columns.items()
            if name in (IDENTITY, BRIDGING, DISCOURSE_DEIXIS) and column is not None
        ]
        self.needed = (
            max(
                [layer.column for layer in (self.identity, self.dd) if layer]
                + [self.bridging_column or 0, 1]
            )
            + 1
        )
        # the column just before the first annotation column: an annotation cell found there
        # means a column is missing on the line (`shifted`)
        self.guard = min(annotation) - 1 if annotation and min(annotation) > 1 else None
        # the first declared column after the annotation columns (REFERENCE, NOM_SEM: they
        # repeat the MarkableID of the IDENTITY markable they describe): on a line that
        # leaves out trailing columns, a markable named there that the line's IDENTITY
        # cell does not open means a column is missing before it (`unopened`)
        after = max(annotation) + 1 if annotation else None
        self.mirror = (
            after
            if reader.declared is not None and after is not None and after < reader.declared
            else None
        )
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
        scan = [layer.column for layer in self.active]
        if self.bridging_column is not None:
            scan.append(self.bridging_column)
        if self.guard is not None:
            scan.append(self.guard)  # never more than three: at most two layers are read
        scan = (scan + scan[:1] * 2)[:3] if scan else [0, 0, 0]
        # `_Reader.lines` reads a line at once as a plain word when it has between `needed`
        # and `most` cells, '_' in these three columns (repeated where fewer are read; ID is
        # never '_' and stands in where none is) and a number as its ID
        self.fast: tuple[int, ...] | None = None if self.slow else (self.needed, self.most, *scan)
        self.built: tuple[tuple[Markable, ...], tuple[Markable, ...]] | None = None
        """The identity and discourse-deixis markables, where `read_document` read them."""

    def native_settings(self) -> tuple[Any, ...] | None:
        """What `read_document` needs to read this document as `_Reader.read_lines` would
        (see scoring/native/_exploded.c), or None where a column is beyond what it reads."""
        columns = [layer.column if layer is not None else -1 for layer in (self.identity, self.dd)]
        columns += [
            -1 if self.bridging_column is None else self.bridging_column,
            -1 if self.guard is None else self.guard,
            -1 if self.mirror is None else self.mirror,
        ]
        if max(columns) >= _NATIVE_COLUMNS or self.fast is None:
            return None
        reader = self.reader
        return (*self.fast, *columns, reader.read_min, reader.check_min, Markable)

    @staticmethod
    def _layer(name: str, columns: dict[Any, Any], wanted: set[str] | None) -> _Layer | None:
        column = columns.get(name)
        if column is None or (wanted is not None and name not in wanted):
            return None
        return _Layer(name, column)

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
                self.cell(layer, cell, position, zero)
        if self.bridging_column is not None:
            cell = cells[self.bridging_column]
            if cell != "_":
                self.bridging_cell(cell)
        if not is_zero:
            self.tokens.append(sys.intern(cells[1]))
            self.token_lines.append(reader.lineno)

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
                    set(_MARKABLE_ID.findall(cells[column]))
                    if column is not None and column < count
                    else set()
                )
            for name in _MARKABLE_ID.findall(cell):
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

    def cell(self, layer: _Layer, cell: str, position: int, zero: int) -> None:
        stack = layer.stack
        if cell == ")" and stack and not zero:  # the commonest closing cell
            layer.opened[stack.pop()].ends.append(position)
            return
        if (
            cell[0] == "("
            and cell.count("(") == 1
            and cell.count(")") == (cell[-1] == ")")
            and (not zero or cell[-1] == ")")
        ):
            # the commonest opening cells, '(…)' and '(…': one markable, no closing before
            single = cell[-1] == ")"
            self.open(layer, cell[1:-1] if single else cell[1:], position, zero, single)
            return
        start = cell.find("(")
        prefix = cell if start < 0 else cell[:start]
        if prefix:
            if zero:
                self.problem(
                    f"{layer.name} cell '{cell}' closes a markable on a zero token "
                    "(expected markables on zeros to open and close there)",
                    "zero_in_span",
                )
                return
            if prefix.count(")") == len(prefix):
                for _ in range(len(prefix)):
                    if not self.close(layer, None, position, cell):
                        return
            elif _NAMED_CLOSINGS.fullmatch(prefix):
                for name in prefix.split(")")[:-1]:
                    if not self.close(layer, name.strip() or None, position, cell):
                        return
            else:
                self.problem(
                    f"{layer.name} cell '{cell}' starts with '{prefix}' (expected "
                    "closing brackets ')' before any '(', or '_')",
                    "bad_cell",
                )
                return
        if start < 0:
            return
        for piece in cell[start + 1 :].split("("):
            single = piece.endswith(")")
            body = piece[:-1] if single else piece
            if ")" in body:
                if body.endswith(")"):
                    self.problem(
                        f"{layer.name} cell '{cell}' has ')' after an opening (expected "
                        "closings first, e.g. ')(EntityID=…|MarkableID=…)')",
                        "close_after_open",
                    )
                else:
                    self.problem(
                        f"{layer.name} cell '{cell}' has ')' inside an opening "
                        f"(expected {_EXPECTED_MARKABLE})",
                        "bad_cell",
                    )
                return
            if zero and not single:
                self.problem(
                    f"{layer.name} cell '{cell}' opens a markable on a zero token "
                    "that does not close there (expected '(…)' on zeros)",
                    "zero_in_span",
                )
                return
            self.open(layer, body, position, zero, single)

    def open(self, layer: _Layer, body: str, position: int, zero: int, single: bool) -> None:
        attributes = {}
        for part in body.split("|"):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                self.problem(
                    f"{layer.name} markable '({body}' has the attribute '{part}', which "
                    f"is not NAME=VALUE (expected {_EXPECTED_MARKABLE})",
                    "bad_cell",
                )
                return
            attributes[key] = value
        markable_id = attributes.get("MarkableID")
        entity_id = attributes.get("EntityID")
        if not markable_id:
            self.problem(
                f"{layer.name} markable '({body}' has no MarkableID (expected "
                f"{_EXPECTED_MARKABLE})",
                "missing_markable_id",
            )
            return
        if not entity_id:
            self.problem(
                f"{layer.name} markable '{markable_id}' has no EntityID (expected "
                f"{_EXPECTED_MARKABLE})",
                "missing_entity_id",
            )
            return
        opened = layer.opened
        entry = opened.get(markable_id)
        if entry is None:
            reader = self.reader
            element_of = attributes.get("ElementOf")
            opened[markable_id] = _new_open(
                (
                    markable_id,
                    entity_id,
                    reader.lineno,
                    attributes.get("Min") if reader.read_min else None,
                    tuple(e for e in element_of.split(",") if e) if element_of else (),
                    zero,
                    tuple((k, v) for k, v in attributes.items() if k not in _SCORED)
                    if reader.layout
                    else (),
                    [position],
                    [position] if single else [],
                )
            )
        elif self.discontinuous_part(layer, entry, entity_id):
            entry.starts.append(position)
            if single:
                entry.ends.append(position)
        else:
            return
        if not single:
            layer.stack.append(markable_id)

    def discontinuous_part(self, layer: _Layer, existing: _Open, entity_id: str) -> bool:
        if not self.reader.discontinuous:
            self.problem(
                f"MarkableID '{existing.markable_id}' is used twice in the "
                f"{layer.name} column, first at line {existing.line} (expected "
                "unique MarkableIDs; the v2 options, e.g. -s, read a repeated "
                "MarkableID as one discontinuous markable)",
                "duplicate_markable_id",
            )
            return False
        if existing.entity_id != entity_id:
            self.problem(
                f"MarkableID '{existing.markable_id}' has EntityID={entity_id} here but "
                f"EntityID={existing.entity_id} at line {existing.line} (expected the "
                "parts of a discontinuous markable to share one EntityID)",
                "duplicate_markable_id",
            )
            return False
        if len(existing.ends) < len(existing.starts):
            self.problem(
                f"MarkableID '{existing.markable_id}' opens again before its part "
                f"from line {existing.line} is closed (expected the parts of a "
                "discontinuous markable one after another)",
                "duplicate_markable_id",
            )
            return False
        return True

    def close(self, layer: _Layer, name: str | None, position: int, cell: str) -> bool:
        stack = layer.stack
        if not stack:
            self.problem(
                f"{layer.name} cell '{cell}' closes a markable but none is open "
                "(expected as many ')' as open markables)",
                "unbalanced",
            )
            return False
        if name is None or name == stack[-1]:
            markable_id = stack.pop()
        elif name in stack:
            if not self.reader.allow_crossing:
                inner = layer.opened[stack[-1]]
                self.problem(
                    f"{layer.name} cell '{cell}' closes '{name}' while "
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
            self.problem(
                f"{layer.name} cell '{cell}' closes '{name}', which is not open "
                "(expected the MarkableID of an open markable before ')')",
                "unbalanced",
            )
            return False
        layer.opened[markable_id].ends.append(position)
        return True

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

    def markables(self, layer: _Layer | None) -> tuple[Markable, ...]:
        if layer is None:
            return ()
        built = []
        n_words = len(self.tokens)
        for entry in layer.opened.values():
            markable_id, entity_id, line, min_text, element_of, zero, attributes, starts, ends = (
                entry
            )
            if len(ends) < len(starts):
                self.problem(
                    f"{layer.name} markable '{markable_id}' opened here is never "
                    "closed (expected a ')' on this or a later token of the document)",
                    "unclosed",
                    line=line,
                )
                continue
            parts = (
                ((starts[0], ends[0]),) if len(starts) == 1 else tuple(sorted(zip(starts, ends)))
            )
            min_span = None if min_text is None else self.min_span(layer, entry, n_words)
            # markable_id, entity_id, parts, line, min_span, head, element_of, zero,
            # attributes, zeros, head_zero
            built.append(
                _new_markable(
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

    def min_span(self, layer: _Layer, entry: _Open, n_words: int) -> tuple[int, int] | None:
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
        if bounds is None and self.reader.check_min:
            self.problem(
                f"{layer.name} markable '{entry.markable_id}' has Min={text} (expected "
                f"Min=I or Min=I,J with 1 ≤ I ≤ J ≤ {n_words}, the document's "
                "token numbers)",
                "bad_min",
                line=entry.line,
            )
        return bounds


def iter_documents(
    path: str,
    *,
    collect: list[Any] | None = None,
    layers: Collection[str] | None = None,
    check_min: bool = False,
    read_min: bool = True,
    discontinuous: bool = False,
    allow_crossing: bool = False,
    layout: bool = True,
    part: tuple[int, int, int, int] | None = None,
) -> Iterator[Document]:
    """Yield the documents of an exploded CONLL-UA file one by one, reading it lazily.

    Parameters
    ----------
    collect : list or None
        None: raise the first problem. A list: append every problem and go on.
    layers : subset of {"identity", "bridging", "discourse_deixis"} or None
        The columns a scoring mode reads. Only these are parsed and checked, and a token line
        that lacks one of them is an error. None reads every column the file has, missing
        trailing columns as ``_``.
    check_min : bool
        Make a malformed ``Min`` (``1-2``) or one outside the document an error. Otherwise it
        reads as no Min (the reference scorers read Min only in MIN modes).
    read_min : bool
        False leaves every ``min_span`` None (exact matching never looks at Min).
    discontinuous : bool
        Read a MarkableID that opens again (same EntityID) as one more part of a discontinuous
        markable, as UA scorer v2 does. Otherwise a repeated MarkableID is an error.
    allow_crossing : bool
        Let a named closing (``m_1)``) close a markable that is not the innermost one.
    layout : bool
        Keep comments and raw rows in ``Document.sentences``, and the attributes scoring does
        not use (``SemType``, …) in ``Markable.attributes`` (for converters).
    part : (prefix, start, end, line) or None
        Read only the documents from byte ``start`` (line ``line``) to byte ``end``, as the
        whole file's reading reads them, after the file's first ``prefix`` bytes (its lines
        before the first document, e.g. ``# global.columns``). The offsets come from
        `scan` (``starts``); None reads the whole file.
    """
    reader = _Reader(
        path,
        collect=collect,
        layers=layers,
        check_min=check_min,
        discontinuous=discontinuous,
        allow_crossing=allow_crossing,
        layout=layout,
        read_min=read_min,
        part=part,
    )
    try:
        yield from reader.run()
    except _Abort:
        return


def read(path: str, *, collect: list[Any] | None = None, **settings: Any) -> list[Document]:
    """Read every document of an exploded CONLL-UA file (see `iter_documents`)."""
    return list(iter_documents(path, collect=collect, **settings))


class FileIndex(NamedTuple):
    """What one fast pass over a file's bytes finds (`scan`)."""

    names: list[tuple[str, int]]
    """``(name, line)`` of every ``# newdoc`` line, as the reader names them."""
    starts: list[tuple[int, int]]
    """``(byte offset, line)`` where each of those documents starts."""
    partable: bool
    """Whether the file reads in parts (`iter_documents`'s ``part``) exactly as whole: no
    ``newdoc`` outside a document's first line (a spelling only the reader would take for
    one) and no ``global.`` comment after the first document (a layout that changes midway)."""


SCAN_CHUNK = 1 << 16  # measured fastest of 64 KiB to 4 MiB
_NEWDOC_LINE = re.compile(rb"[ \t]*#[ \t]*(newdoc)\b[^\n]*")
_BOM_NEWDOC_LINE = re.compile(rb"\xef\xbb\xbf[ \t]*#[ \t]*(newdoc)\b[^\n]*")


def scan(path: str) -> FileIndex:
    """Find the documents of a file without parsing it: a search for the literal ``newdoc``,
    each hit checked to stand at the start of a comment line (the same rule `_segments`
    cuts by), so the cost is that of `bytes.find` over the file, not of a pattern tried at
    every byte. Uses the reader's name rule; a file the reader rejects may still scan."""
    index = FileIndex([], [], True)
    state: list[Any] = [1, True, False]  # line at the block's start, partable, a document seen
    offset = 0
    tail = b""
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(SCAN_CHUNK)
            data = tail + chunk
            if chunk:
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    tail = data
                    continue
                block, tail = data[:cut], data[cut:]
            else:
                block, tail = data, b""
            _scan_block(block, offset, state, index)
            offset += len(block)
            if not chunk:
                break
    return index._replace(partable=state[1])


def _scan_block(block: bytes, offset: int, state: list[Any], index: FileIndex) -> None:
    line, partable, seen = state
    counted = 0  # newlines of ``block`` before this position are in ``line``
    position = _find(block, b"newdoc")
    while position >= 0:
        start = block.rfind(b"\n", 0, position) + 1
        pattern = (
            _BOM_NEWDOC_LINE
            if offset + start == 0 and block[:3] == b"\xef\xbb\xbf"
            else _NEWDOC_LINE
        )
        match = pattern.match(block, start)
        if match is None or match.start(1) != position:
            partable = False  # a newdoc the reader may see and the cut may not (or neither)
            position = _find(block, b"newdoc", position + 6)
            continue
        line += _newlines(block, counted, start)
        counted = start
        if not seen:
            seen = True
            partable = partable and _find(block, b"global.", match.end()) < 0
        text = match.group(0).decode("utf-8", errors="replace").lstrip("\ufeff").strip()
        newdoc = NEWDOC.match(text)  # it does: the line pattern matched
        id_match = NEWDOC_ID.match(newdoc.group(1)) if newdoc else None
        index.names.append((id_match.group(1).strip() if id_match else "", line))
        index.starts.append((offset + start, line))
        position = _find(block, b"newdoc", match.end())
    if seen and partable and index.starts and index.starts[0][0] < offset:
        partable = _find(block, b"global.") < 0
    state[:] = [line + _newlines(block, counted), partable, seen]


def document_names(path: str) -> list[tuple[str, int]]:
    """``(name, line)`` of every ``# newdoc`` line (see `scan`)."""
    return scan(path).names


def document_offsets(path: str) -> tuple[list[tuple[int, int]], bool]:
    """``(byte offset, line)`` where each document starts, and whether the file reads in
    parts as whole (see `scan`)."""
    index = scan(path)
    return index.starts, index.partable
