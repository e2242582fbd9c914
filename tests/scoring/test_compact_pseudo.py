"""In a compact (CorefUD) file a '-Pseudo' entity is an ordinary entity, as the CorefUD scorer
reads it (it has no non-referring notion); in an exploded UA file it stays non-referring."""

from __future__ import annotations

from scoring import score_files


def compact(path, second: str) -> str:
    rows = [
        ("1", "Entity=(e1-person-1-)"),
        ("2", f"Entity=({second}-abstract-1-)"),
        ("3", "Entity=(e1-person-1-)"),
        ("4", f"Entity=({second}-abstract-1-)"),
        ("5", "_"),
    ]
    lines = [
        "# global.Entity = eid-etype-head-other",
        "# newdoc id = d",
        "# sent_id = 1",
        "# text = w1 w2 w3 w4 w5",
    ]
    lines += ["\t".join([i, f"w{i}", "_", "_", "_", "_", "0", "_", "_", misc]) for i, misc in rows]
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    return str(path)


def test_a_pseudo_entity_of_a_compact_file_is_scored_like_any_other(tmp_path):
    """Key {w1, w3} {w2, w4}; the response joins all four. Named e2-Pseudo or e9, the second
    entity is scored the same, since the name carries no meaning in CorefUD files: MUC
    recall (1 + 1) / (1 + 1) = 1 either way (it would be 1/1 with the entity left out)."""
    response = compact(tmp_path / "sys.conllu", "e1")
    words = ["-f", "corefud", "-s", "-m", "muc", "bcub", "ceafe"]
    # the converter writes a UA '-Pseudo' entity id with its '-' escaped, as here
    pseudo = score_files(compact(tmp_path / "a.conllu", "e2%2DPseudo"), response, words)
    plain = score_files(compact(tmp_path / "b.conllu", "e9"), response, words)
    assert pseudo["metrics"] == plain["metrics"]
    assert pseudo["metrics"]["muc"]["recall"] == 1.0
    assert pseudo["metrics"]["muc"]["precision"] == 2 / 3  # links: 2 of the response's 3
