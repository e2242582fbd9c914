"""``python -m scoring convert --to compact|exploded IN OUT``: convert between file formats.

The input format is detected (``--from`` overrides: ua, corefud, conll, muc7); the output is
compact CONLL-UA (CorefUD) or exploded CONLL-UA, written by `scoring.writers`. Exploded input
is read as UA scorer v2 reads it: a repeated MarkableID is one discontinuous markable and a
named closing (``m_1)``) may close a crossing markable. The output
file is written next to its final name and renamed into place, so a failed run leaves no
half-written file. Errors go to stderr as ``FILE:LINE: message`` with exit status 2.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from scoring.errors import ScoringError, ScoringInputError
from scoring.model import Document
from scoring.writers import write_compact, write_exploded

WRITERS = {"compact": write_compact, "exploded": write_exploded}
FORMATS = ("ua", "corefud", "conll", "muc7")


def read_any(path: str, format: str | None = None) -> list[Document]:
    """Read a file with the reader of its (given or detected) format."""
    from scoring.readers import detect_format, reader_module

    if not Path(path).is_file():
        raise ScoringInputError(
            path, None, "no such file (expected a readable input file)", code="unreadable"
        )
    name = format or detect_format(path)
    if name is None:
        raise ScoringInputError(
            path,
            None,
            "cannot tell the format (expected exploded or "
            "compact CONLL-UA, CoNLL-2012 or MUC-7; use --from)",
            code="unknown_format",
        )
    documents: list[Document]
    if name == "ua":  # read what UA scorer v2 reads: repeated MarkableIDs, named closings
        documents = reader_module(name).read(path, discontinuous=True, allow_crossing=True)
    else:
        documents = reader_module(name).read(path)
    return documents


def convert(source: str, target: str, to: str, format: str | None = None) -> int:
    """Convert ``source`` into ``target``; returns the number of documents written."""
    documents = read_any(source, format)
    directory = os.path.dirname(os.path.abspath(target))
    # Written beside the target, then renamed over it: a failed conversion leaves no half
    # file. The new file gets the mode any new file gets here (0666 less the umask), or the
    # replaced file's, not the owner-only mode of a temporary file.
    temporary = os.path.join(directory, f".convert-{os.getpid()}-{secrets.token_hex(6)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n") as handle:
            WRITERS[to](documents, handle)
        if os.path.exists(target):
            shutil.copymode(target, temporary)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
    return len(documents)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m scoring convert",
        description="Convert a coreference file to compact or exploded CONLL-UA.",
    )
    parser.add_argument("--to", required=True, choices=sorted(WRITERS), help="output format")
    parser.add_argument(
        "--from", dest="source_format", choices=FORMATS, help="input format (default: detected)"
    )
    parser.add_argument("input", help="file to read")
    parser.add_argument("output", help="file to write (replaced if it exists)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except SystemExit as exc:  # argparse has printed the usage and the problem
        return 0 if exc.code == 0 else 2
    if os.path.abspath(args.input) == os.path.abspath(args.output):
        print(
            f"{args.output}: the output would overwrite the input (expected another file name)",
            file=sys.stderr,
        )
        return 2
    try:
        count = convert(args.input, args.output, args.to, args.source_format)
    except ScoringError as exc:
        print(exc, file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{exc.filename or args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    print(
        f"{args.input}: {count} document{'s' if count != 1 else ''} written to "
        f"{args.output} ({args.to})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
