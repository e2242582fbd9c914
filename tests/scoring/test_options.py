"""Option parsing: v1 bare words, v2 dash options, presets and the policy's switching rule."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from scoring.errors import UsageError
from scoring.options import (
    CANONICAL_ORDER,
    COREF_METRICS,
    ScoringOptions,
    canonical_mode,
    parse_options,
)
from tests.paths import CONFORMANCE


def pack_files(pattern: str) -> list[Path]:
    return sorted(CONFORMANCE.glob(pattern))


def v1_flags(options: ScoringOptions) -> dict[str, bool]:
    """Our options in the conformance pack's ``mode`` vocabulary."""
    return {
        "keep_singletons": options.keep_singletons,
        "keep_split_antecedent": options.keep_split_antecedents,
        "keep_bridging": options.keep_bridging,
        "keep_non_referring": options.keep_non_referring,
        "only_split_antecedent": options.only_split_antecedent,
        "evaluate_discourse_deixis": options.discourse_deixis,
        "use_MIN": options.matching != "exact",
    }


def test_every_canonical_mode_string_of_the_pack_maps_to_its_effective_flags():
    """All mode strings the pack names (scored or crashed) parse to the flags it records."""
    seen = {}
    for path in pack_files("*/*/expected-v1.json"):
        expected = json.loads(path.read_text())
        for mode, result in expected["modes"].items():
            seen[mode] = result["mode"]
        for mode in expected.get("crashed_modes", {}):
            seen.setdefault(mode, None)
    assert len(seen) == 36
    for mode, flags in seen.items():
        options = parse_options([] if mode == "default" else mode.split()).options
        assert canonical_mode(options) == mode
        assert options.style == "v1" and options.metrics == COREF_METRICS
        if flags is not None:
            assert v1_flags(options) == flags, mode


def test_the_128_switch_combinations_give_36_modes_or_a_usage_error():
    """Combinations the reference silently overrides (Q29) are refused; the rest collapse to
    the 36 effective modes."""
    modes, refused = set(), 0
    for n in range(len(CANONICAL_ORDER) + 1):
        for words in itertools.combinations(CANONICAL_ORDER, n):
            try:
                modes.add(canonical_mode(parse_options(list(words)).options))
            except UsageError as error:
                refused += 1
                assert "valid words" in str(error)
    assert len(modes) == 36 and refused == 128 - 36


@pytest.mark.parametrize(
    "synonym, word",
    [
        ("remove_singleton", "remove_singletons"),
        ("remove_split_antecedents", "remove_split_antecedent"),
        ("MIN", "min"),
        ("min_spans", "min"),
        ("keep_non_referrings", "keep_non_referring"),
        ("keep_bridgings", "keep_bridging"),
        ("only_split_antecedents", "only_split_antecedent"),
    ],
)
def test_synonyms_mean_the_same_as_their_word(synonym, word):
    """Each v1 word has the reference's synonym."""
    assert parse_options([synonym]) == parse_options([word])


def test_min_means_partial_corefud_matching():
    """The policy replaces v1's half-applied MIN by v2's partial-corefud alignment."""
    assert parse_options(["min"]).options.matching == "partial-corefud"


def test_metric_words_select_metrics_reported_in_v1_order():
    """`blanc muc` runs muc then blanc; `all` or no metric word runs all six."""
    assert parse_options(["blanc", "muc"]).options.metrics == ("muc", "blanc")
    assert parse_options(["blanc", "all"]).options.metrics == COREF_METRICS
    assert not parse_options(["muc", "bcub"]).options.conll
    assert parse_options(["ceafe", "muc", "bcub"]).options.conll


def test_an_unknown_word_is_a_usage_error_listing_the_valid_words():
    """A typo never gives the default mode silently (Q1)."""
    with pytest.raises(UsageError) as error:
        parse_options(["keep_bridging", "remove_singeltons"])
    assert "'remove_singeltons'" in str(error.value)
    assert "remove_singletons" in str(error.value) and "evaluate_discourse_deixis" in str(
        error.value
    )


@pytest.mark.parametrize(
    "words",
    [
        ["remove_singletons", "evaluate_discourse_deixis"],
        ["only_split_antecedent", "keep_bridging"],
        ["evaluate_discourse_deixis", "only_split_antecedent"],
        ["remove_split_antecedent", "only_split_antecedent"],
    ],
)
def test_words_a_mode_word_overrides_are_a_conflict(words):
    """The reference silently forces them (Q29); we refuse."""
    with pytest.raises(UsageError):
        parse_options(words)


def test_pass_through_options_do_not_switch_to_v2():
    """--json, --per-doc and --missing-documents keep bare words in v1 meaning."""
    invocation = parse_options(
        [
            "remove_singletons",
            "--json",
            "--per-doc",
            "--missing-documents",
            "skip",
            "remove_split_antecedent",
        ]
    )
    assert invocation.options.style == "v1" and not invocation.options.keep_singletons
    assert invocation.as_json and invocation.per_doc
    assert invocation.options.missing_documents == "skip"
    assert parse_options(["--missing-documents=empty"]).options.missing_documents == "empty"
    with pytest.raises(UsageError):
        parse_options(["--missing-documents", "ignore"])


def test_any_dash_option_switches_to_v2_defaults():
    """v2: no singletons, no split antecedents, metrics muc bcub ceafe."""
    options = parse_options(["-a", "exact"]).options
    assert options.style == "v2" and options.metrics == ("muc", "bcub", "ceafe")
    assert not options.keep_singletons and not options.keep_split_antecedents
    assert options.format == "ua"


def test_bare_words_and_dash_options_do_not_mix():
    """`-s remove_split_antecedent` is ambiguous: refused."""
    with pytest.raises(UsageError):
        parse_options(["-s", "remove_split_antecedent"])


def test_v2_metrics_keep_argv_order_and_set_the_nr_and_bridging_flags():
    """`-m` order is the report order; non-referring/bridging switch their scores on."""
    invocation = parse_options(["-m", "bridging", "lea", "conll", "muc", "non-referring"])
    assert invocation.options.metrics == ("lea", "muc", "bcub", "ceafe")
    assert invocation.report_order == ("bridging", "lea", "muc", "bcub", "ceafe", "non-referring")
    assert invocation.options.keep_bridging and invocation.options.keep_non_referring


def test_v2_all_depends_on_the_format():
    """`-m all`: ua adds mention, mor, NR and bridging; corefud adds mor and zero."""
    ua = parse_options(["-m", "all"])
    assert ua.options.extra_metrics == ("mention", "mor")
    assert ua.options.keep_bridging and ua.options.keep_non_referring
    corefud = parse_options(["-f", "corefud", "-m", "all"]).options
    assert corefud.extra_metrics == ("mor", "zero") and not corefud.keep_bridging


def test_v2_modes_force_singletons_and_split_antecedents_with_a_note():
    """-d and --only-split-antecedent force -s -l (v2 logs "Auto reset"); -d wins."""
    invocation = parse_options(["-d", "--only-split-antecedent", "-m", "muc", "bridging"])
    options = invocation.options
    assert options.discourse_deixis and not options.only_split_antecedent
    assert options.keep_singletons and options.keep_split_antecedents
    assert not options.keep_bridging and invocation.report_order == ("muc",)
    assert any("Auto reset" in note for note in invocation.notes)


@pytest.mark.parametrize(
    "words",
    [
        ["-f", "corefud", "-l"],
        ["-f", "conll", "-m", "bridging"],
        ["-f", "corefud", "-d"],
        ["-m", "zero"],
        ["-f", "conll", "-a", "partial-craft"],
        ["--np-only"],
        ["-z", "--zero-match-method", "dependent"],
        ["-x"],
        ["-m", "f1"],
        ["-t", "codicrac22ar", "-s"],
    ],
)
def test_options_a_format_cannot_honour_are_usage_errors(words):
    """v2's compatibility_check, unknown options and -t mixed with options."""
    with pytest.raises(UsageError):
        parse_options(words)


def test_v2_argv_of_the_pack_gives_the_settings_v2_processed():
    """Every v2 argv of the pack (presets as intended) yields v2's processed ``args``."""
    fields = {
        "keep_singletons": "keep_singletons",
        "keep_split_antecedents": "keep_split_antecedents",
        "evaluate_discourse_deixis": "discourse_deixis",
        "only_split_antecedent": "only_split_antecedent",
        "match": "matching",
        "keep_zeros": "keep_zeros",
        "keep_non_referring": "keep_non_referring",
        "keep_bridging": "keep_bridging",
        "format": "format",
        "allow_boundary_crossing": "allow_boundary_crossing",
    }
    checked = 0
    for path in pack_files("ua-fixtures/*/expected-v2.json"):
        for argv, run in json.loads(path.read_text())["runs"].items():
            if "args" not in run or (argv.startswith("-t") and "--intended-preset" not in argv):
                continue
            options = parse_options(argv.replace(" --intended-preset", "").split()).options
            for theirs, ours in fields.items():
                assert getattr(options, ours) == run["args"][theirs], (argv, theirs)
            coref = [m for m in run["args"]["metrics"] if m in COREF_METRICS]
            if "all" not in run["args"]["metrics"]:
                assert list(options.metrics) == coref, argv
            checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "preset, expected",
    [
        ("codicrac22ar", ["-m", "conll", "-s", "-l"]),
        ("codicrac22dd", ["-m", "conll", "-s", "-l", "-d"]),
        ("codicrac22br", ["-m", "bridging", "-s"]),
        ("craft19", ["-m", "conll", "-s"]),
        ("crac18", ["-m", "conll", "non-referring", "-s"]),
        (
            "crac22",
            ["-f", "corefud", "-m", "conll", "mention", "zero", "-z", "-a", "partial-corefud"],
        ),
        ("crac23", ["-f", "corefud", "-m", "conll", "mention", "zero", "-a", "head"]),
        ("conll12", ["-f", "conll", "-m", "conll"]),
    ],
)
def test_presets_mean_their_explicit_options(preset, expected):
    """-t is the preset laid over the v2 defaults (differences doc §1)."""
    assert parse_options(["-t", preset]).options == parse_options(expected).options
