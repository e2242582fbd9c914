"""`scoring.native._tables` does two steps of scoring a document in C:

- `plain_counts` counts every coreference metric of a table without accommodated sets in one
  pass (`scoring.metrics.plain.TableCounts`), where the metric functions of
  scoring/metrics/coref.py count the same table in Python; CEAF's components of many
  entities are solved by the compiled solver there, by scipy's here;
- `set_counts` counts one metric of a table with sets, given the metric's alignment of the
  sets (`scoring.metrics.plain.SetTable`);
- `layer_groups` groups a layer's markables into entities (`scoring.clusters._groups`), and
  `layer_clusters` makes the scored clusters of them (`scoring.clusters._clusters`).

Both ways must give the same doubles and the same clusters, not merely close ones: a score
must not depend on whether `make venv` built the module. What they do not take (tables with
sets, layers with empty nodes, anything not plain) goes to Python.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

import pytest

from bench.corpus import Shape, write_pair
from scoring import assignment, clusters, engine
from scoring.clusters import AccommodatedSet, Partition, SpanCoder
from scoring.metrics import COREF_METRICS, NO_SPLITS, Contingency, SplitMaps, plain
from scoring.model import Markable
from scoring.options import parse_options
from scoring.plan import ScoringPlan
from scoring.readers import exploded

native = plain._native_plain_counts
METRICS = [metric for functions in COREF_METRICS.values() for metric in functions]


def test_the_extension_is_built():
    """`make venv` compiles scoring/native/_tables.c (setup.py); without it each metric
    counts its table in Python."""
    assert native is not None, "scoring.native._tables is not built: run `make venv`"
    assert plain._plain_counts is native
    assert clusters._layer_groups is clusters._native_layer_groups is not None
    assert clusters._layer_clusters is clusters._native_layer_clusters is not None
    assert plain._set_counts is plain._native_set_counts is not None


def python_counts(key: Partition, response: Partition, inner: bool) -> dict:
    with scipys_solver():
        table = Contingency(key, response)
        return {metric: metric(table, NO_SPLITS, inner) for metric in METRICS}


@contextlib.contextmanager
def scipys_solver():
    """Within it, `scoring.assignment` solves with scipy and adds with numpy, not with the
    compiled twin that `_tables` shares (lsap.h): the Python way is then Python all through."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(assignment, "_solve", None)
        patch.setattr(assignment, "_assigned_sum", None)
        yield


def compiled_counts(key: Partition, response: Partition, inner: bool) -> dict:
    counts = plain.TableCounts(key, response, inner)
    assert counts.counts, "the compiled pass did not take a plain table"
    assert counts.table is None
    return {metric: counts[metric] for metric in METRICS}


def partition(clusters: list[list[int]]) -> Partition:
    return Partition(clusters, [None] * len(clusters))


def random_side(rng: random.Random, codes: int, repeats: bool) -> list[list[int]]:
    """Clusters over some of ``codes`` mention codes: singletons, large clusters, and with
    ``repeats`` a code in two clusters or twice in one (members of accommodated sets keep every
    markable, so a member cluster can hold a span twice)."""
    pool = list(range(codes))
    rng.shuffle(pool)
    pool = pool[: rng.randint(0, codes)]
    clusters: list[list[int]] = []
    while pool:
        size = rng.choice((1, 1, 2, 3, 5, 8, 20))
        clusters.append(pool[:size])
        pool = pool[size:]
    if repeats and clusters and codes:
        for _ in range(rng.randint(1, 4)):
            rng.choice(clusters).append(rng.randrange(codes))
    return clusters


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_count_the_same_both_ways(seed):
    rng = random.Random(seed)
    for _ in range(60):
        codes = rng.choice((1, 3, 10, 40, 200))
        key = partition(random_side(rng, codes, repeats=rng.random() < 0.3))
        response = partition(random_side(rng, codes, repeats=rng.random() < 0.3))
        inner = rng.random() < 0.5
        assert compiled_counts(key, response, inner) == python_counts(key, response, inner)


def test_large_components_are_solved_in_batches_alike():
    """Components of many entities go to the assignment solver in batches (the same batches
    either way); one-to-one components are summed first either way."""
    rng = random.Random(7)
    key = partition([[rng.randrange(3000) for _ in range(6)] for _ in range(400)])
    response = partition([[rng.randrange(3000) for _ in range(5)] for _ in range(500)])
    key.clusters[:] = [list(dict.fromkeys(c)) for c in key.clusters]
    key.sizes[:] = [len(c) for c in key.clusters]
    response.clusters[:] = [list(dict.fromkeys(c)) for c in response.clusters]
    response.sizes[:] = [len(c) for c in response.clusters]
    assert compiled_counts(key, response, False) == python_counts(key, response, False)


def test_many_components_fill_many_batches_alike():
    """Blocks of 3-5 key and 3-5 response clusters, each key cluster meeting each response
    cluster of its block: hundreds of components of many entities, solved some twenty to a
    batch; every batch's sum counts."""
    rng = random.Random(11)
    key_side: list[list[int]] = []
    response_side: list[list[int]] = []
    code = 0
    for _ in range(400):
        rows, cols = rng.randint(3, 5), rng.randint(3, 5)
        grid = [
            [
                list(
                    range(code + (x * cols + y) * 2, code + (x * cols + y) * 2 + rng.randint(1, 2))
                )
                for y in range(cols)
            ]
            for x in range(rows)
        ]
        code += rows * cols * 2
        key_side += [[c for cell in grid[x] for c in cell] for x in range(rows)]
        response_side += [[c for x in range(rows) for c in grid[x][y]] for y in range(cols)]
    key, response = partition(key_side), partition(response_side)
    counts = compiled_counts(key, response, False)
    assert counts == python_counts(key, response, False)
    assert counts[METRICS[0]].r_den > 0


def test_empty_sides():
    empty = partition([])
    other = partition([[0, 1], [2]])
    for key, response in ((empty, empty), (empty, other), (other, empty)):
        assert compiled_counts(key, response, True) == python_counts(key, response, True)


@pytest.mark.parametrize(
    "clusters",
    [
        [[0, 1], []],  # an empty cluster
        [(0, 1)],  # not a list
        [[0, -1]],  # a negative code
        [[0, "1"]],  # not an int
        [[0, True]],  # not exactly an int
        [[0, 1 << 40]],  # beyond the codes a document has
    ],
)
def test_tables_that_are_not_plain_go_to_python(clusters):
    assert native(clusters, [[0]], False) is None
    assert native([[0]], clusters, True) is None


def set_side(rng: random.Random, codes: int, identities: list) -> Partition:
    """Clusters as `random_side`, some with an accommodated set (a few with no mention
    besides it); the sets' identities drawn from ``identities``, so that the two sides share
    some."""
    found = random_side(rng, codes, repeats=rng.random() < 0.3)
    found += [[] for _ in range(rng.randint(0, 2))]
    sets = []
    for cluster in found:
        if not cluster or rng.random() < 0.3:
            members = rng.choice(identities)
            sets.append(AccommodatedSet(members, frozenset(members)))
        else:
            sets.append(None)
    return Partition(found, sets)


def random_maps(rng: random.Random, key: Partition, response: Partition) -> SplitMaps:
    """An alignment of the sets as `SetPairs.align` gives one: set clusters to the other
    side's set clusters with scores in (0, 1]; sometimes a map entry from a cluster without a
    set too (CEAF reads the F map whatever the cluster)."""

    def aligned(side: Partition, other: Partition) -> dict:
        targets = [j for j, s in enumerate(other.sets) if s is not None] or [None]
        out = {}
        for i, s in enumerate(side.sets):
            if (s is not None or rng.random() < 0.05) and other.clusters and rng.random() < 0.8:
                j = rng.choice(targets)
                j = rng.randrange(len(other.clusters)) if j is None else j
                out[i] = (j, rng.choice((1.0, 0.5, rng.random() or 0.1)))
        return out

    return SplitMaps(aligned(key, response), aligned(response, key), aligned(key, response))


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_with_sets_count_the_same_both_ways(seed):
    rng = random.Random(seed)
    for _ in range(40):
        codes = rng.choice((3, 10, 40))
        identities = [
            tuple((rng.randrange(50),) for _ in range(rng.randint(2, 3))) for _ in range(3)
        ]
        key, response = set_side(rng, codes, identities), set_side(rng, codes, identities)
        if not (key.has_sets or response.has_sets):
            continue
        maps = random_maps(rng, key, response)
        table = plain.SetTable(key, response)
        python = Contingency(key, response)
        for metric in METRICS:
            assert table.counts_of(metric, maps) == metric(python, maps), metric.__name__
        assert table.table is None, "a table the compiled counts did not take"


def test_set_counts_refuses_what_it_does_not_expect():
    key = Partition([[0, 1], []], [None, AccommodatedSet(((2,),), frozenset({(2,)}))])
    response = partition([[0], [1]])
    args = [
        key.clusters,
        response.clusters,
        key.sets,
        response.sets,
        [None, None],
        [None, None],
        {},
        {},
        {},
    ]
    assert native_sets(0, *args) is not None
    for index, wrong in [
        (5, [None]),
        (5, [None, 7]),
        (6, [0, "1"]),
        (8, {0: (5, 1.0)}),
        (8, {0: (1, 1)}),
        (7, {9: (0, 1.0)}),
        (2, [None, None, None]),
        (1, [[0, 1], None]),
    ]:
        changed = list(args)
        changed[index] = wrong
        assert native_sets(0, *changed) is None, (index, wrong)
    assert (
        native_sets(0, key.clusters, response.clusters, [None, None], response.sets, *args[4:])
        is None
    )  # an empty cluster without a set
    assert native_sets(9, *args) is None


native_sets = plain._native_set_counts


def test_tables_with_accommodated_sets_go_to_python(monkeypatch):
    called = []
    monkeypatch.setattr(plain, "_plain_counts", lambda *args: called.append(args))

    members = ((0,), (1,))
    with_set = Partition([[2, 3]], [AccommodatedSet(members, frozenset(members))])
    counts = plain.TableCounts(with_set, partition([[2, 3]]))
    assert not called and not counts.counts
    assert counts[METRICS[0]] == METRICS[0](Contingency(with_set, partition([[2, 3]])), NO_SPLITS)


MODES = [
    [],
    ["remove_singletons"],
    ["remove_split_antecedent"],
    ["only_split_antecedent"],
    ["min"],
    ["keep_non_referring", "keep_bridging"],
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("plain")
    return write_pair(folder, Shape(documents=120, split_share=0.15), name="plain")


@pytest.mark.parametrize("words", MODES, ids=lambda w: "+".join(w) or "default")
def test_documents_score_the_same_both_ways(corpus, words, monkeypatch):
    """Every document's counts, warnings and scores, in each mode, with and without the
    compiled pass (documents with split antecedents mix both: their member tables are plain)."""
    plan = ScoringPlan.compile(parse_options(words).options)
    key_path, response_path = corpus
    keys = list(exploded.iter_documents(str(key_path), **plan.reader("key").settings()))
    responses = list(
        exploded.iter_documents(str(response_path), **plan.reader("response").settings())
    )
    compiled = [engine.score_document(k, r, plan) for k, r in zip(keys, responses)]
    monkeypatch.setattr(plain, "_plain_counts", None)
    monkeypatch.setattr(plain, "_set_counts", None)
    monkeypatch.setattr(clusters, "_layer_groups", None)
    monkeypatch.setattr(clusters, "_layer_groups_all", None)
    monkeypatch.setattr(clusters, "_layer_clusters", None)
    monkeypatch.setattr(assignment, "_solve", None)
    monkeypatch.setattr(assignment, "_assigned_sum", None)
    python = [engine.score_document(k, r, plan) for k, r in zip(keys, responses)]
    assert compiled == python
    assert engine.summarize(compiled, plan) == engine.summarize(python, plan)


def random_markables(rng: random.Random, count: int) -> list[Markable]:
    """Markables of a few entities, some spans repeated (in one entity or two), some entities
    elements of plurals, some non-referring."""
    entities = [str(e) for e in range(max(1, count // 3))] + ["7-Pseudo"]
    spans = [((s, s + rng.randint(0, 2)),) for s in range(count)]
    out = []
    for n in range(count):
        parts = rng.choice(spans) if rng.random() < 0.2 else spans[n]
        if rng.random() < 0.1:
            parts = (*parts, (count + n, count + n))  # discontinuous
        element_of = tuple(rng.sample(entities, rng.randint(1, 2))) if rng.random() < 0.1 else ()
        out.append(Markable(f"m{n}", rng.choice(entities), parts, n + 1, element_of=element_of))
    return out


def groups_both_ways(markables, coder_state=()):
    coders = []
    for _ in range(2):
        coder = SpanCoder()
        for key in coder_state:  # codes given by the other side first
            if key not in coder.codes:
                coder.codes[key] = len(coder.keys)
                coder.keys.append(key)
        coders.append(coder)
    zero_codes, zero_heads, deps = set(), {}, {}
    python = clusters._groups(markables, coders[0], zero_codes, zero_heads, deps)
    compiled = native_groups(markables, coders[1].codes, coders[1].keys)
    return python, compiled, coders


native_groups = clusters._native_layer_groups


@pytest.mark.parametrize("seed", range(30))
def test_layer_groups_both_ways(seed):
    rng = random.Random(seed)
    for _ in range(20):
        markables = random_markables(rng, rng.choice((0, 1, 5, 30, 120)))
        other_side = [(m.parts, 0) for m in random_markables(rng, 10)]
        python, compiled, coders = groups_both_ways(markables, other_side)
        assert compiled is not None
        *same, duplicated = compiled
        assert tuple(same) == python
        assert [list(g.items()) for g in same[1:]] == [list(g.items()) for g in python[1:]]
        assert coders[0].keys == coders[1].keys and coders[0].codes == coders[1].codes
        assert duplicated == any(len(set(c)) != len(c) for c in python[1].values())


@pytest.mark.parametrize(
    "markable",
    [
        Markable("m1", "1", ((0, 0),), 1, zero=1),
        Markable("m1", "1", ((0, 2),), 1, zeros=((1, 1),)),
        Markable("m1", "1", ((0, 0),), 1, head=0, head_zero=1),
        ("m1", "1", ((0, 0),), 1),  # not a markable's fields
    ],
)
def test_layers_with_empty_nodes_go_to_python(markable):
    coder = SpanCoder()
    assert (
        native_groups([Markable("m0", "1", ((3, 3),), 1), markable], coder.codes, coder.keys)
        is None
    )
    assert coder.keys == [] and coder.codes == {}


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("words", MODES[:3], ids=lambda w: "+".join(w) or "default")
def test_layer_clusters_both_ways(seed, words):
    """The scored clusters, sets, entity ids and non-referring codes of random layers."""
    plan = ScoringPlan.compile(parse_options(words).options)
    rng = random.Random(seed)
    for _ in range(10):
        markables = random_markables(rng, rng.choice((1, 5, 30, 120)))
        coder = SpanCoder()
        grouped = native_groups(markables, coder.codes, coder.keys)
        _, groups, first, split_lists, duplicated = grouped
        if duplicated:
            continue
        for pseudo in (True, False):
            try:
                python = clusters._clusters(
                    groups, groups, split_lists, first, set(), plan, "f", pseudo
                )
            except Exception as problem:  # an ElementOf cycle: both raise it
                with pytest.raises(type(problem), match="cycle"):
                    clusters._native_layer_clusters(
                        groups,
                        split_lists,
                        plan.keep_split_antecedents,
                        plan.keep_singletons,
                        pseudo,
                        clusters.accommodated_set,
                        (groups, split_lists, first, "f"),
                    )
                continue
            compiled = clusters._native_layer_clusters(
                groups,
                split_lists,
                plan.keep_split_antecedents,
                plan.keep_singletons,
                pseudo,
                clusters.accommodated_set,
                (groups, split_lists, first, "f"),
            )
            assert compiled == python


def markables_with_empty_nodes(rng: random.Random, count: int) -> list[Markable]:
    """`random_markables` with what `layer_groups_all` must code as `_groups` does: zeros,
    empty nodes inside mentions (some before the first word), heads that are words, empty
    nodes or missing, DEPS attributes (one given twice), Min spans."""
    out = []
    for m in random_markables(rng, count):
        start = m.parts[0][0]
        roll = rng.random()
        fields: dict = {}
        if roll < 0.2:
            fields["zero"] = rng.randint(1, 2)
        elif roll < 0.4:
            fields["zeros"] = tuple(
                sorted({(start + rng.randint(0, 2), rng.randint(1, 2)) for _ in range(2)})
            )
        if rng.random() < 0.6:
            fields["head"] = start + rng.randint(0, 1)
            fields["head_zero"] = rng.choice((0, 0, 1))
        if rng.random() < 0.3:
            fields["min_span"] = (start, start)
        deps = [("deps", f"{rng.randint(0, 9)}:nsubj")] if rng.random() < 0.8 else []
        if rng.random() < 0.2:
            deps.append(("deps", "0:root"))
        fields["attributes"] = (("etype", "person"), *deps)
        out.append(m._replace(**fields))
    return out


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("head_identity", [False, True])
@pytest.mark.parametrize("with_spans", [False, True])
def test_layer_groups_all_both_ways(seed, head_identity, with_spans):
    """Codes, groups, first markables, split lists, the zeros' codes, head nodes and DEPS,
    the Min spans and heads, and the coder, as `_groups` makes them, in the same orders."""
    rng = random.Random(seed)
    for _ in range(10):
        markables = markables_with_empty_nodes(rng, rng.choice((0, 1, 5, 30, 120)))
        other_side = random_markables(rng, 10)
        made = []
        for compiled in (False, True):
            coder = SpanCoder(head_identity)
            for m in other_side:
                coder.code(m)
            filled: tuple = (set(), {}, {}, ({}, {}) if with_spans else None)
            if compiled:
                groups = clusters._native_layer_groups_all(
                    markables, coder.codes, coder.keys, head_identity, *filled
                )
            else:
                groups = clusters._groups(markables, coder, *filled)
            made.append((groups, filled, coder))
        (python, p_filled, p_coder), (native, n_filled, n_coder) = made
        assert native == python
        assert [list(g.items()) for g in native[1:]] == [list(g.items()) for g in python[1:]]
        assert n_filled == p_filled
        assert [list(d.items()) for d in n_filled[1:3]] == [list(d.items()) for d in p_filled[1:3]]
        if with_spans:
            assert [list(d.items()) for d in n_filled[3]] == [list(d.items()) for d in p_filled[3]]
        assert n_coder.keys == p_coder.keys and n_coder.codes == p_coder.codes


@pytest.mark.parametrize(
    "markable",
    [
        ("m1", "1", ((0, 0),), 1),  # not a markable's fields
        Markable("m1", "1", ((0, 0),), 1, zero=True),  # not an int
        Markable("m1", "1", ((0, 0),), 1, zero=1, attributes=(("deps", "1:x", "y"),)),
        Markable("m1", "1", ((0, 2),), 1, zeros=((1, "1"),)),
        Markable("m1", "1", ((0, 0),), 1, head=0.0),
    ],
)
def test_layer_groups_all_leaves_what_it_does_not_take_to_python(markable):
    coder = SpanCoder(True)
    filled: tuple = (set(), {}, {}, ({}, {}))
    taken = clusters._native_layer_groups_all(
        [Markable("m0", "1", ((3, 3),), 1, zero=1), markable],
        coder.codes,
        coder.keys,
        True,
        *filled,
    )
    assert taken is None
    assert coder.keys == [] and coder.codes == {} and filled == (set(), {}, {}, ({}, {}))
