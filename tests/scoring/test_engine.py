"""Engine behaviour: modes, policy decisions, mention alignment, non-referring and bridging."""

from __future__ import annotations

import dataclasses
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.engine import score_corpus, score_document
from scoring.errors import ScoringInputError
from scoring.model import Document, Markable
from scoring.options import ScoringOptions
from scoring.results import PRCounts

SIX = ("lea", "muc", "bcub", "ceafe", "ceafm", "blanc")


def f1s(result):
    return {name: result.metrics[name].prf.f1 for name in result.metrics}


def test_it_collapses_a_span_written_twice_in_one_entity_and_warns(make_doc):
    """Policy: one mention, a warning; v1 would divide by zero in BLANC here (Q21)."""
    key = make_doc({"1": [0, 0], "2": [3]})
    response = make_doc({"1": [0], "2": [3]})
    options = ScoringOptions(keep_split_antecedents=False)
    result = score_corpus([(key, response)], options)
    assert any("same span is annotated twice" in w for w in result.warnings)
    assert result.metrics["ceafe"].prf.f1 == 1.0
    assert result.metrics["blanc"].counts[1].r_den == 1


def test_it_rejects_an_elementof_cycle_instead_of_looping(make_doc):
    """Q13: self-membership is a clear error naming the entities."""
    doc = make_doc({"1": [0, 2]}, element_of={"1": ("1",)})
    with pytest.raises(ScoringInputError) as caught:
        score_corpus([(doc, doc)], ScoringOptions())
    assert caught.value.code == "elementof_cycle"
    assert "1 -> 1" in str(caught.value)


def test_it_accepts_a_nested_plural_reached_twice(make_doc):
    """A diamond of plurals is not a cycle: P ∋ Q, R and Q, R ∋ S."""
    doc = make_doc(
        {"s": [0], "t": [1], "q": [2], "r": [3], "p": [4, 5]},
        element_of={"s": ("q", "r"), "t": ("q",), "q": ("p",), "r": ("p",)},
    )
    result = score_corpus([(doc, doc)], ScoringOptions())
    assert result.metrics["ceafe"].prf.f1 == 1.0


def test_it_keeps_split_antecedents_when_removing_singletons(make_doc):
    """Policy: sets are built, then one-mention clusters go; "they" + its set survives."""
    doc = make_doc({"1": [0], "2": [2], "3": [4]}, element_of={"1": ("3",), "2": ("3",)})
    result = score_corpus([(doc, doc)], ScoringOptions(keep_singletons=False))
    assert result.metrics["ceafe"].counts[0].r_den == 1  # only the plural cluster
    assert result.metrics["ceafm"].counts[0].r_den == 2  # "they" and its set
    assert all(v == pytest.approx(1.0) for v in f1s(result).values())


@pytest.mark.parametrize("shift", [0, 7])
def test_with_sets_a_span_in_two_entities_counts_in_the_later_first_markables_entity(
    make_doc, shift
):
    """Policy (docs/scoring-deviations.md): with accommodated sets the references take the
    clusters in set-iteration order; we take the entities' first markables' order, and
    the span then counts in the last of its clusters. Response B's first markable (0-3)
    comes before A's (0), so the word 0 of both counts in A, as in key entity 1: MUC R 1,
    wherever the document's words sit."""

    def at(*spans):
        return [s + shift if isinstance(s, int) else (s[0] + shift, s[1] + shift) for s in spans]

    key = make_doc(
        {"1": at(0, 5), "2": at((0, 3), 2), "3": at(8)}, element_of={"1": ("3",), "2": ("3",)}
    )
    response = make_doc(
        {"A": at(0, 5), "B": at((0, 3), 2, 0), "3": at(8)},
        element_of={"A": ("3",), "B": ("3",)},
    )
    result = score_corpus([(key, response)], ScoringOptions(keep_split_antecedents=True))
    muc = result.metrics["muc"].prf
    assert (muc.recall, muc.precision) == pytest.approx((1.0, 2 / 3))


def test_it_scores_the_discourse_deixis_layer(make_doc):
    """DD mode reads the DISCOURSE_DEIXIS layer; the identity layer is ignored."""
    key = make_doc({"1-DD": [0, 5]}, dd=True)
    response = make_doc({"1-DD": [0, 5]}, dd=True)
    result = score_corpus([(key, response)], ScoringOptions(discourse_deixis=True))
    assert result.metrics["muc"].prf.f1 == 1.0
    assert score_corpus([(key, response)], ScoringOptions()).metrics["muc"].counts[0].r_den == 0


def test_partial_corefud_credits_min_matches_in_every_metric(make_doc):
    """Fixture min_hash: v1 `min` credits only CEAF; partial-corefud aligns once: all 1.0."""
    key = make_doc({"1": [(0, 2), 4], "2": [6]}, min_spans={(0, 2): (1, 1)})
    response = make_doc({"1": [1, 4], "2": [6]})
    exact = score_corpus([(key, response)], ScoringOptions())
    assert exact.metrics["muc"].prf.f1 == 0
    partial = score_corpus([(key, response)], ScoringOptions(matching="partial-corefud"))
    assert all(v == pytest.approx(1.0) for name, v in f1s(partial).items() if name != "muc")
    assert partial.metrics["muc"].prf.f1 == pytest.approx(1.0)
    assert partial.metrics["bcub"].counts[0].r_num == pytest.approx(3.0)


def test_partial_corefud_is_one_to_one(make_doc):
    """Repro min_many: one response mention cannot stand for two key mentions (v1: P 1.5)."""
    key = make_doc({"E1": [(0, 2), (1, 2)], "E2": [3]}, min_spans={(0, 2): (2, 2), (1, 2): (2, 2)})
    response = make_doc({"E1": [2], "E2": [3]})
    result = score_corpus([(key, response)], ScoringOptions(matching="partial-corefud"))
    ceafm = result.metrics["ceafm"].prf
    assert (ceafm.recall, ceafm.precision) == pytest.approx((2 / 3, 1.0))
    assert result.metrics["ceafe"].prf.f1 == pytest.approx(5 / 6)


def test_partial_corefud_prefers_exact_then_warns_on_min_outside(make_doc):
    """Repro min_outside: exact spans align first, even when Min lies outside the span."""
    key = make_doc({"1": [(0, 1), 2]}, min_spans={(0, 1): (4, 4)})
    result = score_corpus([(key, key)], ScoringOptions(matching="partial-corefud"))
    assert result.metrics["muc"].prf.f1 == 1.0
    response = make_doc({"1": [0, 2]})
    result = score_corpus([(key, response)], ScoringOptions(matching="partial-corefud"))
    assert result.metrics["muc"].prf.f1 == 0
    assert any("Min outside" in w for w in result.warnings)


def test_partial_craft_aligns_optimally_where_v2_gives_up(make_doc):
    """Repro craft: v2's greedy alignment leaves K2 unmatched (MUC .5); ours finds 1.0."""
    key = make_doc({"E1": [(0, 3), 4], "E2": [(1, 2), 5]})
    response = make_doc({"E1": [1, 4], "E2": [2, 5]})
    assert score_corpus([(key, response)], ScoringOptions()).metrics["muc"].prf.f1 == 0
    result = score_corpus([(key, response)], ScoringOptions(matching="partial-craft"))
    assert result.metrics["muc"].prf.f1 == pytest.approx(1.0)
    assert result.metrics["bcub"].prf.recall == pytest.approx(1.0)


def test_head_matching_uses_min_as_the_head_on_exploded_files(make_doc):
    """`-a head` on exploded files: Min is the head span; same head → aligned."""
    key = make_doc({"1": [(0, 2), 5]}, min_spans={(0, 2): (2, 2), (5, 5): (5, 5)})
    response = make_doc({"1": [(1, 3), 5]}, min_spans={(1, 3): (2, 2), (5, 5): (5, 5)})
    assert score_corpus([(key, response)], ScoringOptions()).metrics["muc"].prf.f1 == 0
    result = score_corpus([(key, response)], ScoringOptions(matching="head"))
    assert result.metrics["muc"].prf.f1 == pytest.approx(1.0)


def test_every_pseudo_markable_is_scored(make_doc):
    """Policy (not Q14): both markables of a -Pseudo entity count; coreference ignores them."""
    key = make_doc({"1-Pseudo": [0, 2], "2": [4]})
    response = make_doc({"5-Pseudo": [2], "2": [4]})
    result = score_corpus([(key, response)], ScoringOptions(keep_non_referring=True))
    nr = result.non_referring
    assert (nr.recall, nr.precision) == (0.5, 1.0)
    assert result.documents[0].non_referring.fn == 1
    assert result.metrics["ceafe"].counts[0].r_den == 1


def test_bridging_levels_and_relations(make_doc):
    """Fixture bridging_basic in small: a wrong anchor of the right entity is entity-level tp."""
    spec = {"1": [0, 2], "2": [4], "3": [6], "4": [8]}
    key = make_doc(spec, bridging=[("m4", "m1", "part-of"), ("m5", "m3", "poss")])
    response = make_doc(spec, bridging=[("m4", "m2", "part-of"), ("m3", "m1", "other")])
    result = score_corpus([(key, response)], ScoringOptions(keep_bridging=True))
    assert result.bridging["anaphora_recognition"].recall == 0.5
    assert result.bridging["mention"].recall == 0.0
    assert result.bridging["entity"].recall == 0.5
    by_rel = result.bridging_by_relation
    assert by_rel["part-of"]["entity"].f1 == 1.0
    assert by_rel["poss"]["anaphora_recognition"].recall == 0.0
    assert by_rel["other"]["anaphora_recognition"].precision == 0.0


def test_score_document_returns_the_counts_the_corpus_sums(make_doc):
    """Per-document results are the building blocks of the corpus numbers."""
    a = (make_doc({"1": [0, 1, 2]}, name="a"), make_doc({"1": [0, 1], "2": [2, 3]}, name="a"))
    b = (make_doc({"1": [0, 4]}, name="b"), make_doc({"1": [0, 4]}, name="b"))
    options = ScoringOptions()
    corpus = score_corpus([a, b], options)
    for name in SIX:
        summed = score_document(*a, options).metrics[name].counts[0]
        summed = summed + score_document(*b, options).metrics[name].counts[0]
        assert corpus.metrics[name].counts[0] == summed


def test_blanc_sub_metric_rule_follows_the_file_format(make_doc):
    """Key without coreference links, response with some: UA averages in a 0 (Q20), the
    CoNLL-2012 reference scores the non-coreference part alone (its TC-N-3)."""
    import dataclasses

    key = make_doc({"1": [0], "2": [2], "3": [4]})
    response = make_doc({"1": [0, 2], "3": [4]})
    ua = score_corpus([(key, response)], ScoringOptions())
    conll_key = dataclasses.replace(key, metadata={"format": "conll"})
    conll = score_corpus([(conll_key, response)], ScoringOptions())
    assert ua.metrics["blanc"].prf.recall == pytest.approx(0.5 * (2 / 3))
    assert conll.metrics["blanc"].prf.recall == pytest.approx(2 / 3)


def test_extra_metrics_mention_and_mor(make_doc):
    """`mention`: mentions found / mentions; `mor`: token overlap of paired mentions."""
    key = make_doc({"1": [(0, 2), 5]})
    response = make_doc({"1": [(1, 2), 5], "2": [7]})
    result = score_corpus([(key, response)], ScoringOptions(extra_metrics=("mention", "mor")))
    mention = result.metrics["mention"].prf
    assert (mention.recall, mention.precision) == pytest.approx((1 / 2, 1 / 3))
    mor = result.metrics["mor"].counts[0]
    assert (mor.r_num, mor.r_den, mor.p_den) == (3, 4, 4)


def test_head_matching_on_compact_files_uses_the_head_token(make_doc):
    """Compact files carry a head token: same head, overlapping span → aligned, one to one."""
    import dataclasses

    def with_heads(doc, heads):
        marks = tuple(m._replace(head=heads.get(m.parts[0])) for m in doc.identity)
        return dataclasses.replace(doc, identity=marks)

    key = with_heads(make_doc({"1": [(0, 3), 6], "2": [(8, 9)]}), {(0, 3): 2, (6, 6): 6, (8, 9): 9})
    response = with_heads(
        make_doc({"1": [(1, 2), 6], "2": [(2, 4)]}), {(1, 2): 2, (6, 6): 6, (2, 4): 2}
    )
    result = score_corpus([(key, response)], ScoringOptions(matching="head"))
    # (1, 2) and (2, 4) both have head 2 and overlap key (0, 3) by 2 of 4 tokens: a tie that
    # goes to the earlier mention, so (1, 2) joins 6 in key entity 1; (2, 4) stays unmatched
    # (key (8, 9) has head 9).
    assert result.metrics["muc"].prf.recall == pytest.approx(1.0)
    assert result.metrics["muc"].prf.precision == pytest.approx(1.0)
    assert result.metrics["ceafm"].counts[0].r_num == pytest.approx(2.0)
    bcub = result.metrics["bcub"].counts[0]
    assert (bcub.p_num, bcub.p_den) == pytest.approx((2.0, 3.0))


def test_mor_ignores_the_matching_option(make_doc):
    """MOR pairs mentions by token overlap itself: partial matching must not change it."""
    key = make_doc({"1": [(0, 2), 5]}, min_spans={(0, 2): (1, 1)})
    response = make_doc({"1": [(1, 2), 5]})
    counts = [
        score_corpus([(key, response)], ScoringOptions(matching=matching, extra_metrics=("mor",)))
        .metrics["mor"]
        .counts[0]
        for matching in ("exact", "partial-corefud")
    ]
    assert counts[0] == counts[1]
    assert (counts[0].r_num, counts[0].r_den, counts[0].p_den) == (3, 4, 3)


def test_mor_counts_a_span_of_two_clusters_twice(make_doc):
    """v2 feeds MOR every mention of every cluster: a span in two entities counts twice."""
    key = make_doc({"1": [(0, 1)], "2": [(0, 1), 5]})
    response = make_doc({"1": [(0, 1)]})
    mor = (
        score_corpus([(key, response)], ScoringOptions(extra_metrics=("mor",)))
        .metrics["mor"]
        .counts[0]
    )
    # key tokens 2 + 2 + 1; only one key copy of (0, 1) pairs with the response's (0, 1)
    assert (mor.r_num, mor.r_den, mor.p_num, mor.p_den) == (2, 5, 2, 2)


# -- compact (CorefUD) files: empty nodes inside mentions, empty heads, zeros -------------


def compact_doc(mentions, *, n_tokens=20, sentences=()):
    """A compact-format document from ``(entity, parts, keyword fields)`` triples."""
    markables = tuple(
        Markable(f"m{n}", eid, tuple(parts), line=n, **fields)
        for n, (eid, parts, fields) in enumerate(mentions, 1)
    )
    return Document(
        name="d",
        path="d.conllu",
        line=1,
        tokens=("w",) * n_tokens,
        identity=markables,
        sentences=tuple(sentences),
        metadata={"format": "corefud"},
    )


def muc(key, response, **options):
    return score_corpus([(key, response)], ScoringOptions(**options)).metrics["muc"].prf


def test_an_empty_node_inside_a_mention_is_part_of_its_identity():
    """Words 0-2 with the empty node 2.1 are another mention than words 0-2 alone (v2
    compares the mention's nodes)."""
    key = compact_doc([("e1", [(0, 2)], {"zeros": ((2, 1),)}), ("e1", [(5, 5)], {})])
    same = compact_doc([("e1", [(0, 2)], {"zeros": ((2, 1),)}), ("e1", [(5, 5)], {})])
    words_only = compact_doc([("e1", [(0, 2)], {}), ("e1", [(5, 5)], {})])
    assert muc(key, same).recall == 1.0
    assert muc(key, words_only).recall == 0.0


def test_head_matching_on_compact_files_compares_the_heads_of_identical_spans():
    """v2 `-a head` is "super-exact" on identical spans: the same nodes with another head do
    not match (CorefUD suite TC-ZD-2/ZE-1 `_head`); partial matching ignores the head there."""
    key = compact_doc(
        [
            ("e1", [(0, 2)], {"head": 1, "min_span": (1, 1)}),
            ("e1", [(5, 5)], {"head": 5, "min_span": (5, 5)}),
        ]
    )
    other_head = compact_doc(
        [
            ("e1", [(0, 2)], {"head": 2, "min_span": (2, 2)}),
            ("e1", [(5, 5)], {"head": 5, "min_span": (5, 5)}),
        ]
    )
    assert muc(key, other_head, matching="head").recall == 0.0
    assert muc(key, key, matching="head").recall == 1.0
    assert muc(key, other_head, matching="partial-corefud").recall == 1.0


def test_partial_matching_with_an_empty_head_needs_the_empty_node():
    """Key 0-2 + 2.1 headed by the empty node: a response inside it that holds the empty node
    matches partially (TC-ZD-3), one without it does not."""
    key = compact_doc(
        [
            ("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 2, "head_zero": 1}),
            ("e1", [(5, 5)], {"head": 5, "min_span": (5, 5)}),
        ]
    )
    with_zero = compact_doc(
        [
            ("e1", [(1, 1)], {"zeros": ((2, 1),), "head": 1, "min_span": (1, 1)}),
            ("e1", [(5, 5)], {"head": 5, "min_span": (5, 5)}),
        ]
    )
    without = compact_doc(
        [
            ("e1", [(1, 2)], {"head": 1, "min_span": (1, 1)}),
            ("e1", [(5, 5)], {"head": 5, "min_span": (5, 5)}),
        ]
    )
    # an empty-headed mention is a zero: -z keeps it (corefud-scorer.py always does)
    assert muc(key, with_zero, matching="partial-corefud", keep_zeros=True).recall == 1.0
    assert muc(key, without, matching="partial-corefud", keep_zeros=True).recall == 0.0
    # head matching: the heads differ (an empty node vs word 1)
    assert muc(key, with_zero, matching="head", keep_zeros=True).recall == 0.0


def test_a_mention_with_an_empty_head_is_a_zero_and_leaves_without_keep_zeros():
    """v2's is_zero is "the head is empty": without -z such mentions are dropped too."""
    doc = compact_doc(
        [
            ("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 2, "head_zero": 1}),
            ("e1", [(5, 5)], {"head": 5}),
        ]
    )
    counts = {
        z: score_corpus([(doc, doc)], ScoringOptions(keep_zeros=z, extra_metrics=("mention",)))
        .metrics["mention"]
        .counts[0]
        .r_den
        for z in (False, True)
    }
    assert counts == {False: 1, True: 2}


def test_a_cluster_of_zeros_only_leaves_without_keep_zeros():
    """Zeros go after the singleton filter (as in v2); e2, two zeros, keeps its cluster
    through the filter and is then empty: it is dropped (v2 keeps it and divides by zero in
    MUC), so only e1 is scored."""
    zero = {"zeros": (), "head_zero": 1}
    doc = compact_doc(
        [
            ("e1", [(0, 0)], {"head": 0}),
            ("e2", [(2, 2)], {**zero, "zero": 1, "head": 2}),
            ("e2", [(3, 3)], {**zero, "zero": 1, "head": 3}),
            ("e1", [(5, 5)], {"head": 5}),
        ]
    )
    result = score_corpus([(doc, doc)], ScoringOptions(keep_zeros=False))
    assert result.metrics["ceafe"].counts[0].r_den == 1
    assert result.metrics["muc"].prf.recall == pytest.approx(1.0)


def zero_pair(key_zero, response_zero, key_deps="4:nsubj", response_deps="4:nsubj", sentences=()):
    """Entity e1 = word 0 + one zero ``(position, rank)`` with the given deps, each side."""

    def doc(zero, deps):
        return compact_doc(
            [
                ("e1", [(0, 0)], {}),
                (
                    "e1",
                    [(zero[0], zero[0])],
                    {"zero": zero[1], "head": zero[0], "attributes": (("deps", deps),)},
                ),
            ],
            sentences=sentences,
        )

    return doc(key_zero, key_deps), doc(response_zero, response_deps)


def test_dependent_zero_matching_aligns_zeros_by_their_dependencies():
    """--zero-match-method dependent: zeros at different places with the same dependency
    align (TC-ZF-2); the zero metric gets that alignment too."""
    key, response = zero_pair((5, 1), (7, 1))
    options = dict(keep_zeros=True, metrics=("muc",), extra_metrics=("zero",))
    dependent = score_corpus(
        [(key, response)], ScoringOptions(zero_match_method="dependent", **options)
    )
    linear = score_corpus([(key, response)], ScoringOptions(zero_match_method="linear", **options))
    assert dependent.metrics["muc"].prf.recall == 1.0
    assert dependent.metrics["zero"].counts[0] == PRCounts(1, 1, 1, 1)
    assert linear.metrics["muc"].prf.recall == 0.0
    # linear: the key zero anaphor has no counterpart (fn), the response one is not covered
    assert linear.metrics["zero"].counts[0] == PRCounts(0, 1, 0, 1)


def test_dependent_zero_matching_never_aligns_across_sentences():
    """Zeros of two sentences do not align (v2 scores 0 across sentences), root zeros of one
    sentence do: the compact reader's ``deps`` names the head's sentence first (``@S``)."""
    options = dict(keep_zeros=True, zero_match_method="dependent", metrics=("muc",))
    across = zero_pair((2, 1), (4, 1), "@0|root:root", "@1|root:root")
    within = zero_pair((3, 1), (4, 1), "@1|root:root", "@1|root:root")
    assert muc(*across, **options).recall == 0.0
    assert muc(*within, **options).recall == 1.0


# -- MUC-7: optional key markables ----------------------------------------------------------

MUC7_KEY = """<DOC><DOCNO> d1 </DOCNO><TEXT>
<COREF ID="1" MIN="Smith">John Smith</COREF> came . <COREF ID="2" REF="1">He</COREF> sat .
<COREF ID="3" REF="1" STATUS="OPT">the man</COREF> smiled .
<COREF ID="4" REF="1" STATUS="OPT" MIN="boss">the old boss</COREF> left .
</TEXT></DOC>
"""
MUC7_RESPONSE = """<DOC><DOCNO> d1 </DOCNO><TEXT>
<COREF ID="1">John Smith</COREF> came . <COREF ID="2" REF="1">He</COREF> sat .
the man smiled .
the <COREF ID="3" REF="1">old boss</COREF> left .
</TEXT></DOC>
"""


def test_muc7_optional_key_markables_count_only_where_the_response_marks_them(tmp_path):
    """MUC-7: "the man" (OPT, unmarked) is not scored; "the old boss" (OPT) is, since the
    response marks it (inside it, covering its MIN "boss")."""
    from scoring.readers import muc7

    (tmp_path / "key.sgml").write_text(MUC7_KEY)
    (tmp_path / "response.sgml").write_text(MUC7_RESPONSE)
    [key] = muc7.read(tmp_path / "key.sgml")
    [response] = muc7.read(tmp_path / "response.sgml")
    # partial matching aligns "old boss" with "the old boss": one key chain of 3, all found
    partial = muc(key, response, matching="partial-corefud")
    assert (partial.recall, partial.precision) == (1.0, 1.0)
    # exact: "the old boss" is unmatched, so the chain of 3 splits in two: (3 - 2) / (3 - 1)
    exact = muc(key, response)
    assert exact.recall == pytest.approx(1 / 2)
    # the same key read as another format keeps the optional markables: a chain of 4
    as_ua = dataclasses.replace(key, metadata={**key.metadata, "format": "ua"})
    assert muc(as_ua, response, matching="partial-corefud").recall == pytest.approx(2 / 3)


@st.composite
def compact_documents(draw):
    """A compact document on 20 words: empty nodes (rank 1) before some words, mentions of
    words with some of those empty nodes inside and a word or empty head, zero mentions with
    dependencies (a parent of their own, so no two zeros tie)."""
    empty = sorted(draw(st.sets(st.integers(1, 19), max_size=5)))
    mentions: dict[frozenset, tuple] = {}
    for _ in range(draw(st.integers(1, 10))):
        entity = f"e{draw(st.integers(0, 3))}"
        if empty and draw(st.integers(0, 3)) == 0:  # a zero mention
            p = draw(st.sampled_from(empty))
            fields = {
                "zero": 1,
                "head": p,
                "head_zero": 1,
                "attributes": (("deps", f"{p - 1}:nsubj"),),
            }
            mentions.setdefault(frozenset({(p - 1, 1)}), (entity, [(p, p)], fields))
            continue
        start = draw(st.integers(0, 19))
        end = min(19, start + draw(st.integers(0, 3)))
        inside = [p for p in empty if start < p <= end]
        zeros = tuple((p, 1) for p in inside if draw(st.booleans()))
        nodes = [(t, 0) for t in range(start, end + 1)] + list(zeros)
        head, rank = draw(st.sampled_from(nodes))
        fields = {"zeros": zeros, "head": head, "head_zero": rank}
        if rank:
            fields["attributes"] = (("deps", f"{head - 1}:obj"),)
        else:
            fields["min_span"] = (head, head)
        key = frozenset((t, 0) for t in range(start, end + 1)) | {(p - 1, 1) for p, _ in zeros}
        mentions.setdefault(key, (entity, [(start, end)], fields))
    return compact_doc(list(mentions.values()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    compact_documents(),
    st.sampled_from(["exact", "head", "partial-corefud"]),
    st.sampled_from(["linear", "dependent"]),
)
def test_a_compact_document_with_empty_nodes_scores_one_against_itself(doc, matching, method):
    """Whatever the matching and zero method, a key is a perfect response to itself."""
    options = ScoringOptions(
        matching=matching,
        keep_zeros=True,
        zero_match_method=method,
        extra_metrics=("mention", "mor", "zero"),
    )
    result = score_corpus([(doc, doc)], options)
    for name, metric in result.metrics.items():
        if any(c.r_den or c.p_den for c in metric.counts):
            assert (name, metric.prf.recall, metric.prf.precision) == (
                name,
                pytest.approx(1.0),
                pytest.approx(1.0),
            )


def test_the_zero_metric_asks_each_side_whether_a_mention_is_a_zero():
    """Words 0-2 + 2.1 headed by the empty node in the key, by word 0 in the response: the
    same mention (exact), a zero only in the key. As a non-first response mention no key
    anaphor covers it, but it is no response zero, so no false positive (v2 asks each side)."""
    key = compact_doc([("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 2, "head_zero": 1})])
    response = compact_doc(
        [("e1", [(0, 0)], {"head": 0}), ("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 0})]
    )
    options = ScoringOptions(keep_zeros=True, extra_metrics=("zero",))
    assert score_corpus([(key, response)], options).metrics["zero"].counts[0] == PRCounts()
    # with the heads the other way round the response mention is a zero, non-first and
    # covered by no key anaphor: one false positive
    key = compact_doc([("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 0})])
    response = compact_doc(
        [
            ("e1", [(0, 0)], {"head": 0}),
            ("e1", [(0, 2)], {"zeros": ((2, 1),), "head": 2, "head_zero": 1}),
        ]
    )
    assert score_corpus([(key, response)], options).metrics["zero"].counts[0] == PRCounts(
        0, 1, 0, 0
    )


def test_the_collector_is_paused_and_what_was_made_meanwhile_is_not_scanned_young():
    """`paused_gc`: no collection during the block; after it, the collector is on again and
    the block's objects are in the oldest generation, so the first collection after does
    not scan them all as young objects; nested uses leave it paused until the outer one."""
    import gc

    from scoring.engine import paused_gc

    assert gc.isenabled()
    frozen = gc.get_freeze_count()  # Python 3.12 starts with its immortal tuples frozen
    collections = []
    gc.callbacks.append(lambda phase, info: phase == "stop" and collections.append(info))
    try:
        with paused_gc():
            made = [[n] for n in range(50_000)]
            with paused_gc():
                assert not gc.isenabled()
            assert not gc.isenabled()
        if (3, 12) <= sys.version_info[:3] < (3, 12, 3):
            # CPython 3.12.0-3.12.2 still run a collection scheduled just before
            # gc.disable() (gh-116604, fixed in 3.12.3): that one
            assert len(collections) <= 1
        else:
            assert not collections
        assert gc.isenabled()
        if frozen:  # what is frozen is never given back, so the block's objects stay young
            assert gc.get_freeze_count() == frozen
        else:
            assert gc.get_count()[0] < 100
            oldest = {id(item) for item in gc.get_objects(generation=2)}
            assert id(made) in oldest and id(made[-1]) in oldest
    finally:
        gc.callbacks.pop()

    del made
    gc.freeze()  # a process that froze its heap (config/heap.py) keeps it frozen
    try:
        count = gc.get_freeze_count()
        with paused_gc():
            _made = [[n] for n in range(1000)]  # kept alive while the counts are compared
        assert gc.get_freeze_count() >= count - 100 and gc.isenabled()  # (unfrozen: 0)
    finally:
        gc.unfreeze()

    gc.disable()  # a caller that paused it itself keeps it paused
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
