"""The command line's commands: login, submit, system cards, validate, status,
leaderboard. Each takes its parsed arguments and returns the exit code."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from client.cards import card_template, read_card
from client.errors import CliError
from client.http import Api, load_config, poll, save_config, send_run
from client.output import CARD_PREFIX, format_board, format_card, format_run, plural
from client.upload import FilePart, UploadBody
from scoring import UsageError, parse_options
from scoring.api import validate_against_skeleton
from scoring.filenames import (
    closest_subcorpus,
    dataset_for_documents,
    file_newdoc_ids,
    file_sent_ids,
    subcorpus_for_name,
)


def cmd_login(args: argparse.Namespace) -> int:
    username = args.username or input("User name: ").strip()
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass("Password: ")
    body = Api(args.server).request(
        "POST", "/api/token/", data={"username": username, "password": password}
    )
    path = save_config(
        {"server": args.server.rstrip("/"), "token": body["token"], "username": username}
    )
    print(f"Logged in to {args.server} as {username}; token stored in {path}")
    return 0


def _api_or_anonymous(args: argparse.Namespace) -> Api:
    """The logged-in client, or an anonymous one for ``--server`` where there is no login:
    for what a visitor may read too."""
    try:
        config = load_config()
        return Api(args.server or config["server"], config["token"])
    except CliError:
        if not args.server:
            raise
        return Api(args.server)


def cmd_card_template(args: argparse.Namespace) -> int:
    api = _api_or_anonymous(args)
    phase = api.request("GET", f"/api/phases/{args.phase}/")
    sys.stdout.write(card_template(phase))
    return 0


def cmd_card(args: argparse.Namespace) -> int:
    """Show a run's system card, or change it from a card file (``--card``). A card locked
    by the end of its phase is refused with the server's reason; an organizer may change it
    still with ``--reason``."""
    config = load_config()
    api = Api(config["server"], config["token"])
    path = f"/api/submissions/{args.id}/card/"
    body = api.request("GET", path)
    if args.card:
        fields = read_card(Path(args.card), {"card_questions": body["questions"]})
        answers = {key.removeprefix(CARD_PREFIX): value for key, value in fields.items()}
        payload: dict[str, Any] = {"answers": answers}
        if args.reason:
            payload["reason"] = args.reason
        body = api.request("PUT", path, json=payload)
        print(f"The system card of submission #{args.id} was saved.")
    print(format_card(body))
    return 0


def match_files(files: Sequence[Path], subcorpora: Sequence[dict]) -> dict[str, Path]:
    """Map each file to the sub-corpus its name names, by the server's own rule
    (`scoring.filenames`): a dataset's official file name (``en_gum-corefud-test.conllu``),
    its slug or name (``LIGHT.CONLLUA``), or a name that starts with one of them
    (``light_test.CONLLUA``)."""
    available = [s for s in subcorpora if s["available"]]
    names = {s["slug"]: s["name"] for s in available}
    file_names = {s["slug"]: s.get("file_name") or "" for s in available}
    out: dict[str, Path] = {}
    for path in files:
        slug = subcorpus_for_name(path.name, names, file_names)
        if slug is None:
            expected = ", ".join(file_names[s] or names[s] for s in names)
            close = closest_subcorpus(path.name, names)
            hint = f"; it looks like {close}" if close else ""
            raise CliError(
                f"{path.name} names no sub-corpus of the phase{hint} (expected one of: {expected})",
                2,
            )
        if slug in out:
            raise CliError(f"two files for {names[slug]}: {out[slug].name} and {path.name}", 2)
        out[slug] = path
    missing = [names[slug] for slug in names if slug not in out]
    if missing:
        raise CliError(f"no file for: {', '.join(missing)}", 2)
    return out


def _unnamed(files: Sequence[Path], subcorpora: Sequence[dict]) -> bool:
    """Whether some file's name names no available dataset (by the server's rule)."""
    available = [s for s in subcorpora if s["available"]]
    names = {s["slug"]: s["name"] for s in available}
    file_names = {s["slug"]: s.get("file_name") or "" for s in available}
    return any(subcorpus_for_name(p.name, names, file_names) is None for p in files)


def track_for(label: str | None, phase: dict) -> str:
    """The slug of the track ``label`` names (its slug or name, any case), checked here so
    that a wrong name is told before any upload; "" in a task without tracks."""
    tracks = phase.get("tracks") or []
    if not tracks:
        if label:
            raise CliError(f"phase {phase['id']} has no tracks; leave out --track", 2)
        return ""
    listing = ", ".join(f"{t['slug']} ({t['name']})" for t in tracks)
    if not label:
        raise CliError(
            f"phase {phase['id']} ranks runs by track: add --track with one of {listing}", 2
        )
    folded = label.strip().casefold()
    hits = [t["slug"] for t in tracks if folded in (t["slug"].casefold(), t["name"].casefold())]
    if len(hits) != 1:
        raise CliError(f"no track {label!r} in phase {phase['id']}: expected one of {listing}", 2)
    return hits[0]


def cmd_submit(args: argparse.Namespace) -> int:
    config = load_config()
    api = Api(config["server"], config["token"])
    paths = existing_files(args.files)
    phase = api.request("GET", f"/api/phases/{args.phase}/")
    data = {
        "run_name": args.run_name or "",
        "description": args.description or "",
        "track": track_for(args.track, phase),
    }
    if args.card:
        data.update(read_card(Path(args.card), phase))
    key = args.key or uuid.uuid4().hex
    handles: list[IO[bytes]] = []
    try:
        parts = _upload_parts(paths, phase, handles)
        upload = UploadBody(list(data.items()), parts)
        body = send_run(api, args.phase, upload, key=key)
    finally:
        for each in handles:
            each.close()
    track = f" to the {body['track_name']} track" if body.get("track_name") else ""
    state = body["status"]
    if state == "checking":
        state = "checking: each file is read against its gold key, then scored"
    print(
        f"Submitted #{body['id']}{track} ({state}). Follow it with: codicrac status "
        f"{body['id']} --wait"
    )
    if args.wait:
        return show_status(api, body["id"], wait=True, timeout=args.timeout, as_json=False)
    return 0


def _upload_parts(paths: Sequence[Path], phase: dict, handles: list[IO[bytes]]) -> list[FilePart]:
    """The files of an upload: one zip as given; one zip made here of files whose names
    say no dataset; else one file per dataset, in the field of its slug. Each opened file
    is added to ``handles``, for the caller to close."""
    if len(paths) == 1 and paths[0].suffix.lower() == ".zip":
        handles.append(paths[0].open("rb"))
        return [FilePart("archive", paths[0].name, handles[-1], "application/zip")]
    if _unnamed(paths, phase["subcorpora"]):
        # Names that say no dataset: one zip, whose members the server matches to
        # datasets by the documents they hold.
        bundle = tempfile.TemporaryFile()
        handles.append(bundle)
        with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in paths:
                archive.write(path, path.name)
        print(
            "Some file names name no dataset: sent as one zip, matched to datasets by "
            "their documents.",
            file=sys.stderr,
        )
        return [FilePart("archive", "run.zip", bundle, "application/zip")]
    parts = []
    for slug, path in match_files(paths, phase["subcorpora"]).items():
        handles.append(path.open("rb"))
        parts.append(FilePart(slug, path.name, handles[-1], "text/plain"))
    return parts


FINAL = ("scored", "rejected", "failed", "cancelled")


def show_status(
    api: Api,
    submission_id: int,
    *,
    wait: bool,
    timeout: float,
    as_json: bool,
    interval: float = 1.0,
) -> int:
    """Print a run's status (with ``wait``: once it is final; a new run is "checking",
    then "scoring", then "scored" or "rejected"); exit 1 for a run that ended unscored."""
    deadline = time.monotonic() + timeout
    body = poll(api, submission_id, deadline=deadline)
    while wait and body["status"] not in FINAL:
        if time.monotonic() > deadline:
            raise CliError(
                f"submission #{submission_id} is still {body['status']} after {timeout:g} s"
            )
        time.sleep(interval)
        interval = min(interval * 1.5, 10.0)
        body = poll(api, submission_id, deadline=deadline)
    print(json.dumps(body, indent=1) if as_json else format_run(body))
    # A run that ended without scores is a failure; a pending one (without --wait) is not.
    return 1 if body["status"] in ("rejected", "failed", "cancelled") else 0


def _list_runs(api: Api, phase: int) -> int:
    """Your team's runs of a phase, newest first: id, when, status, track and name."""
    runs = api.request("GET", f"/api/phases/{phase}/submissions/")
    if not runs:
        print(f"No runs of your team in phase {phase}.")
    for run in runs:
        print(
            f"#{run['id']}  {str(run.get('created_at', ''))[:19].replace('T', ' ')}  "
            f"{run['status']}"
            + (f"  {run.get('track_name') or run['track']} track" if run.get("track") else "")
            + (f"  {run['run_name']}" if run.get("run_name") else "")
        )
    return 0


@dataclass(frozen=True)
class CheckFacts:
    """What the server checks an upload to a phase against (``/api/phases/ID/check/``):
    per dataset its name, upload name, documents and sentence ids; the options."""

    phase: int
    datasets: dict[str, dict]
    options: Any
    missing_rule: str

    @property
    def names(self) -> dict[str, str]:
        return {slug: d["name"] for slug, d in self.datasets.items()}

    @property
    def file_names(self) -> dict[str, str]:
        return {slug: d.get("file_name") or "" for slug, d in self.datasets.items()}

    @property
    def documents(self) -> dict[str, list[str]]:
        return {slug: [doc["name"] for doc in d["documents"]] for slug, d in self.datasets.items()}

    @property
    def sentences(self) -> dict[str, list[str]]:
        return {
            slug: [sid for doc in d["documents"] for sid in doc.get("sent_ids", ())]
            for slug, d in self.datasets.items()
        }


def cmd_validate(args: argparse.Namespace) -> int:
    """Check files as the server checks an upload to the phase, without uploading: the same
    readers and checks, against the phase's document names, word forms and sentence ids
    (fetched once; never a gold annotation)."""
    config = load_config()
    api = Api(config["server"], config["token"])
    paths = existing_files(args.files)
    facts = check_facts(api, args.phase)
    bad = 0
    seen: dict[str, Path] = {}
    for path in paths:
        ids = file_newdoc_ids(path)
        slug, named = _file_dataset(path, ids, facts, seen)
        if slug is None:
            bad += 1
            continue
        seen[slug] = path
        bad += not _file_checked(path, slug, named=named, documents=len(ids), facts=facts)
    bad += not _datasets_covered(facts, seen)
    return 1 if bad else 0


def existing_files(names: Sequence[str]) -> list[Path]:
    paths = [Path(f) for f in names]
    for path in paths:
        if not path.is_file():
            raise CliError(f"{path}: no such file", 2)
    return paths


def check_facts(api: Api, phase: int) -> CheckFacts:
    facts = api.request("GET", f"/api/phases/{phase}/check/")
    try:
        options = parse_options(facts["options"]).options
    except UsageError as exc:
        raise CliError(f"the server's options are not understood here: {exc}") from None
    return CheckFacts(
        phase=phase,
        datasets={d["slug"]: d for d in facts["subcorpora"]},
        options=options,
        missing_rule=str(facts.get("missing") or ""),
    )


def _file_dataset(
    path: Path, ids: list[str], facts: CheckFacts, seen: dict[str, Path]
) -> tuple[str | None, str | None]:
    """The dataset a file is for (by its name, else by its documents or, renamed
    documents, its sentences) and the one its name says; (None, …) after printing why it
    is for none."""
    names = facts.names
    named = subcorpus_for_name(path.name, names, facts.file_names)
    held = dataset_for_documents(ids, facts.documents) or dataset_for_documents(
        file_sent_ids(path), facts.sentences
    )
    slug = named or held
    if slug is None:
        close = closest_subcorpus(path.name, names)
        print(
            f"{path.name}: names no dataset of phase {facts.phase} and holds none's "
            "documents" + (f"; it looks like {close}" if close else "")
        )
        return None, named
    if named is not None and held is not None and held != named:
        print(
            f"{path.name}: this looks like {names[held]}'s file (it holds the documents "
            f"of {names[held]}), but its name says {names[named]}"
        )
        return None, named
    if slug in seen:
        print(f"{path.name}: a second file for {names[slug]} (also {seen[slug].name})")
        return None, named
    return slug, named


def _file_checked(
    path: Path, slug: str, *, named: str | None, documents: int, facts: CheckFacts
) -> bool:
    """Print a file's check against its dataset's skeleton; whether it passed."""
    name = facts.names[slug]
    how = "" if named else f" (matched by its documents to {name})"
    notes: list[str] = []
    problems = validate_against_skeleton(
        facts.datasets[slug],
        str(path),
        options=facts.options,
        key_label=f"the gold key of {name}",
        expected_by="the phase",
        warnings=notes,
    )
    for note in notes:  # e.g. a misspelt Entity attribute, whose mentions are not read
        print(f"  warning: {note.replace(str(path), path.name)}")
    if not problems:
        print(f"{path.name}: OK for {name}{how}, {plural(documents, 'document')}")
        return True
    print(f"{path.name}: {plural(len(problems), 'problem')} for {name}{how}")
    for problem in problems:
        line = f":{problem.line}" if getattr(problem, "line", None) else ""
        message = str(getattr(problem, "message", problem)).replace(str(path), path.name)
        print(f"  {path.name}{line}: {message} ({getattr(problem, 'code', 'invalid')})")
    return False


def _datasets_covered(facts: CheckFacts, seen: dict[str, Path]) -> bool:
    """Print the datasets without a file; whether the upload would still be taken."""
    names = facts.names
    missing = [names[slug] for slug in names if slug not in seen]
    if not missing:
        return True
    zero = facts.missing_rule == "zero"
    rule = "counts as 0 in the average" if zero else "is needed: the upload would be refused"
    print(
        f"No file for {plural(len(missing), 'dataset')} ({', '.join(missing)}); a missing "
        f"dataset {rule}."
    )
    return zero


def cmd_status(args: argparse.Namespace) -> int:
    config = load_config()
    if args.id is None:
        if args.phase is None:
            raise CliError("give a submission id, or --phase ID to list your team's runs", 2)
        return _list_runs(Api(config["server"], config["token"]), args.phase)
    return show_status(
        Api(config["server"], config["token"]),
        args.id,
        wait=args.wait,
        timeout=args.timeout,
        as_json=args.json,
    )


def cmd_leaderboard(args: argparse.Namespace) -> int:
    api = _api_or_anonymous(args)  # public boards need no login
    params = {"runs": "all" if args.all_runs else "teams"}
    if args.metric:
        params["metric"] = args.metric
    if args.sort:
        params["sort"] = args.sort
    if args.track:
        params["track"] = args.track
    for wanted in args.card or []:
        question, sep, answer = wanted.partition("=")
        if not sep or not question.strip() or not answer.strip():
            raise CliError(f"--card {wanted!r}: expected QUESTION=ANSWER, e.g. llm=yes", 2)
        params[CARD_PREFIX + question.strip()] = answer.strip()
    body = api.request("GET", f"/api/phases/{args.phase}/leaderboard/", params=params)
    if args.json:
        print(json.dumps(body, indent=1))
        return 0
    print(format_board(body))
    return 0
