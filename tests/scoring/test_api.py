"""The Python API the platform calls: score_files, read_documents, validate_response."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import scoring
from scoring import read_documents, score_files, validate_response
from scoring.errors import UsageError
from tests.paths import CONFORMANCE, GUM

SEED = CONFORMANCE / "ua-generated" / "seed-017"  # 3 documents, split, NR, bridging, DD
TOP_KEYS = {"mode", "metrics", "conll", "non_referring", "bridging", "documents", "warnings"}


def seed_files() -> tuple[str, str]:
    return str(SEED / "key.conllua"), str(SEED / "sys.conllua")


def test_the_result_has_the_documented_keys_and_only_selected_metrics():
    """The JSON object: mode, selected metrics, conll, NR, bridging, documents, warnings."""
    key, response = seed_files()
    result = score_files(key, response, ["muc", "bcub"])
    assert set(result) == TOP_KEYS
    assert list(result["metrics"]) == ["muc", "bcub"] and result["conll"] is None
    assert result["non_referring"] is None and result["bridging"] is None
    assert result["mode"]["keep_singletons"] and result["mode"]["style"] == "v1"
    assert result["documents"] == ["gen/s17/doc_0", "gen/s17/doc_1", "gen/s17/doc_2"]
    assert json.loads(json.dumps(result)) == result


def test_it_matches_the_reference_numbers_of_a_three_document_case():
    """MUC, B³, CEAF, CoNLL, NR and bridging of v1 `keep_non_referring keep_bridging`."""
    key, response = seed_files()
    mode = "keep_non_referring keep_bridging"
    expected = json.loads((SEED / "expected-v1.json").read_text())["modes"][mode]
    result = score_files(key, response, mode.split())
    for name in ("muc", "bcub", "ceafe", "ceafm"):
        for field in ("recall", "precision", "f1"):
            assert result["metrics"][name][field] == pytest.approx(
                expected["scores"][name][field], abs=1e-9
            )
    assert result["conll"] == pytest.approx(expected["conll"], abs=1e-9)
    for level in ("anaphora_recognition", "mention", "entity"):
        assert result["bridging"][level] == pytest.approx(expected["bridging"][level], abs=1e-9)
    assert set(result["bridging"]["by_relation"]) <= {
        "poss",
        "poss-inv",
        "subset",
        "subset-inv",
        "element",
        "element-inv",
        "other",
        "other-inv",
        "undersp-rel",
        "unknown",
        "part-of",
        "part-of-inv",
        "",
    }


def test_per_document_counts_add_up_to_the_corpus_scores():
    """--per-doc counts micro-sum to the corpus R and P; BLANC has two count sets."""
    key, response = seed_files()
    result = score_files(key, response, ["--per-doc", "keep_bridging", "keep_non_referring"])
    per_doc = result["per_document"]
    assert list(per_doc) == result["documents"]
    for name in ("muc", "bcub", "ceafe", "ceafm"):
        counts = [per_doc[doc][name]["counts"] for doc in per_doc]
        r = sum(c["r_num"] for c in counts) / sum(c["r_den"] for c in counts)
        p = sum(c["p_num"] for c in counts) / sum(c["p_den"] for c in counts)
        assert (r, p) == pytest.approx(
            (result["metrics"][name]["recall"], result["metrics"][name]["precision"]), abs=1e-12
        )
    assert all(len(per_doc[doc]["blanc"]["counts"]) == 2 for doc in per_doc)
    tp = sum(per_doc[doc]["bridging"]["entity"]["tp"] for doc in per_doc)
    fn = sum(per_doc[doc]["bridging"]["entity"]["fn"] for doc in per_doc)
    assert tp / (tp + fn) == pytest.approx(result["bridging"]["entity"]["recall"])
    nr = [per_doc[doc]["non_referring"] for doc in per_doc]
    total = sum(c["tp"] for c in nr) + sum(c["fn"] for c in nr)
    assert sum(c["tp"] for c in nr) / total == pytest.approx(result["non_referring"]["recall"])


def test_a_response_with_its_documents_in_another_order_scores_the_same(tmp_path):
    """Documents pair by name, not position."""
    key, response = seed_files()
    text = Path(response).read_text(encoding="utf-8")
    header, *docs = text.split("# newdoc")
    shuffled = tmp_path / "shuffled.conllua"
    shuffled.write_text(header + "".join("# newdoc" + d for d in reversed(docs)), encoding="utf-8")
    options = ["keep_bridging", "--per-doc"]
    assert score_files(key, str(shuffled), options) == score_files(key, response, options)


def test_score_files_raises_usage_errors_for_bad_options():
    """No printing, no exit: a UsageError."""
    key, response = seed_files()
    with pytest.raises(UsageError):
        score_files(key, response, ["keep-bridging"])


def test_read_documents_reads_every_layer_and_the_layout():
    """read_documents on an exploded file: identity, bridging, DD and sentences."""
    key, _ = seed_files()
    docs = read_documents(key)
    assert [d.name for d in docs] == ["gen/s17/doc_0", "gen/s17/doc_1", "gen/s17/doc_2"]
    assert all(d.identity and d.sentences for d in docs)
    assert any(d.bridging for d in docs) and any(d.discourse_deixis for d in docs)


def test_read_documents_detects_a_compact_file():
    """format="auto" hands a CorefUD file to the compact reader."""
    gum = GUM / "GUM_voyage_coron.conllu"
    docs = read_documents(str(gum))
    assert len(docs) == 1 and docs[0].identity
    assert len(docs[0].tokens) == 582


def test_validate_response_accepts_a_good_pair():
    """No problem: an empty list."""
    key, response = seed_files()
    assert validate_response(key, response, []) == []
    assert validate_response(key, response, ["evaluate_discourse_deixis"]) == []


def test_validate_response_lists_every_problem_in_both_files(tmp_path):
    """Parse errors, token mismatches and missing documents together, capped."""
    key, response = seed_files()
    lines = Path(response).read_text(encoding="utf-8").splitlines()
    broken, seen_tokens = [], 0
    for text in lines:
        if text.startswith("# newdoc id = gen/s17/doc_2"):
            break  # drop the last document
        cells = text.split("\t")
        if len(cells) > 10 and not text.startswith("#"):
            seen_tokens += 1
            if seen_tokens == 3:
                cells[1] = "CHANGED"
            if seen_tokens == 5:
                cells[10] = "x" + cells[10]
            if seen_tokens == 7:
                cells[10] = "(EntityID=1|MarkableId=oops)"
        broken.append("\t".join(cells))
    bad = tmp_path / "bad.conllua"
    bad.write_text("\n".join(broken) + "\n", encoding="utf-8")
    problems = validate_response(key, str(bad), [])
    codes = [p.code for p in problems]
    assert {"bad_cell", "missing_markable_id", "missing_documents", "token_mismatch"} <= set(codes)
    assert all(str(p).startswith(str(bad)) for p in problems)
    assert len(validate_response(key, str(bad), [], max_problems=2)) == 2


def test_the_version_is_exported():
    """Score rows record scoring.__version__."""
    assert isinstance(scoring.__version__, str) and scoring.__version__.count(".") == 2


# -- two processes give the numbers of one ---------------------------------------------------
from scoring import forked, pairing, runner  # noqa: E402
from scoring.errors import ScoringInputError  # noqa: E402
from scoring.forked import ChildDied  # noqa: E402


def corpus(tmp_path: Path, documents: int = 16) -> tuple[str, str]:
    from bench.corpus import Shape, write_pair

    key, response = write_pair(
        tmp_path,
        Shape(
            documents=documents,
            tokens=150,
            mentions=18,
            split_share=0.1,
            bridging_share=0.07,
            dd_per_document=2,
            seed=7,
        ),
    )
    return str(key), str(response)


def halves_taken(monkeypatch) -> list:
    taken = []
    halves = runner.halves
    monkeypatch.setattr(
        runner, "halves", lambda pairing: taken.append(halves(pairing)) or taken[-1]
    )
    return taken


@pytest.mark.parametrize(
    "words",
    [
        ["--per-doc"],
        ["--per-doc", "keep_non_referring", "keep_bridging"],
        ["--per-doc", "evaluate_discourse_deixis"],
        ["--per-doc", "remove_singletons", "remove_split_antecedent", "lea", "blanc"],
    ],
)
def test_two_processes_give_every_number_of_one(tmp_path, monkeypatch, words):
    key, response = corpus(tmp_path)
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 4)
    taken = halves_taken(monkeypatch)
    one = score_files(key, response, words, processes=1)
    two = score_files(key, response, words, processes=2)
    assert taken[-1] is not None  # the run was parted
    assert two == one
    assert json.dumps(two) == json.dumps(one)  # same floats, same order
    assert len(one["per_document"]) == 16


def test_two_processes_read_extra_and_missing_response_documents_as_one(tmp_path, monkeypatch):
    key, response = corpus(tmp_path)
    text = Path(response).read_text()
    parts = text.split("# newdoc id = ")
    # drop the 4th and the 12th document, and add one the key does not have after the 8th
    extra = parts[9].replace("bench/doc_8", "bench/extra", 1)
    parts = parts[:4] + parts[5:9] + [extra] + parts[9:12] + parts[13:]
    Path(response).write_text("# newdoc id = ".join(parts))
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 4)
    taken = halves_taken(monkeypatch)
    for words in (
        ["--per-doc", "--missing-documents", "skip"],
        ["--per-doc", "--missing-documents", "empty"],
    ):
        one = score_files(key, response, words, processes=1)
        two = score_files(key, response, words, processes=2)
        assert taken[-1] is not None
        assert two == one
        assert len(one["documents"]) in (14, 16) and one["warnings"]


def test_two_processes_raise_the_error_one_would(tmp_path, monkeypatch):
    key, response = corpus(tmp_path)
    lines = Path(response).read_text().split("\n")
    late = max(i for i, line in enumerate(lines) if line.startswith("20\t"))
    early = min(i for i, line in enumerate(lines) if line.startswith("20\t"))
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 4)
    taken = halves_taken(monkeypatch)
    for bad in ([late], [early, late]):
        broken = list(lines)
        for index in bad:
            cells = broken[index].split("\t")
            cells[10] = "x" + cells[10]
            broken[index] = "\t".join(cells)
        Path(response).write_text("\n".join(broken))
        raised = []
        for processes in (1, 2):
            with pytest.raises(ScoringInputError) as error:
                score_files(key, response, [], processes=processes)
            raised.append(
                (str(error.value), error.value.code, error.value.line, error.value.document)
            )
        assert taken[-1] is not None
        assert raised[0] == raised[1]
        assert raised[0][1:3] == ("bad_cell", bad[0] + 1)


def test_one_process_is_forced_by_the_environment_or_the_argument(tmp_path, monkeypatch):
    key, response = corpus(tmp_path, documents=6)
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 2)
    taken = halves_taken(monkeypatch)
    monkeypatch.setenv("UA_SCORER_PROCESSES", "1")
    one = score_files(key, response, ["--per-doc"])
    assert taken == []
    monkeypatch.setenv("UA_SCORER_PROCESSES", "2")
    assert score_files(key, response, ["--per-doc"]) == one and taken[-1] is not None
    monkeypatch.delenv("UA_SCORER_PROCESSES")
    score_files(key, response, ["--per-doc"], processes=1)
    assert len(taken) == 1
    assert runner.processes_setting(None) == (__import__("os").cpu_count() or 1)


def test_a_response_in_another_order_or_few_documents_stay_in_one_process(tmp_path, monkeypatch):
    key, response = corpus(tmp_path, documents=6)
    taken = halves_taken(monkeypatch)
    score_files(key, response, [], processes=2)
    assert taken == [None]  # 6 documents: not worth a second process
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 2)
    text = Path(response).read_text()
    header, *documents = text.split("# newdoc id = ")
    Path(response).write_text("# newdoc id = ".join([header] + documents[::-1]))
    assert score_files(key, response, [], processes=2) == score_files(
        key, response, [], processes=1
    )
    assert taken[-1] is None


def test_where_no_process_can_be_forked_one_process_scores(tmp_path, monkeypatch):
    key, response = corpus(tmp_path, documents=6)
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 2)
    one = score_files(key, response, ["--per-doc"], processes=1)
    monkeypatch.setattr(forked, "may_fork", lambda: False)
    taken = halves_taken(monkeypatch)
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert taken[-1] is not None


def test_a_daemonic_pool_process_scores_alone(tmp_path, monkeypatch):
    """A pool's daemonic process (multiprocessing's here; billiard's in a Celery worker) may
    not have children of its own: it scores the halves itself, and forks nothing."""
    import multiprocessing

    key, response = corpus(tmp_path, documents=6)
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 2)
    monkeypatch.setattr(runner, "EARLY_SCAN_BYTES", 0)
    one = score_files(key, response, ["--per-doc"], processes=1)
    forks: list[int] = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    taken = halves_taken(monkeypatch)

    def work(sender) -> None:
        forks.clear()
        result = score_files(key, response, ["--per-doc"], processes=2)
        sender.send((forked.may_fork(), len(forks), taken[-1] is not None, result))

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=work, args=(sender,), daemon=True)
    process.start()
    may_fork, forks_there, cut, result = receiver.recv()
    process.join()
    assert (may_fork, forks_there, cut) == (False, 0, True)
    assert result == one
    forks.clear()  # and here, in a process of its own, it forks: a scan and a half
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert len(forks) == 2


def test_reader_warnings_of_other_formats_reach_the_report(tmp_path):
    """A compact file's dangling SplitAnte is a warning of the reader, and the report says so."""
    rows = [
        "\t".join([i, f"w{i}", "_", "_", "_", "_", "0", "_", "_", misc]) + "\n"
        for i, misc in (
            ("1", "Entity=(e1-x-1-)"),
            ("2", "Entity=(e2-x-1-)"),
            ("3", "Entity=(e3-x-1-)|SplitAnte=e1<e3,e9<e3"),
        )
    ]
    path = tmp_path / "file.conllu"
    path.write_text(
        "# global.Entity = eid-etype-head-other\n# newdoc id = d\n"
        "# sent_id = 1\n# text = w1 w2 w3\n" + "".join(rows) + "\n",
        encoding="utf-8",
    )
    report = score_files(str(path), str(path), ["-f", "corefud"])
    assert any("e9" in warning for warning in report["warnings"])


# -- a response read in a second process while the key is read gives the numbers of one ------
def ahead_taken(monkeypatch) -> list:
    """Force the read-ahead on small files; record whether each run used it."""
    monkeypatch.setattr(runner, "READ_AHEAD_BYTES", 0)
    taken = []
    start = runner.ResponseAhead.start
    monkeypatch.setattr(
        runner.ResponseAhead,
        "start",
        classmethod(lambda cls, pairing: taken.append(start(pairing)) or taken[-1]),
    )
    return taken


@pytest.mark.parametrize(
    "words",
    [
        ["--per-doc"],
        ["--per-doc", "keep_non_referring", "keep_bridging"],
        ["--per-doc", "evaluate_discourse_deixis"],
        ["--per-doc", "--missing-documents", "empty"],
    ],
)
@pytest.mark.parametrize("order", [1, -1])
def test_a_response_read_ahead_gives_every_number_of_one(tmp_path, monkeypatch, words, order):
    key, response = corpus(tmp_path, documents=6)
    text = Path(response).read_text()
    header, *documents = text.split("# newdoc id = ")
    kept = documents[:4] if "empty" in words else documents  # two missing, or none
    Path(response).write_text("# newdoc id = ".join([header] + kept[::order]))
    taken = ahead_taken(monkeypatch)
    one = score_files(key, response, words, processes=1)
    assert taken == []
    two = score_files(key, response, words, processes=2)
    # in another order the whole response is needed at once: nothing to read meanwhile
    assert (taken[-1] is not None) == (order == 1)
    assert json.dumps(two) == json.dumps(one)


@pytest.mark.parametrize(
    "broken", [["response-late"], ["response-early", "key-late"], ["key-early", "response-late"]]
)
def test_a_response_read_ahead_raises_the_error_one_would(tmp_path, monkeypatch, broken):
    """The first error of one process, whichever file it is in: the response's errors are
    raised where reading here would have reached them."""
    key, response = corpus(tmp_path, documents=6)
    files = {"key": key, "response": response}
    for what in broken:
        side, where = what.split("-")
        lines = Path(files[side]).read_text().split("\n")
        rows = [i for i, line in enumerate(lines) if line.startswith("20\t")]
        index = rows[0] if where == "early" else rows[-1]
        cells = lines[index].split("\t")
        cells[10] = "x" + cells[10]
        lines[index] = "\t".join(cells)
        Path(files[side]).write_text("\n".join(lines))
    taken = ahead_taken(monkeypatch)
    raised = []
    for processes in (1, 2):
        with pytest.raises(ScoringInputError) as error:
            score_files(key, response, [], processes=processes)
        raised.append((error.value.path, error.value.line, error.value.code, str(error.value)))
    assert taken[-1] is not None
    assert raised[0] == raised[1]
    assert raised[0][0] == files[broken[0].split("-")[0]]


def test_a_read_ahead_that_dies_or_cannot_start_leaves_the_reading_here(tmp_path, monkeypatch):
    key, response = corpus(tmp_path, documents=6)
    one = score_files(key, response, ["--per-doc"], processes=1)
    taken = ahead_taken(monkeypatch)
    monkeypatch.setattr(
        runner.ResponseAhead, "read", staticmethod(lambda pairing: __import__("os")._exit(1))
    )
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert taken[-1] is not None

    monkeypatch.setattr(forked, "may_fork", lambda: False)
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert taken[-1] is None


def test_the_response_scanned_in_the_second_process_gives_the_numbers_of_one(tmp_path, monkeypatch):
    key, response = corpus(tmp_path)
    monkeypatch.setattr(runner, "PARALLEL_DOCUMENTS", 4)
    monkeypatch.setattr(runner, "EARLY_SCAN_BYTES", 0)
    one = score_files(key, response, ["--per-doc"], processes=1)
    scans = []
    names = pairing.Pairing.names

    def recording(self, path, format, side):
        scans.append((side, side in self.scanning))
        return names(self, path, format, side)

    monkeypatch.setattr(pairing.Pairing, "names", recording)
    taken = halves_taken(monkeypatch)
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert scans == [("key", False), ("response", True)] and taken[-1] is not None
    # a scan that failed in the other process is done here

    class Broken:
        def result(self):
            raise ChildDied("the process died")

    monkeypatch.setattr(
        runner, "early_scan", lambda pairing: pairing.scanning.update(response=Broken())
    )
    scans.clear()
    assert score_files(key, response, ["--per-doc"], processes=2) == one
    assert scans == [("key", False), ("response", True)]
