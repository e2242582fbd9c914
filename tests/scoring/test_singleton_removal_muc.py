"""Singleton removal can change MUC when a span is in two entities (docs/scoring-deviations.md
says so; UA scorer v1, v2 and this scorer agree on the numbers)."""

from __future__ import annotations

from scoring import score_files

HEAD = (
    "# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC IDENTITY "
    "BRIDGING DISCOURSE_DEIXIS REFERENCE NOM_SEM\n# newdoc id = d\n# sent_id = d-1\n"
)


def write(path, cells: list[str]) -> str:
    path.write_text(
        HEAD
        + "".join(
            f"{i}\tw{i}\t_\t_\t_\t_\t_\t_\t_\t_\t{cell}\t_\t_\t_\t_\n"
            for i, cell in enumerate(cells, 1)
        )
        + "\n",
        encoding="utf-8",
    )
    return str(path)


def test_dropping_a_singleton_copy_of_a_span_changes_muc_precision(tmp_path):
    """Key: entity 1 = {w1, w3} and entity 2 = {w1} (the same span again, alone); response:
    {w1, w3}. With singletons, w1 of the response's one link is in both key entities, which
    partition the response entity into two parts: precision (2 - 2) / 1 = 0. Without
    singletons entity 2 is gone: precision (2 - 1) / 1 = 1. Recall is 1 both ways."""
    key = write(
        tmp_path / "key",
        ["(EntityID=1|MarkableID=a)(EntityID=2|MarkableID=b)", "_", "(EntityID=1|MarkableID=c)"],
    )
    response = write(
        tmp_path / "sys", ["(EntityID=1|MarkableID=a)", "_", "(EntityID=1|MarkableID=c)"]
    )
    kept = score_files(key, response, [])["metrics"]["muc"]
    removed = score_files(key, response, ["remove_singletons"])["metrics"]["muc"]
    assert (kept["recall"], kept["precision"]) == (1.0, 0.0)
    assert (removed["recall"], removed["precision"]) == (1.0, 1.0)
