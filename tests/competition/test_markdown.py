"""Organizer Markdown renders inert: no raw HTML, no scripts, no event attributes, no
javascript: (or data:, vbscript:) links, however they are spelled."""

import re

import pytest

from competition.markdown import link_allowed, render_markdown

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "<iframe src=https://evil.example></iframe>",
    '<a href="javascript:alert(1)">click</a>',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click]( javascript:alert(1))",
    "[click](<javascript:alert(1)>)",
    "<javascript:alert(1)>",
    "[click](vbscript:msgbox(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![x](javascript:alert(1))",
    "[ref]\n\n[ref]: javascript:alert(1)",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_renders_without_tags_handlers_or_script_links(text):
    """Whatever the spelling, the output has no script/iframe/img-with-handler tag and no
    href or src the browser would run."""
    html = render_markdown(text).lower()
    assert "<script" not in html and "<iframe" not in html
    assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", html), html  # no event handler
    for attribute in ('href="', 'src="'):
        for chunk in html.split(attribute)[1:]:
            target = chunk.split('"', 1)[0].replace("&amp;", "&")
            assert not target.strip().startswith(("javascript", "vbscript", "data:")), html


def test_raw_html_is_shown_as_text():
    html = render_markdown('Hi <script>alert(1)</script> <img src=x onerror="alert(1)">')
    assert "&lt;script&gt;" in html and "&lt;img" in html
    assert "<script" not in html and "<img" not in html


def test_ordinary_markdown_keeps_links_tables_and_emphasis():
    html = render_markdown(
        "# Data\n\n**Bold** [site](https://example.org/x) "
        "[mail](mailto:org@example.org) [rel](/competitions/x/)\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n"
    )
    assert "<h1>Data</h1>" in html and "<strong>Bold</strong>" in html
    assert 'href="https://example.org/x"' in html and 'href="mailto:org@example.org"' in html
    assert 'href="/competitions/x/"' in html and "<table>" in html


@pytest.mark.parametrize(
    "url,allowed",
    [
        ("https://x.org", True),
        ("http://x.org", True),
        ("mailto:a@b.c", True),
        ("/a/b", True),
        ("#part", True),
        ("page.html", True),
        ("javascript:alert(1)", False),
        ("JAVASCRIPT:x", False),
        ("java\nscript:x", False),
        ("data:text/html,x", False),
        ("//evil.example/x", False),
        ("file:///etc/passwd", False),
    ],
)
def test_link_allowed(url, allowed):
    assert link_allowed(url) is allowed
