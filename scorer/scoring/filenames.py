"""Which dataset (sub-corpus) a response file stands for: by its name, the one rule the
server's upload checks and the ``codicrac`` command line both apply, so a name the web accepts
is a name the command line accepts; and, where the name says nothing, by the documents it
holds (its ``# newdoc id`` lines against each dataset's document names). No Django here (the
client imports it).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

COREFUD_STEM = re.compile(r"(.+)-corefud-(?:train|dev|test|minidev|minitest)")
"""The stem of a CorefUD release's file name: ``<dataset>-corefud-<split>`` (the "mini"
splits of CRAC 2026 included)."""


SEPARATORS = "._-"


def subcorpus_for_name(
    name: str, subcorpora: Mapping[str, str], file_names: Mapping[str, str] | None = None
) -> str | None:
    """The slug of the sub-corpus a file name stands for, or None (no match, or more than one
    equally good).

    ``subcorpora`` maps slug → display name; ``file_names`` slug → the name participants are
    told to upload (a dataset's ``file:``, e.g. ``cs_pcedt-corefud-test.conllu``), matched
    first, ignoring case. Otherwise, ignoring case and folders, a name matches when its stem
    (the part before the first dot) equals a slug or a name (``LIGHT.CONLLUA``,
    ``light.conllua``, ``light``), when a CorefUD release's ``<dataset>-corefud-<split>``
    stem names the dataset, or when the stem starts with a slug or a name followed by ``_``,
    ``-`` or ``.``, as the distributed files are named (``light_test.CONLLUA``,
    ``AMI_test_partial.ES2004a.CONLLUA``); the longest such start wins, a tie matches nothing.
    """
    base = PurePosixPath(name).name.strip().lower()
    for slug, expected in (file_names or {}).items():
        if expected and base == expected.strip().lower():
            return slug
    stem = base.split(".", 1)[0]
    candidates = {stem}
    if (match := COREFUD_STEM.fullmatch(stem)) is not None:
        candidates.add(match.group(1))
    exact = [
        slug for slug, display in subcorpora.items() if candidates & {slug.lower(), display.lower()}
    ]
    if len(exact) == 1:
        return exact[0]
    if exact:
        return None
    best: dict[str, int] = {}
    for slug, display in subcorpora.items():
        for label in {slug.lower(), display.lower()}:
            if label and base.startswith(label) and base[len(label) :][:1] in tuple(SEPARATORS):
                best[slug] = max(best.get(slug, 0), len(label))
    if not best:
        return None
    longest = max(best.values())
    winners = [slug for slug, length in best.items() if length == longest]
    return winners[0] if len(winners) == 1 else None


def closest_subcorpus(name: str, subcorpora: Mapping[str, str]) -> str | None:
    """The display name of the sub-corpus an unmatched file name most resembles (a typo, a
    name in another spelling), or None."""
    stem = PurePosixPath(name).name.lower().split(".", 1)[0]
    labels = {display.lower(): display for display in subcorpora.values()}
    labels.update({slug.lower(): subcorpora[slug] for slug in subcorpora})
    close = difflib.get_close_matches(stem, list(labels), n=1, cutoff=0.6)
    return labels[close[0]] if close else None


# --- by content: a file whose name says nothing is known by its documents ---------------------

NEWDOC = re.compile(rb"^[ \t]*#[ \t]*newdoc[ \t]+id[ \t]*=[ \t]*(\S[^\r\n]*?)[ \t]*\r?$", re.M)


SENT_ID = re.compile(rb"^[ \t]*#[ \t]*sent_id[ \t]*=[ \t]*(\S[^\r\n]*?)[ \t]*\r?$", re.M)


def _comment_values(chunks: Iterable[bytes], pattern: re.Pattern[bytes]) -> list[str]:
    found: list[str] = []
    carry = b""
    for chunk in chunks:
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        body, carry = data[:cut], data[cut:]
        found += [m.decode("utf-8", "replace") for m in pattern.findall(body)]
    if carry:
        found += [m.decode("utf-8", "replace") for m in pattern.findall(carry)]
    return found


def newdoc_ids(chunks: Iterable[bytes]) -> list[str]:
    """The ``# newdoc id`` of each document of a file read as byte chunks (both formats mark
    documents so), in order; undecodable bytes are replaced."""
    return _comment_values(chunks, NEWDOC)


def file_newdoc_ids(path: str | Path, chunk_size: int = 1 << 20) -> list[str]:
    with open(path, "rb") as handle:
        return newdoc_ids(iter(lambda: handle.read(chunk_size), b""))


def file_sent_ids(path: str | Path, chunk_size: int = 1 << 20) -> list[str]:
    """The ``# sent_id`` of each sentence of a file (CoNLL-U files carry them)."""
    with open(path, "rb") as handle:
        return _comment_values(iter(lambda: handle.read(chunk_size), b""), SENT_ID)


def dataset_for_documents(
    names: Iterable[str], datasets: Mapping[str, Iterable[str]]
) -> str | None:
    """The dataset (a key of ``datasets``: slug → its document names) that holds more than
    half of a file's documents, or None (no documents, no such dataset, or a tie)."""
    wanted = set(names)
    if not wanted:
        return None
    shares = {slug: len(wanted.intersection(documents)) for slug, documents in datasets.items()}
    best = max(shares.values(), default=0)
    if 2 * best <= len(wanted):
        return None
    winners = [slug for slug, share in shares.items() if share == best]
    return winners[0] if len(winners) == 1 else None
