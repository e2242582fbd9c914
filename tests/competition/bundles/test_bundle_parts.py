"""The parts of an import that need no database: HTML pages made safe Markdown, scoring
programs recognised by files or command, leaderboard columns mapped to the metric catalogue."""

from __future__ import annotations

import pytest

from competition.bundles.build import column_metric
from competition.bundles.html_text import html_to_markdown
from competition.bundles.programs import command_of, recognise
from competition.markdown import render_markdown


def test_html_becomes_markdown_without_scripts_or_unsafe_links():
    text = html_to_markdown(
        "<h2>Data</h2><p>Get <a href='https://x.org/d'>the data</a>.<script>steal()</script>"
        "<style>p{}</style><a href='javascript:alert(1)'>click</a><img src=x onerror=y()>"
        "<b>*not emphasis*</b></p><pre>  indented\n    code</pre><ul><li>a</li><li>b</li></ul>"
    )
    assert text.startswith("## Data\n")
    assert "[the data](https://x.org/d)" in text
    assert "steal" not in text and "p{}" not in text and "onerror" not in text
    assert "**\\*not emphasis\\***" in text
    assert "```\n  indented\n    code\n```" in text
    assert "- a\n- b" in text
    html = str(render_markdown(text))
    assert '<a href="https://x.org/d">' in html
    assert 'href="javascript' not in html and "<script" not in html and "<img" not in html


@pytest.mark.parametrize(
    ("files", "command", "scorer", "kind", "procedure"),
    [
        (["corefud-scorer.py"], "", "corefud", "corefud", "crac-2025"),
        (
            ["x.py"],
            "python corefud-scorer.py ref sys -a partial",
            "corefud",
            "corefud",
            "crac-2022",
        ),
        (["lib/ua-scorer.py"], "", "ua", "identity", ""),
        (["ua-scorer.py"], "python ua-scorer.py keep_bridging", "ua", "bridging", ""),
        (
            ["ua-scorer.py"],
            "python3 ua-scorer.py key sys evaluate_discourse_deixis",
            "ua",
            "discourse_deixis",
            "",
        ),
        (["reference-coreference-scorers/scorer.pl"], "", "conll", "identity", ""),
        (["evaluate.py"], "python evaluate.py", None, "", ""),
        (["ua-scorer.py", "scorer.pl"], "", None, "", ""),
    ],
)
def test_scoring_programs_recognised(files, command, scorer, kind, procedure):
    match = recognise(files=files, command=command)
    assert (match.scorer, match.kind, match.procedure) == (scorer, kind, procedure)
    if scorer is None:
        assert "choose a procedure" in match.reason


def test_command_of_metadata():
    assert (
        command_of("description: x\ncommand: 'python $program/ua-scorer.py a b'\n")
        == "python $program/ua-scorer.py a b"
    )


@pytest.mark.parametrize(
    ("key", "label", "expected"),
    [
        ("conll", "CoNLL F1", ("conll", None)),
        ("set1_score", "B-CUBED", ("bcub", None)),
        ("f1_cs_pdt", "cs_pdt CoNLL", ("conll", "cs_pdt")),
        ("lea", "LEA", ("lea", None)),
        ("mrr", "MRR", (None, None)),
        ("light", "LIGHT", (None, "LIGHT")),
    ],
)
def test_columns_map_to_the_metric_catalogue(key, label, expected):
    assert column_metric(key, label, ["cs_pdt", "LIGHT"]) == expected
