"""`scoring.forked`: one call in a forked process, its result or its exception sent back."""

from __future__ import annotations

import os
import signal
import sys
import time
from types import SimpleNamespace

import pytest

from scoring import forked
from scoring.errors import ScoringInputError
from scoring.forked import CannotFork, ChildDied, Forked


def child_pid() -> int:
    return os.getpid()


def test_the_result_comes_back_and_the_call_ran_in_another_process():
    assert Forked(sum, [1, 2, 3]).result() == 6
    assert Forked(child_pid).result() != os.getpid()
    big = Forked(lambda n: list(range(n)), 300_000).result()  # more than a pipe holds
    assert big == list(range(300_000))


def test_keyword_arguments_reach_the_call():
    assert Forked(sorted, [3, 1, 2], reverse=True).result() == [3, 2, 1]


def test_the_exception_raised_there_is_raised_here():
    def fails():
        raise ScoringInputError("f.conllua", 7, "bad line", code="columns", document="d1")

    with pytest.raises(ScoringInputError) as raised:
        Forked(fails).result()
    error = raised.value
    assert (error.path, error.line, error.code, error.document) == ("f.conllua", 7, "columns", "d1")
    assert str(error) == "f.conllua:7: bad line"


def test_a_result_that_does_not_pickle_is_an_error_that_says_so():
    with pytest.raises(RuntimeError, match="could not be sent"):
        Forked(lambda: lambda: None).result()


def test_a_child_that_dies_without_a_result_is_child_died():
    with pytest.raises(ChildDied):
        Forked(os._exit, 3).result()
    with pytest.raises(ChildDied):
        Forked(lambda: os.kill(os.getpid(), signal.SIGKILL)).result()


def test_cancel_stops_a_child_still_running_and_reaps_it():
    running = Forked(time.sleep, 60)
    pid = running.pid
    started = time.monotonic()
    running.cancel()
    assert time.monotonic() - started < 30  # it did not wait for the sleep
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no such child any more
    running.cancel()  # twice is harmless


def test_cancel_after_the_result_is_harmless():
    done = Forked(len, "abc")
    assert done.result() == 3
    done.cancel()


def test_the_child_does_not_flush_what_the_parent_had_buffered(capfd):
    sys.stdout.write("once")  # buffered, not yet written
    Forked(len, "x").result()
    sys.stdout.flush()
    assert capfd.readouterr().out == "once"


def test_a_daemonic_pool_process_may_not_fork(monkeypatch):
    assert forked.may_fork()
    daemonic = SimpleNamespace(current_process=lambda: SimpleNamespace(daemon=True))
    monkeypatch.setitem(sys.modules, "billiard", daemonic)
    assert not forked.may_fork()
    with pytest.raises(CannotFork):
        Forked(len, "x")
    monkeypatch.setitem(
        sys.modules,
        "billiard",
        SimpleNamespace(current_process=lambda: SimpleNamespace(daemon=False)),
    )
    assert forked.may_fork()
