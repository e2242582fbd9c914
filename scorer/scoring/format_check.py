"""A file in the other format, said in one line.

An upload to a CorefUD task that is a CONLL-UA file (or the reverse) would otherwise be read
by the expected format's reader and refused for its first line's columns ("1 tab-separated
columns (expected 10 …)"), or get the advice of a scorer option the uploader cannot pass.
`format_mismatch` recognises the file's own format first (`scoring.readers.detect_format`)
and names both: ``this is a CONLL-UA file; the phase expects CorefUD CoNLL-U``.
"""

from __future__ import annotations

from scoring.errors import ScoringInputError
from scoring.readers import detect_format, read_head, reader_module

FORMAT_WORDS = {
    "ua": "CONLL-UA",
    "corefud": "CorefUD CoNLL-U",
    "conll": "CoNLL-2012",
    "muc7": "MUC-7 SGML",
}
"""Each reader's format as participants call it."""


def format_mismatch(
    path: str, expected: str, *, expected_by: str = "the key"
) -> ScoringInputError | None:
    """The one-line refusal of a file that is clearly in another known format than
    ``expected`` (a `scoring.readers.FORMATS` name), or None: the file is in that format, or
    in none recognisably (then the reader names what is wrong, line by line). For a
    CONLL-UA file where CorefUD is expected, with ``expected_by="the phase"``:
    ``this is a CONLL-UA file; the phase expects CorefUD CoNLL-U``.
    """
    if expected not in FORMAT_WORDS:
        return None
    try:
        head = read_head(str(path))
    except ScoringInputError:
        return None  # unreadable: the reader says so
    # a file the expected reader recognises is never called another format (a CoNLL-U token
    # line whose FORM holds a space splits into as many words as a CONLL-UA line)
    own = getattr(reader_module(expected), "sniff", None)
    if own is not None and own(head):
        return None
    found = detect_format(str(path))
    if found is None or found == expected:
        return None
    return ScoringInputError(
        str(path),
        None,
        f"this is a {FORMAT_WORDS[found]} file; {expected_by} expects {FORMAT_WORDS[expected]}",
        code="wrong_format",
    )
