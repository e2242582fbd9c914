"""What the command line prints: problems, submissions, scores, system cards, boards."""

from __future__ import annotations

from typing import Any

CARD_PREFIX = "card."  # a system-card answer's field at upload: card.<question slug>
CARD_CODES = ("card_incomplete", "bad_answer", "unknown_question")


def plural(count: int, word: str) -> str:
    """``1 document``, ``2 documents``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def format_problem(problem: dict) -> str:
    where = problem.get("file") or problem.get("subcorpus") or "?"
    if problem.get("line"):
        where += f":{problem['line']}"
    document = f" [document {problem['document']}]" if problem.get("document") else ""
    return f"{where}{document}: {problem.get('message')} ({problem.get('code')})"


def format_fields(code: str | None, fields: Any) -> list[str]:
    """The lines naming the system-card questions a refused upload is missing or got wrong
    (other refusals say their fields in ``detail`` already)."""
    if not isinstance(fields, dict) or code not in CARD_CODES:
        return []
    lines = [
        f"{name.removeprefix(CARD_PREFIX)}: {'; '.join(map(str, messages))}"
        for name, messages in fields.items()
    ]
    return lines + ["(answer them in the file given with --card; see codicrac card-template)"]


def format_card(body: dict) -> str:
    """A run's card: one line per question, its answer or "-", and why it is locked."""
    answers = body.get("answers") or {}
    lines = [f"System card of submission #{body['submission']}:"]
    lines += [f"  {q['slug']}: {answers.get(q['slug']) or '-'}" for q in body["questions"]]
    if len(lines) == 1:
        lines.append("  (the organizers ask no questions)")
    if body.get("missing"):
        lines.append("Not answered yet: " + "; ".join(body["missing"]))
    if body.get("locked"):
        lines.append(f"Locked: {body['locked']}.")
    return "\n".join(lines)


def format_run(body: dict) -> str:
    """A submission as ``codicrac status`` prints it: who, what and its status; its
    message; a refused run's problems, one line each; its scores."""
    lines = [
        f"Submission #{body['id']} by {body['team']}"
        + (f" ({body['run_name']})" if body.get("run_name") else "")
        + (f", {body.get('track_name') or body['track']} track" if body.get("track") else "")
        + f": {body['status']}"
    ]
    problems = body.get("problems") or []
    if problems:
        lines.append(
            "  The response files do not match the gold keys: nothing was scored and the run "
            "does not count against your limits. Fix these and upload again:"
        )
        lines += [f"  {format_problem(problem)}" for problem in problems]
    elif body.get("error"):
        lines += [f"  {line}" for line in body["error"].splitlines()]
    lines += [f"  warning: {format_warning(warning)}" for warning in body.get("warnings") or ()]
    if body.get("scores"):
        lines.append(format_scores(body["scores"]))
    elif body["status"] == "scored":
        lines.append("  Scores are hidden until the organizers reveal the leaderboard.")
    return "\n".join(lines)


def format_warning(warning: dict) -> str:
    """An upload warning: where (file as uploaded, line) and in which dataset, then what."""
    where = warning["file"] + (f":{warning['line']}" if warning.get("line") else "")
    return f"{where} ({warning['subcorpus']}): {warning['message']}"


def format_scores(scores: dict) -> str:
    """The task-mode metrics as a table: one line per metric, F1 (%) per sub-corpus."""
    task: dict[str, Any] = scores.get("task") or next(iter(scores.values()), {})
    slugs: list[str] = []
    for cells in task.values():
        for slug in cells:
            if slug not in slugs:
                slugs.append(slug)
    slugs = [s for s in slugs if s != "avg"] + (
        ["avg"] if any("avg" in c for c in task.values()) else []
    )
    # Full metric names: bridging relations share long prefixes and must not collide.
    width = max([len("metric"), *map(len, task)]) + 2
    widths = [max(8, len(s) + 1) for s in slugs]
    lines = ["  " + "metric".ljust(width) + "".join(s.rjust(w) for s, w in zip(slugs, widths))]
    for metric, cells in task.items():
        values = "".join(
            (f"{100 * cells[s]['f1']:.2f}" if s in cells else "-").rjust(w)
            for s, w in zip(slugs, widths)
        )
        lines.append("  " + metric.ljust(width) + values)
    return "\n".join(lines)


def format_board(body: dict) -> str:
    """A leaderboard as text: its heading, the column line, a line per row, then what the
    rows leave out (a card filter, other tracks)."""
    meta = body["board"]
    names = _row_names(body["rows"], all_runs=meta.get("runs") == "all")
    lines = [_board_heading(meta)]
    lines += _board_table(meta, body["rows"], names)
    lines += _board_notes(meta, body["rows"])
    return "\n".join(lines)


def _board_heading(meta: dict) -> str:
    head = f"{meta['competition']} / {meta['task']} / {meta['phase']}"
    if meta.get("track"):
        head += f" / {meta.get('track_name') or meta['track']} track"
    head += f" — {meta['metric']} F1 (%)"
    if meta.get("frozen_at"):
        head += f", frozen {meta['frozen_at'][:16]} UTC"
    if meta.get("hidden"):
        head += " — hidden until the organizers reveal it"
    return head


def _row_names(rows: list[dict], *, all_runs: bool) -> list[str]:
    """Each row's name: every run is named when each has its line (--all-runs); baselines
    always are."""
    names = []
    for row in rows:
        name = row["team"]
        if row.get("run_name") and (all_runs or row["baseline"]):
            name += f" [{row['run_name']}]"
        elif all_runs:
            name += f" [#{row['submission_id']}]"
        if row["disqualified"]:
            name += " (disqualified)"
        names.append(name)
    return names


def _board_table(meta: dict, rows: list[dict], names: list[str]) -> list[str]:
    """The column line, then one line per row: rank, name, F1 per dataset, average, and
    the system card's answers."""
    columns = meta["subcorpora"]
    widths = [max(8, len(c["name"]) + 1) for c in columns]
    name_width = max([24, *map(len, names)]) + 1
    questions = [q["slug"] for q in meta.get("card_questions") or []]
    lines = [
        "rank".rjust(4)
        + "  "
        + ("run" if meta.get("runs") == "all" else "team").ljust(name_width)
        + "".join(c["name"].rjust(w) for c, w in zip(columns, widths))
        + "avg".rjust(9)
        + ("  system card (" + ", ".join(questions) + ")" if questions else "")
    ]
    for row, name in zip(rows, names):
        rank = str(row["rank"]) if row["rank"] is not None else "-"
        cells = "".join(
            (
                f"{100 * row['scores'][c['slug']]['f1']:.2f}"
                if c["slug"] in row["scores"]
                else ("n/a" if not c["available"] else "-")
            ).rjust(w)
            for c, w in zip(columns, widths)
        )
        avg = f"{100 * row['average']['f1']:.2f}" if row["average"] else "-"
        card = row.get("card") or {}
        answers = "  " + " · ".join(card.get(q, "-") for q in questions) if questions else ""
        lines.append(rank.rjust(4) + "  " + name.ljust(name_width) + cells + avg.rjust(9) + answers)
    if not rows:
        lines.append("  (no rows)")
    return lines


def _board_notes(meta: dict, rows: list[dict]) -> list[str]:
    lines = []
    if meta.get("card_filter"):
        said = ", ".join(f"{k}={v}" for k, v in meta["card_filter"].items())
        lines.append(
            f"Only runs whose system card says {said}: {len(rows)} of "
            f"{meta.get('rows_unfiltered', '?')} rows; ranks are those on the whole board."
        )
    others = [t for t in meta.get("tracks") or [] if t["slug"] != meta.get("track")]
    if others:
        lines.append(
            "Other tracks: " + ", ".join(f"{t['name']} (--track {t['slug']})" for t in others)
        )
    return lines
