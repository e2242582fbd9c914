"""A bundle's HTML pages as Markdown text, safe by construction.

The platform's pages are Markdown rendered with raw HTML off (`competition.markdown`), so an
HTML page is not kept as HTML: it is read with the standard library's parser and rewritten
as Markdown (headings, paragraphs, lists, emphasis, links, line breaks, preformatted text,
tables as Markdown tables: the first row is the header, a cell's blocks are joined on one
line). Lists nested deeper than `MAX_LIST_DEPTH` are written at that depth, so the output
grows with the input, never with its square (a page of thousands of nested lists converts in
time linear in its size).
Scripts, styles, forms, frames and comments are dropped with their content; every other tag
is dropped keeping its text. Markdown's own characters in the text are escaped, so the
result says what the page said and nothing more; links go through the renderer's own check
of their scheme.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

DROPPED = frozenset(
    {
        "script",
        "style",
        "head",
        "title",
        "form",
        "iframe",
        "object",
        "embed",
        "noscript",
        "template",
        "svg",
        "math",
        "select",
        "textarea",
        "button",
    }
)
BLOCKS = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "ul",
        "ol",
        "dl",
        "dd",
        "dt",
        "center",
        "main",
        "nav",
        "aside",
        "figure",
        "figcaption",
        "hr",
    }
)
MAX_LIST_DEPTH = 8
LIST_ITEM = re.compile(r"^\s*(-|\d+\.) ")
MARKDOWN_CHARS = re.compile(r"([\\`*_\[\]<>#|])")


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.dropping = 0
        self.pre = 0
        self.lists: list[list] = []  # [kind, counter]
        self.links: list[str | None] = []
        self.tables: list[list[list[str]]] = []  # per open table, its rows of cells
        self.cells: list[list[str]] = []  # the open cells' outputs (the page's is kept apart)

    def _open_cell(self) -> None:
        if self.tables:
            if not self.tables[-1]:
                self.tables[-1].append([])
            self.cells.append(self.out)
            self.out = []

    def _close_cell(self) -> None:
        if self.cells and self.tables:
            text = " ".join("".join(self.out).split())
            self.out = self.cells.pop()
            self.tables[-1][-1].append(text)

    def _close_table(self) -> None:
        while len(self.cells) > len(self.tables) - 1 and self.cells:
            self._close_cell()
        rows = [row for row in self.tables.pop() if row]
        if not rows:
            return
        width = max(len(row) for row in rows)
        lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
        lines.insert(1, "|" + " --- |" * width)
        if self.tables:  # a table inside a cell: its text only
            self.out.append(" " + " ".join(" ".join(row) for row in rows) + " ")
        else:
            self.out.append("\n\n" + "\n".join(lines) + "\n\n")

    def _block(self) -> None:
        self.out.append("\n\n")

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in DROPPED:
            self.dropping += 1
            return
        if self.dropping:
            return
        attrs = dict(attrs)
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._block()
            self.out.append("#" * int(tag[1]) + " ")
        elif tag in ("ul", "ol"):
            self.lists.append([tag, 0])
            self._block()
        elif tag == "li":
            depth = min(max(len(self.lists) - 1, 0), MAX_LIST_DEPTH)
            kind: list[Any] = self.lists[-1] if self.lists else ["ul", 0]
            kind[1] += 1
            marker = f"{kind[1]}." if kind[0] == "ol" else "-"
            self.out.append("\n" + "  " * depth + marker + " ")
        elif tag == "br":
            self.out.append("\\\n")
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "pre":
            self.pre += 1
            self.out.append("\n\n```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag == "a":
            href = (attrs.get("href") or "").strip()
            self.links.append(href or None)
            if href:
                self.out.append("[")
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            if len(self.cells) >= len(self.tables):
                self._close_cell()
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            if len(self.cells) >= len(self.tables):
                self._close_cell()
            self._open_cell()
        elif tag in BLOCKS:
            self._block()

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED:
            self.dropping = max(self.dropping - 1, 0)
            return
        if self.dropping:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self._block()
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            self._block()
        elif tag in ("strong", "b"):
            self.out.append("**")
        elif tag in ("em", "i"):
            self.out.append("*")
        elif tag == "pre":
            self.pre = max(self.pre - 1, 0)
            self.out.append("\n```\n\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href:
                safe = href.replace(" ", "%20").replace(")", "%29").replace("(", "%28")
                self.out.append(f"]({safe})")
        elif tag in ("td", "th") and len(self.cells) >= len(self.tables):
            self._close_cell()
        elif tag == "table" and self.tables:
            self._close_table()
        elif tag in BLOCKS:
            self._block()

    def handle_data(self, data: str) -> None:
        if self.dropping:
            return
        if self.pre:
            self.out.append(data.replace("```", "'''"))
            return
        text = re.sub(r"\s+", " ", data)
        self.out.append(MARKDOWN_CHARS.sub(r"\\\1", text))


def html_to_markdown(html: str) -> str:
    """The Markdown text of an HTML page (see the module docstring)."""
    parser = _Converter()
    parser.feed(html)
    parser.close()
    while parser.tables:  # a table the page never closed
        parser._close_table()
    text = "".join(parser.out)
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.strip() == "```":
            fenced = not fenced
            lines.append("```")
        elif fenced:
            lines.append(line.rstrip())
        else:
            lines.append(line.rstrip() if LIST_ITEM.match(line) else line.strip())
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"


def looks_like_html(name: str, text: str) -> bool:
    if name.lower().endswith((".html", ".htm")):
        return True
    if name.lower().endswith((".md", ".markdown", ".txt")):
        return False
    return bool(re.search(r"<(p|div|h[1-6]|ul|ol|br|a|table|html|body)\b", text, re.I))
