"""The exploded CONLL-UA format's names: its annotation layers and their default columns, the
limits of a line, the spellings of ``# newdoc`` and of a markable, and how a file's first lines
tell it from the other formats (`sniff`, `other_format`)."""

from __future__ import annotations

import re

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
SCORED = frozenset(("MarkableID", "EntityID", "Min", "ElementOf"))
NAMED_CLOSINGS = re.compile(r"(?:[^()]*\))+")
EXPECTED_MARKABLE = "'(EntityID=…|MarkableID=…)'; attribute names are case-sensitive"
MARKABLE_ID = re.compile(r"MarkableID=([^|()\s]+)")


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


NATIVE_COLUMNS = 64
"""`read_document` reads columns 0-63 (``MAX_CELLS`` in scoring/native/_exploded.c)."""


def parse_attributes(text: str) -> dict[str, str]:
    """``EntityID=1|MarkableID=m|Min=3`` → dict. Parts without ``=`` are ignored."""
    return {
        key: value for key, eq, value in (part.partition("=") for part in text.split("|")) if eq
    }
