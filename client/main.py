"""``codicrac``: the participant command line of the CODI-CRAC platform (REST API client).

    codicrac login --server URL            store an API token in ~/.config/codicrac/config.json
    codicrac submit --phase ID [--track T] [--card card.yaml] FILES...
                                           one file per sub-corpus (named by it), or one zip
    codicrac card-template --phase ID      a system-card file to fill in (YAML, to stdout)
    codicrac card ID [--card card.yaml]    a run's system card; with --card, change it
                                           (refused once the phase has ended)
    codicrac validate --phase ID FILES...  the server's checks of an upload, before submitting
                                           (logged in, in a team the phase accepts)
    codicrac status ID [--wait]            status, track, errors and scores of a submission
    codicrac status --phase ID             your team's runs of a phase
    codicrac leaderboard PHASE [--track T] [--card Q=A] [--json]
                                           the phase's leaderboard (of one track, or the
                                           runs whose system card answers Q with A)

Exit codes: 0 done; 1 the server refused or failed (invalid files, limits, network, a run that
ended failed); 2 usage errors (bad arguments, missing files, not logged in). Errors are one line
on stderr (validation problems: one line each), never a traceback. No Django import here.
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import tempfile
import time
import uuid
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import requests

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

CONFIG_ENV = "CODICRAC_CONFIG"
CARD_PREFIX = "card."  # a system-card answer's field at upload: card.<question slug>
CARD_CODES = ("card_incomplete", "bad_answer", "unknown_question")
FINAL = ("scored", "rejected", "failed", "cancelled")
TIMEOUT = 60  # seconds per HTTP request (an upload: PROGRESS_TIMEOUT and ANSWER_TIMEOUT)
PROGRESS_TIMEOUT = 60  # an upload that moved no bytes for this long is given up
ANSWER_TIMEOUT = 300  # the server's checks of a whole upload (it validates every file)
RETRIES = 3  # an upload without an answer is sent again this often, with the same key
RETRY_WAIT = 5.0  # seconds before the first retry; doubled for each next one


class CliError(Exception):
    """A user-facing error: ``str`` is the one-line message, ``code`` the exit code."""

    def __init__(self, message: str, code: int = 1, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.details = list(details)


class Unreachable(CliError):
    """The server did not answer: not reached, the connection broke, or no answer in time."""


def plural(count: int, word: str) -> str:
    """``1 document``, ``2 documents``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


# --- configuration ---------------------------------------------------------------------------


def config_path() -> Path:
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "codicrac" / "config.json"


def load_config() -> dict[str, str]:
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CliError("not logged in: run `codicrac login --server URL` first", 2) from None
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot read {path}: {exc}", 2) from None
    if not data.get("server") or not data.get("token"):
        raise CliError(f"{path} lacks server or token: run `codicrac login` again", 2)
    return data


def save_config(data: dict[str, str]) -> Path:
    """Write the config readable by its owner only (0600), in a 0700 folder."""
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)
    return path


# --- HTTP --------------------------------------------------------------------------------------


class Api:
    def __init__(self, server: str, token: str | None = None) -> None:
        self.server = server.rstrip("/")
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Token {token}"

    def request(self, method: str, path: str, **kwargs) -> Any:
        url = f"{self.server}{path}"
        try:
            response = self.session.request(method, url, timeout=TIMEOUT, **kwargs)
        except requests.ConnectionError as exc:
            raise Unreachable(f"cannot reach {self.server}: {exc.__class__.__name__}") from None
        except requests.RequestException as exc:
            raise Unreachable(f"no answer from {self.server}: {exc.__class__.__name__}") from None
        return self._answer(method, path, response)

    def upload(self, path: str, body: UploadBody, *, key: str) -> Any:
        """POST a streamed upload with its idempotency key: no bytes moved for
        ``PROGRESS_TIMEOUT`` seconds (while sending) or no answer within ``ANSWER_TIMEOUT``
        (while the server checks the files) ends the try; the whole transfer has no limit.
        A gateway's 502/503/504 is a server that did not answer, too."""
        try:
            response = self.session.post(
                f"{self.server}{path}",
                data=body,
                headers={"Content-Type": body.content_type, "Idempotency-Key": key},
                timeout=(PROGRESS_TIMEOUT, ANSWER_TIMEOUT),
            )
        except requests.ReadTimeout:
            raise Unreachable(
                f"{self.server} did not answer within {ANSWER_TIMEOUT} s of the upload"
            ) from None
        except requests.RequestException as exc:
            raise Unreachable(
                f"the upload to {self.server} did not complete ({exc.__class__.__name__})"
            ) from None
        if response.status_code in (502, 503, 504):
            raise Unreachable(f"{self.server} answered HTTP {response.status_code}")
        return self._answer("POST", path, response)

    def _answer(self, method: str, path: str, response: requests.Response) -> Any:
        if response.status_code == 401:
            raise CliError("the server refused the token: run `codicrac login` again")
        if response.status_code == 404:
            raise CliError(f"not found: {path} (or you may not see it)")
        try:
            body = response.json()
        except ValueError:
            raise CliError(f"{method} {path}: HTTP {response.status_code}, not JSON") from None
        if response.status_code >= 400:
            detail = body.get("detail", body) if isinstance(body, dict) else body
            code = body.get("code") if isinstance(body, dict) else None
            problems = body.get("problems", []) if isinstance(body, dict) else []
            fields = body.get("fields") if isinstance(body, dict) else None
            raise CliError(
                f"{detail}" + (f" [{code}]" if code else ""),
                details=[format_problem(p) for p in problems] + format_fields(code, fields),
            )
        return body


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


# --- system cards ------------------------------------------------------------------------------


def read_card(path: Path, phase: dict) -> dict[str, str]:
    """The answers of a system-card file (YAML ``question: answer``), as the upload's
    ``card.<question>`` fields. A blank answer is left out; YAML's ``yes``/``true`` and
    ``no``/``false`` are yes and no. Unknown questions are usage errors, told before any
    upload; whether the answers are complete and right is the server's to say."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CliError(f"{path}: cannot read the card: {exc.strerror or exc}", 2) from None
    except UnicodeDecodeError:
        raise CliError(f"{path}: the card is not UTF-8 text", 2) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise CliError(f"{path}{where}: the card is not valid YAML ({problem})", 2) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CliError(f"{path}: a card is lines of `question: answer`", 2)
    known = {q["slug"] for q in phase.get("card_questions") or []}
    answers: dict[str, str] = {}
    for key, value in data.items():
        if str(key) not in known:
            listing = ", ".join(sorted(known)) or "none (the phase asks no questions)"
            raise CliError(f"{path}: no question {key!r} in the card; expected {listing}", 2)
        if isinstance(value, (dict, list)):
            raise CliError(f"{path}: {key}: one answer, not a list or a mapping", 2)
        if value is None:
            continue
        if isinstance(value, bool):
            value = "yes" if value else "no"
        answers[CARD_PREFIX + str(key)] = str(value)
    return answers


KIND_HINTS = {"yes_no": "yes or no", "url": "a link (https://...)", "text": "text"}


def card_template(phase: dict) -> str:
    """A system-card file to fill in: each question as a comment over its blank answer."""
    questions = phase.get("card_questions") or []
    if not questions:
        return f"# Phase {phase['id']} asks no system-card questions.\n"
    lines = [
        f"# System card for runs of phase {phase['id']} ({phase.get('title', '')}, "
        f"{phase.get('competition', '')}).",
        "# Write each answer after its colon; quote text holding ': ' or starting with",
        "# a special character. Send it with:",
        f"#   codicrac submit --phase {phase['id']} --card card.yaml FILES...",
    ]
    if any(q.get("required") for q in questions):
        lines.append("# (required): a run of this phase is refused without it.")
    for q in questions:
        hint = KIND_HINTS.get(q["kind"], "text")
        if q["kind"] == "choice":
            hint = "one of: " + ", ".join(q.get("choices") or [])
        required = " (required)" if q.get("required") else ""
        lines += ["", f"# {q['text']}{required}", f"#   {hint}"]
        if when := q.get("when"):
            said = " and ".join(f"{slug}: {answer}" for slug, answer in when.items())
            lines.append(f"#   only when {said}; otherwise leave it blank")
        lines.append(f"{q['slug']}:")
    return "\n".join(lines) + "\n"


def cmd_card_template(args: argparse.Namespace) -> int:
    try:
        config = load_config()
        api = Api(args.server or config["server"], config["token"])
    except CliError:
        if not args.server:
            raise
        api = Api(args.server)
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


# --- commands ----------------------------------------------------------------------------------


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
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise CliError(f"{path}: no such file", 2)
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
        body = _send_run(api, args.phase, upload, key=key)
    finally:
        for each in handles:
            each.close()
    track = f" to the {body['track_name']} track" if body.get("track_name") else ""
    print(
        f"Submitted #{body['id']}{track} ({body['status']}). Follow it with: codicrac status "
        f"{body['id']} --wait"
    )
    if args.wait:
        return _status(api, body["id"], wait=True, timeout=args.timeout, as_json=False)
    return 0


def _send_run(api: Api, phase: int, upload: UploadBody, *, key: str) -> dict:
    """Send the upload; where no answer came, send it again with the same key (the server
    keeps one run per key) after a pause, ``RETRIES`` times. When none is answered, the
    outcome is unknown: say so, and how to find out."""
    for attempt in range(RETRIES + 1):
        try:
            return api.upload(f"/api/phases/{phase}/submissions/", upload, key=key)
        except Unreachable as exc:
            lost = exc
            if attempt == RETRIES:
                break
            pause = RETRY_WAIT * 2**attempt
            print(
                f"codicrac: {exc}; sending it again in {pause:g} s with the same key, "
                "which the server counts once",
                file=sys.stderr,
            )
            time.sleep(pause)
    raise CliError(
        f"{lost}. The upload's outcome is unknown: the server may have accepted it. See your "
        f"team's runs with `codicrac status --phase {phase}`, or send the same files again "
        f"with `--key {key}`: the server then returns the run if it has it, and takes the "
        "upload if not"
    )


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


def _status(
    api: Api,
    submission_id: int,
    *,
    wait: bool,
    timeout: float,
    as_json: bool,
    interval: float = 1.0,
) -> int:
    deadline = time.monotonic() + timeout
    body = _poll(api, submission_id, deadline=deadline)
    while wait and body["status"] not in FINAL:
        if time.monotonic() > deadline:
            raise CliError(
                f"submission #{submission_id} is still {body['status']} after {timeout:g} s"
            )
        time.sleep(interval)
        interval = min(interval * 1.5, 10.0)
        body = _poll(api, submission_id, deadline=deadline)
    if as_json:
        print(json.dumps(body, indent=1))
    else:
        print(
            f"Submission #{body['id']} by {body['team']}"
            + (f" ({body['run_name']})" if body.get("run_name") else "")
            + (f", {body.get('track_name') or body['track']} track" if body.get("track") else "")
            + f": {body['status']}"
        )
        if body.get("error"):
            for line in body["error"].splitlines():
                print(f"  {line}")
        for warning in body.get("warnings") or ():
            where = warning["file"] + (f":{warning['line']}" if warning.get("line") else "")
            print(f"  warning: {where} ({warning['subcorpus']}): {warning['message']}")
        if body.get("scores"):
            print(format_scores(body["scores"]))
        elif body["status"] == "scored":
            print("  Scores are hidden until the organizers reveal the leaderboard.")
    # A run that ended without scores is a failure; a pending one (without --wait) is not.
    return 1 if body["status"] in ("rejected", "failed", "cancelled") else 0


def _poll(api: Api, submission_id: int, *, deadline: float) -> dict:
    """The run's status; a server that does not answer is asked again until ``deadline``,
    then the message says the run exists and how to follow it."""
    pause = RETRY_WAIT
    while True:
        try:
            return api.request("GET", f"/api/submissions/{submission_id}/")
        except Unreachable as exc:
            if time.monotonic() + pause > deadline:
                raise CliError(
                    f"{exc}. Submission #{submission_id} was accepted; follow it with "
                    f"`codicrac status {submission_id} --wait`"
                ) from None
            time.sleep(pause)
            pause = min(pause * 2, 60.0)


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


def cmd_validate(args: argparse.Namespace) -> int:
    """Check files as the server checks an upload to the phase, without uploading: the same
    readers and checks, against the phase's document names, word forms and sentence ids
    (fetched once; never a gold annotation)."""
    config = load_config()
    api = Api(config["server"], config["token"])
    paths = [Path(f) for f in args.files]
    for path in paths:
        if not path.is_file():
            raise CliError(f"{path}: no such file", 2)
    facts = api.request("GET", f"/api/phases/{args.phase}/check/")
    datasets = {d["slug"]: d for d in facts["subcorpora"]}
    names = {slug: d["name"] for slug, d in datasets.items()}
    file_names = {slug: d.get("file_name") or "" for slug, d in datasets.items()}
    documents = {slug: [doc["name"] for doc in d["documents"]] for slug, d in datasets.items()}
    try:
        options = parse_options(facts["options"]).options
    except UsageError as exc:
        raise CliError(f"the server's options are not understood here: {exc}") from None
    bad = 0
    seen: dict[str, Path] = {}
    sentences = {
        slug: [sid for doc in d["documents"] for sid in doc.get("sent_ids", ())]
        for slug, d in datasets.items()
    }
    for path in paths:
        ids = file_newdoc_ids(path)
        named = subcorpus_for_name(path.name, names, file_names)
        # By its documents, or (renamed documents) by its sentences.
        held = dataset_for_documents(ids, documents) or dataset_for_documents(
            file_sent_ids(path), sentences
        )
        slug = named or held
        if slug is None:
            close = closest_subcorpus(path.name, names)
            print(
                f"{path.name}: names no dataset of phase {args.phase} and holds none's "
                "documents" + (f"; it looks like {close}" if close else "")
            )
            bad += 1
            continue
        if named is not None and held is not None and held != named:
            print(
                f"{path.name}: this looks like {names[held]}'s file (it holds the documents "
                f"of {names[held]}), but its name says {names[named]}"
            )
            bad += 1
            continue
        if slug in seen:
            print(f"{path.name}: a second file for {names[slug]} (also {seen[slug].name})")
            bad += 1
            continue
        seen[slug] = path
        how = "" if named else f" (matched by its documents to {names[slug]})"
        notes: list[str] = []
        problems = validate_against_skeleton(
            datasets[slug],
            str(path),
            options=options,
            key_label=f"the gold key of {names[slug]}",
            expected_by="the phase",
            warnings=notes,
        )
        for note in notes:  # e.g. a misspelt Entity attribute, whose mentions are not read
            print(f"  warning: {note.replace(str(path), path.name)}")
        if not problems:
            print(f"{path.name}: OK for {names[slug]}{how}, {plural(len(ids), 'document')}")
            continue
        bad += 1
        print(f"{path.name}: {plural(len(problems), 'problem')} for {names[slug]}{how}")
        for problem in problems:
            line = f":{problem.line}" if getattr(problem, "line", None) else ""
            message = str(getattr(problem, "message", problem)).replace(str(path), path.name)
            print(f"  {path.name}{line}: {message} ({getattr(problem, 'code', 'invalid')})")
    missing = [names[slug] for slug in names if slug not in seen]
    if missing:
        rule = (
            "counts as 0 in the average"
            if facts.get("missing") == "zero"
            else "is needed: the upload would be refused"
        )
        print(
            f"No file for {plural(len(missing), 'dataset')} ({', '.join(missing)}); a missing "
            f"dataset {rule}."
        )
        if facts.get("missing") != "zero":
            bad += 1
    return 1 if bad else 0


def cmd_status(args: argparse.Namespace) -> int:
    config = load_config()
    if args.id is None:
        if args.phase is None:
            raise CliError("give a submission id, or --phase ID to list your team's runs", 2)
        return _list_runs(Api(config["server"], config["token"]), args.phase)
    return _status(
        Api(config["server"], config["token"]),
        args.id,
        wait=args.wait,
        timeout=args.timeout,
        as_json=args.json,
    )


def cmd_leaderboard(args: argparse.Namespace) -> int:
    try:
        config = load_config()
        api = Api(args.server or config["server"], config["token"])
    except CliError:
        if not args.server:
            raise
        api = Api(args.server)  # public boards need no login
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


def format_board(body: dict) -> str:
    meta = body["board"]
    columns = meta["subcorpora"]
    head = f"{meta['competition']} / {meta['task']} / {meta['phase']}"
    if meta.get("track"):
        head += f" / {meta.get('track_name') or meta['track']} track"
    head += f" — {meta['metric']} F1 (%)"
    if meta.get("frozen_at"):
        head += f", frozen {meta['frozen_at'][:16]} UTC"
    if meta.get("hidden"):
        head += " — hidden until the organizers reveal it"
    lines = [head]
    widths = [max(8, len(c["name"]) + 1) for c in columns]
    all_runs = meta.get("runs") == "all"
    names = []
    for row in body["rows"]:
        # Every run is named when each has its line (--all-runs); baselines always are.
        name = row["team"]
        if row.get("run_name") and (all_runs or row["baseline"]):
            name += f" [{row['run_name']}]"
        elif all_runs:
            name += f" [#{row['submission_id']}]"
        if row["disqualified"]:
            name += " (disqualified)"
        names.append(name)
    name_width = max([24, *map(len, names)]) + 1
    questions = [q["slug"] for q in meta.get("card_questions") or []]
    lines.append(
        "rank".rjust(4)
        + "  "
        + ("run" if all_runs else "team").ljust(name_width)
        + "".join(c["name"].rjust(w) for c, w in zip(columns, widths))
        + "avg".rjust(9)
        + ("  system card (" + ", ".join(questions) + ")" if questions else "")
    )
    for row, name in zip(body["rows"], names):
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
    if not body["rows"]:
        lines.append("  (no rows)")
    if meta.get("card_filter"):
        said = ", ".join(f"{k}={v}" for k, v in meta["card_filter"].items())
        lines.append(
            f"Only runs whose system card says {said}: {len(body['rows'])} of "
            f"{meta.get('rows_unfiltered', '?')} rows; ranks are those on the whole board."
        )
    others = [t for t in meta.get("tracks") or [] if t["slug"] != meta.get("track")]
    if others:
        lines.append(
            "Other tracks: " + ", ".join(f"{t['name']} (--track {t['slug']})" for t in others)
        )
    return "\n".join(lines)


# --- entry point -------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codicrac", description="CODI-CRAC platform client")
    commands = parser.add_subparsers(dest="command", required=True)

    login = commands.add_parser("login", help="get an API token and store it")
    login.add_argument("--server", required=True, help="e.g. https://codicrac.example.org")
    login.add_argument("--username")
    login.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    login.set_defaults(func=cmd_login)

    submit = commands.add_parser(
        "submit", help="submit a run to a phase (after `codicrac login`, as a member of a team)"
    )
    submit.add_argument("--phase", type=int, required=True, help="phase id (see the phase page)")
    submit.add_argument(
        "--track", help="the track of the run (its slug or name), in a task with tracks, e.g. llm"
    )
    submit.add_argument("--run-name", help="a name for the run, e.g. primary")
    submit.add_argument("--description")
    submit.add_argument("--wait", action="store_true", help="wait for the score")
    submit.add_argument("--timeout", type=float, default=900.0)
    submit.add_argument(
        "--card", help="the run's system card: a YAML file of `question: answer` lines"
    )
    submit.add_argument(
        "--key",
        help="the run's idempotency key (default: a new one); the key of an upload whose "
        "outcome is unknown sends it again safely",
    )
    submit.add_argument("files", nargs="+", help="one file per sub-corpus, or one .zip")
    submit.set_defaults(func=cmd_submit)

    template = commands.add_parser(
        "card-template", help="print a system-card file to fill in for a phase's runs"
    )
    template.add_argument("--phase", type=int, required=True, help="phase id")
    template.add_argument("--server", help="read a public phase without logging in")
    template.set_defaults(func=cmd_card_template)

    card = commands.add_parser("card", help="show a run's system card, or change it")
    card.add_argument("id", type=int, help="the submission's id")
    card.add_argument("--card", help="the new answers: a YAML file of `question: answer` lines")
    card.add_argument(
        "--reason", help="organizers: why a card locked by the end of its phase is changed"
    )
    card.set_defaults(func=cmd_card)

    validate = commands.add_parser(
        "validate",
        help="check files as an upload to the phase is checked, without submitting",
        description="Check files as the server checks an upload to the phase, without "
        "submitting them: the files are read here, against the phase's document names, word "
        "forms and sentence ids fetched from the server. It needs `codicrac login` first, and "
        "the phase open to you: started, its terms accepted and, where the competition approves "
        "teams, your team approved.",
    )
    validate.add_argument("--phase", type=int, required=True, help="phase id")
    validate.add_argument("files", nargs="+", help="one file per dataset")
    validate.set_defaults(func=cmd_validate)

    status = commands.add_parser("status", help="status and scores of a submission")
    status.add_argument("id", type=int, nargs="?", help="a submission id")
    status.add_argument("--phase", type=int, help="without an id: your team's runs of the phase")
    status.add_argument("--wait", action="store_true", help="poll until it is final")
    status.add_argument("--timeout", type=float, default=900.0)
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)

    board = commands.add_parser("leaderboard", help="show a phase's leaderboard")
    board.add_argument("phase", type=int)
    board.add_argument("--json", action="store_true")
    board.add_argument("--metric")
    board.add_argument("--sort", help="avg.f1, <sub-corpus>.f1, team, submitted, ...")
    board.add_argument("--all-runs", action="store_true", help="every run, not one per team")
    board.add_argument("--track", help="the track whose board to show (default: the first)")
    board.add_argument(
        "--card",
        action="append",
        metavar="QUESTION=ANSWER",
        help="only runs whose system card gives this answer, e.g. llm=yes (repeatable)",
    )
    board.add_argument("--server", help="read a public board without logging in")
    board.set_defaults(func=cmd_leaderboard)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage line
        return 0 if exc.code == 0 else 2
    try:
        return args.func(args)
    except CliError as exc:
        print(f"codicrac: {exc}", file=sys.stderr)
        for line in exc.details:
            print(f"  {line}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("codicrac: interrupted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
