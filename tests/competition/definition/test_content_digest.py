"""A key and a data file are compared by content: `content_digest` equals the SHA-256 of the
text with its line endings made \\n, the blanks at the end of each line and the blank lines
at the end of the text removed, whatever the chunks it is given."""

from __future__ import annotations

import hashlib
import random

import pytest

from competition.definition.keys import content_digest


def reference(data: bytes) -> str:
    lines = [line.rstrip(b" \t\r\f\v") for line in data.removeprefix(b"\xef\xbb\xbf").split(b"\n")]
    while lines and not lines[-1]:
        lines.pop()
    return hashlib.sha256(b"".join(line + b"\n" for line in lines)).hexdigest()


def chunked(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)] or [b""]


def samples() -> list[bytes]:
    rng = random.Random(7)
    fixed = [
        b"",
        b"\n\n",
        b"a",
        b"a\n",
        b"a  \r\n\r\n  \n",
        b"\xef\xbb\xbfa\n\nb \n",
        b"\n\na\n",
        b"x" * 300_000 + b"  \n\ny",
        b"a\n" + b" " * 200_000 + b"\nb",
    ]
    return fixed + [
        bytes(rng.choice(b"ab \t\r\n") for _ in range(rng.randint(0, 60))) for _ in range(200)
    ]


@pytest.mark.parametrize("size", [1, 2, 7, 1 << 20])
def test_the_digest_is_the_normalised_texts_in_any_chunks(size):
    for data in samples():
        assert content_digest(chunked(data, size)) == reference(data), data[:40]


def test_line_endings_and_trailing_blanks_do_not_count_but_words_do():
    text = b"1\tthe\t_\n2\tknight\t(1)\n\n"
    assert content_digest([text]) == content_digest([text.replace(b"\n", b" \r\n") + b"\r\n"])
    assert content_digest([text]) != content_digest([text.replace(b"knight", b"night")])
    assert content_digest([text]) != content_digest([b"\n" + text])
