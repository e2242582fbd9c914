"""Every relative link in the guides leads somewhere: the file exists and, when the link names a
section (``#anchor``), the file has a heading with that anchor, as GitHub spells it.

The guides are ``README.md``, ``docs/*.md``, ``scorer/README.md`` and the dated measurements
they point to, ``bench/RESULTS.md``. Links are read with the
project's own Markdown parser (markdown-it-py), so a link in a code block or span is not a link.
"""

from __future__ import annotations

import os
import unicodedata
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

ROOT = Path(__file__).resolve().parents[1]
GUIDES = sorted(
    [ROOT / "README.md", ROOT / "scorer" / "README.md", ROOT / "bench" / "RESULTS.md"]
    + list((ROOT / "docs").glob("*.md"))
)
PARSER = MarkdownIt("commonmark").enable("table")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: lower case, punctuation dropped (letters, digits,
    ``_`` and ``-`` kept), each space a hyphen."""
    kept = "".join(
        char for char in heading.lower() if char in " -_" or unicodedata.category(char)[0] in "LN"
    )
    return kept.replace(" ", "-")


def text(inline: Token) -> str:
    """The text a heading shows: its words and code spans, without the Markdown around them."""
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    )


def anchors(path: Path) -> set[str]:
    """The anchors of ``path``'s headings; a repeated one gets ``-1``, ``-2``, … as on GitHub."""
    tokens = PARSER.parse(path.read_text(encoding="utf-8"))
    seen: Counter[str] = Counter()
    found = set()
    for opening, inline in zip(tokens, tokens[1:]):
        if opening.type == "heading_open":
            base = slug(text(inline))
            found.add(f"{base}-{seen[base]}" if seen[base] else base)
            seen[base] += 1
    return found


def links(path: Path) -> list[str]:
    """The targets of ``path``'s links and images."""
    found = []
    for token in PARSER.parse(path.read_text(encoding="utf-8")):
        for child in token.children or []:
            target = child.attrs.get("href") or child.attrs.get("src")
            if child.type in ("link_open", "image") and isinstance(target, str):
                found.append(target)
    return found


def relative(target: str) -> bool:
    parts = urlsplit(target)
    return not parts.scheme and not parts.netloc and not target.startswith("/")


def broken(path: Path) -> list[str]:
    """Each relative link of ``path`` whose file or section does not exist, with why."""
    out = []
    for target in filter(relative, links(path)):
        parts = urlsplit(target)
        linked = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if not linked.exists():
            out.append(f"{target}: no file {os.path.relpath(linked, ROOT)}")
        elif parts.fragment and linked.suffix == ".md":
            if parts.fragment not in anchors(linked):
                out.append(f"{target}: no section #{parts.fragment} in {linked.name}")
    return out


@pytest.mark.parametrize("guide", GUIDES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(guide: Path):
    assert broken(guide) == []


def test_anchors_are_spelt_as_on_github():
    assert slug("7. Performance: what a run costs") == "7-performance-what-a-run-costs"
    assert slug("The `ua-score` command line") == "the-ua-score-command-line"
    assert slug("Pages, terms and team approval") == "pages-terms-and-team-approval"


def test_a_missing_file_and_a_missing_section_are_both_reported(tmp_path: Path):
    (tmp_path / "other.md").write_text("# Present\n\n## Twice\n\n## Twice\n")
    guide = tmp_path / "guide.md"
    guide.write_text(
        "[ok](other.md#present) [dup](other.md#twice-1) [self](#here) `[code](none.md)`\n\n"
        "# Here\n\n[gone](none.md) [lost](other.md#absent) [web](https://example.org/x#y)\n"
    )

    assert anchors(tmp_path / "other.md") == {"present", "twice", "twice-1"}
    assert links(guide) == [
        "other.md#present",
        "other.md#twice-1",
        "#here",
        "none.md",
        "other.md#absent",
        "https://example.org/x#y",
    ]
    problems = [problem.split(":")[0] for problem in broken(guide)]
    assert problems == ["none.md", "other.md#absent"]
