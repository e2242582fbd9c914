"""`codicrac submit` when answers get lost: it sends the upload again with the same key (one
run on the server), its timeout is on progress and not on the whole transfer, and where the
outcome stays unknown it says so and how to find out."""

from __future__ import annotations

import io
import json
import socket
import threading
import time

import pytest

import client.http as cli
from client.main import Api, CliError, Unreachable, main
from client.upload import FilePart, UploadBody
from competition.models import Submission
from tests.client.test_codicrac import login, write_run


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(cli, "RETRY_WAIT", 0.0)


def test_a_lost_answer_is_sent_again_with_the_same_key_and_makes_one_run(
    live_world, live_server, config, monkeypatch, capsys, tmp_path, quick
):
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    keys: list[str] = []
    real_upload = Api.upload

    def answer_lost_once(self, path, body, *, key):
        keys.append(key)
        answer = real_upload(self, path, body, key=key)  # the server takes it...
        if len(keys) == 1:
            raise Unreachable(f"no answer from {self.server}: ReadTimeout")  # ...unheard
        return answer

    monkeypatch.setattr(Api, "upload", answer_lost_once)
    code = main(["submit", "--phase", str(live_world.phase.pk), *files])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "sending it again" in captured.err and "same key" in captured.err
    assert len(keys) == 2 and keys[0] == keys[1]
    run = Submission.objects.get()  # one run, whose number the second answer gave
    assert f"Submitted #{run.pk}" in captured.out and run.idempotency_key == keys[0]


def test_an_outcome_that_stays_unknown_says_so_and_how_to_find_out(
    live_world, live_server, config, monkeypatch, capsys, tmp_path, quick
):
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    tries = []

    def never_answered(self, path, body, *, key):
        tries.append(key)
        raise Unreachable(f"{self.server} did not answer within 300 s of the upload")

    monkeypatch.setattr(Api, "upload", never_answered)
    code = main(["submit", "--phase", str(live_world.phase.pk), "--key", "k-41", *files])
    err = capsys.readouterr().err
    assert code == 1 and len(tries) == cli.RETRIES + 1 and set(tries) == {"k-41"}
    assert "outcome is unknown" in err and "cannot reach" not in err
    assert f"codicrac status --phase {live_world.phase.pk}" in err and "--key k-41" in err


def test_status_lists_the_teams_runs_of_a_phase(
    live_world, live_server, config, monkeypatch, capsys, tmp_path
):
    login(monkeypatch, live_server)
    files = write_run(live_world, tmp_path / "run")
    assert main(["submit", "--phase", str(live_world.phase.pk), "--run-name", "mine", *files]) == 0
    run = Submission.objects.get()
    capsys.readouterr()
    assert main(["status", "--phase", str(live_world.phase.pk)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"#{run.pk} ") and "mine" in line
    assert main(["status"]) == 2


# --- the timeout is on progress ------------------------------------------------------------


class SlowReader:
    """A bare HTTP server that reads a request's body at ``rate`` bytes a second (0: never
    reads it), then answers ``{"id": 1}``."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(1)
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            if not self.rate:
                time.sleep(30)
                return
            got = 0
            while got < length:
                got += len(conn.recv(min(65536, length - got)))
                time.sleep(65536 / self.rate)
            body = json.dumps({"id": 1}).encode()
            conn.sendall(
                b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )


def _upload(size: int) -> UploadBody:
    return UploadBody([], [FilePart("light", "LIGHT.CONLLUA", io.BytesIO(b"x" * size))])


def test_a_slow_upload_that_keeps_moving_is_not_given_up(monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_TIMEOUT", 1.0)
    server = SlowReader(rate=2 * 1024 * 1024)  # 6 MiB in about 3 s: longer than the timeout
    started = time.monotonic()
    assert Api(server.url, "t").upload("/", _upload(6 * 1024 * 1024), key="k") == {"id": 1}
    assert time.monotonic() - started > 2.0


def test_an_upload_that_stops_moving_is_given_up_after_the_progress_timeout(monkeypatch):
    monkeypatch.setattr(cli, "PROGRESS_TIMEOUT", 1.0)
    server = SlowReader(rate=0)
    started = time.monotonic()
    with pytest.raises(CliError, match="did not complete"):
        Api(server.url, "t").upload("/", _upload(32 * 1024 * 1024), key="k")
    assert time.monotonic() - started < 10
