"""File readers: one module per format, each ``read(path) -> list[Document]`` and
``sniff(text_head) -> bool``.

| format name (``-f``) | module | files |
|---|---|---|
| ``ua`` | `scoring.readers.exploded` | exploded CONLL-UA (CODI-CRAC) |
| ``corefud`` | `scoring.readers.compact` | compact CONLL-U, ``Entity=`` in MISC (CorefUD, GUM) |
| ``conll`` | `scoring.readers.conll2012` | CoNLL-2012 ``#begin document`` files |
| ``muc7`` | `scoring.readers.muc7` | MUC-7 SGML ``<COREF>`` files |

Modules are imported on first use, so one broken or missing reader never stops the others.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from scoring.errors import ScoringInputError

FORMATS = {"ua": "exploded", "corefud": "compact", "conll": "conll2012", "muc7": "muc7"}
"""``-f`` name → module name under `scoring.readers`, in the order `detect_format` tries them."""

FORMAT_NAMES = {
    "ua": "exploded CONLL-UA",
    "corefud": "compact CONLL-U (CorefUD)",
    "conll": "CoNLL-2012",
    "muc7": "MUC-7 SGML",
}

HEAD_BYTES = 1 << 16


def reader_module(format: str) -> ModuleType:
    """The reader module of a ``-f`` format name."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}; valid: {', '.join(FORMATS)}")
    return importlib.import_module(f"scoring.readers.{FORMATS[format]}")


def read_head(path: str) -> str:
    """The first 64 KiB of a file as text (undecodable bytes replaced), for sniffing."""
    try:
        with open(path, "rb") as handle:
            return handle.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ScoringInputError(
            str(path), None, f"cannot open the file ({exc.strerror})", code="unreadable"
        ) from None


def detect_format(path: str) -> str | None:
    """The first format whose ``sniff`` accepts the file's head, or None."""
    head = read_head(path)
    for name in FORMATS:
        try:
            module = reader_module(name)
        except ImportError:
            continue
        sniff = getattr(module, "sniff", None)
        if sniff is not None and sniff(head):
            return name
    return None
