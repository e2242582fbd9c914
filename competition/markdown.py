"""Markdown written by organizers, rendered safely (markdown-it-py, CommonMark + tables).

Raw HTML in the text is never passed through: it is shown as text (``html`` off). Links and
images may only point to http(s), mailto or relative addresses; anything else (``javascript:``,
``data:``, ``vbscript:``, in any case or with entities) is left as plain text. The output is
HTML the templates may mark safe.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})


def link_allowed(url: str) -> bool:
    """True for http(s), mailto and scheme-less (relative, #anchor) addresses.

    ``url`` is what markdown-it decoded (entities resolved): control characters and blanks
    that browsers drop inside a scheme are removed before the scheme is read.
    """
    cleaned = "".join(ch for ch in url if ch > " " and ch != "\x7f")
    scheme = urlsplit(cleaned).scheme.lower()
    return scheme == "" and not cleaned.startswith("//") or scheme in ALLOWED_SCHEMES


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    parser.enable("table").enable("strikethrough")
    parser.validateLink = link_allowed  # type: ignore[method-assign]  # markdown-it-py's hook
    return parser


def render_markdown(text: str) -> SafeString:
    """The HTML of an organizer's Markdown: no raw HTML, no scripts, no unsafe links."""
    return mark_safe(_parser().render(text or ""))
