"""The parts of an import that need no database: HTML pages made safe Markdown, scoring
programs recognised by files or command, leaderboard columns mapped to the metric catalogue."""

from __future__ import annotations

import time

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


def test_html_tables_stay_tables():
    text = html_to_markdown(
        "<h2>Results</h2><table><thead><tr><th>Team</th><th>CoNLL | F1</th></tr></thead>"
        "<tbody><tr><td><b>ÚFAL</b></td><td>74.9</td></tr>"
        "<tr><td>two<p>lines</p></td></tr></tbody></table><p>after</p>"
    )
    assert text == (
        "## Results\n\n| Team | CoNLL \\| F1 |\n| --- | --- |\n| **ÚFAL** | 74.9 |\n"
        "| two lines |  |\n\nafter\n"
    )
    assert "<table>" in str(render_markdown(text))


def _convert_seconds(html: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        html_to_markdown(html)
        best = min(best, time.process_time() - started)
    return best


def test_deeply_nested_lists_convert_in_linear_time():
    """A page of nested lists twice as large takes about twice as long, not four times
    (the 400 KB page once held a web worker past its timeout)."""

    def page(depth: int) -> str:
        return "<ul><li>item" * depth + "</li></ul>" * depth

    small, large = page(10_000), page(20_000)
    assert len(large) > 400_000
    assert len(html_to_markdown(large)) < 2 * len(large)
    ratio = _convert_seconds(large) / _convert_seconds(small)
    assert ratio < 3, f"doubling the page multiplied the time by {ratio:.1f}"


@pytest.mark.parametrize(
    ("files", "command", "scorer", "kind", "procedure"),
    [
        (["corefud-scorer.py"], "", "corefud", "corefud", "crac-2025"),
        (
            ["x.py"],
            "python corefud-scorer.py ref sys -a partial -z linear",
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


@pytest.mark.parametrize(
    ("command", "procedure", "words", "proposed"),
    [
        # corefud-scorer.py 1.2: head match, singletons dropped, zeros by dependencies.
        ("python corefud-scorer.py $input/ref $input/res", "crac-2025", None, []),
        ("python corefud-scorer.py k s -m muc bcub ceafe zero", "crac-2025", None, []),
        ("python corefud-scorer.py k s -z linear", "crac-2023", None, []),
        (
            "python corefud-scorer.py k s --match partial --zero-match-method=linear",
            "crac-2022",
            None,
            [],
        ),
        (
            "python3 $program/corefud-scorer.py $input/ref $input/res -s",
            "",
            "-f corefud -m all -a head -z --zero-match-method dependent -s",
            [
                "-s (singletons kept), where procedure crac-2025 has singletons excluded; "
                "its 'head, with singletons' column scores so"
            ],
        ),
        (
            "python corefud-scorer.py k s -x",
            "",
            "-f corefud -m all -a exact -z --zero-match-method dependent",
            [
                "-a exact (exact match), where procedure crac-2025 has head match; "
                "its 'exact match' column scores so"
            ],
        ),
        (
            "python corefud-scorer.py k s -a partial",
            "",
            "-f corefud -m all -a partial-corefud -z --zero-match-method dependent",
            [
                "-a partial-corefud (partial-corefud match), where procedure crac-2025 has head "
                "match; its 'partial match' column scores so"
            ],
        ),
        # ua-scorer.py: v1 words and v2 options.
        ("python ua-scorer.py $input/ref/k.CONLLUA $input/res/s.CONLLUA", "", None, []),
        ("python ua-scorer.py k s -m conll -s -l", "", None, []),
        ("python ua-scorer.py k s keep_bridging", "", None, []),
        (
            "python ua-scorer.py k s remove_singletons",
            "",
            "remove_singletons",
            [
                "remove_singletons (singletons excluded), where procedure codi-crac-2021-identity "
                "has singletons kept; its 'without singletons and split antecedents' column "
                "scores so"
            ],
        ),
        (
            "python ua-scorer.py k s keep_non_referring",
            "",
            "keep_non_referring",
            [
                "keep_non_referring (non-referring scores), where procedure "
                "codi-crac-2021-identity has no non-referring scores"
            ],
        ),
        (
            "python ua-scorer.py k s -m conll",
            "",
            "-m conll",
            [
                "no -s (singletons excluded), where procedure codi-crac-2021-identity has "
                "singletons kept; its 'without singletons and split antecedents' column scores "
                "so",
                "no -l (split antecedents removed), where procedure codi-crac-2021-identity has "
                "split antecedents kept; its 'without singletons and split antecedents' column "
                "scores so",
            ],
        ),
        (
            "python ua-scorer.py k s -m bridging -s",
            "",
            "-m bridging -s",
            [
                "no -l (split antecedents removed), where procedure codi-crac-2021-bridging has "
                "split antecedents kept"
            ],
        ),
    ],
)
def test_every_scorer_flag_is_mapped_or_proposed(command, procedure, words, proposed):
    match = recognise(files=[], command=command)
    assert match.procedure == procedure
    assert match.words == (tuple(words.split()) if words else None)
    assert [line.removeprefix("no exact equivalent: ") for line in match.proposed] == proposed
    assert all(line.startswith("no exact equivalent: ") for line in match.proposed)


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
