"""The platform's REST API as the command line speaks it: the stored login, requests and
their refusals, a streamed upload sent again (same key) when no answer came, polling."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import requests

from client.errors import CliError, Unreachable
from client.output import format_fields, format_problem
from client.upload import UploadBody

CONFIG_ENV = "CODICRAC_CONFIG"
TIMEOUT = 60  # seconds per HTTP request (an upload: PROGRESS_TIMEOUT and ANSWER_TIMEOUT)
PROGRESS_TIMEOUT = 60  # an upload that moved no bytes for this long is given up
ANSWER_TIMEOUT = 300  # the server's answer once the whole upload arrived (it stores the files)
RETRIES = 3  # an upload without an answer is sent again this often, with the same key
RETRY_WAIT = 5.0  # seconds before the first retry; doubled for each next one


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


def send_run(api: Api, phase: int, upload: UploadBody, *, key: str) -> dict:
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


def poll(api: Api, submission_id: int, *, deadline: float) -> dict:
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
