"""A call run in a forked process, its result sent back through a pipe.

`scoring.runner` uses a second core for three things: scanning the response while this
process scans the key, scoring the second half of a large corpus, reading a large response
ahead. Each is one call whose arguments the child already has (it is a fork of this process)
and whose result comes back once, pickled. That needs ``os.fork``, a pipe and pickle, not a
process pool: importing ``concurrent.futures`` and ``multiprocessing``, their threads and
queues, and pickling the arguments into a call queue cost about 0.03 s of CPU per run (the
median of twenty runs on the 1,000-document bench pair, some 5 % of the run).

A process that may not fork (a daemonic pool process of ``multiprocessing`` or of
``billiard``, Celery's, or a platform without ``fork``) gets `CannotFork`, and the runner does
the work itself, as it does when the child dies before it sends its result (`ChildDied`).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Callable
from typing import Any


class CannotFork(Exception):
    """This process may not fork a helper."""


class ChildDied(Exception):
    """The forked process ended without sending its result (it was killed, or crashed)."""


def may_fork() -> bool:
    """Whether this process may fork a helper: it can, and it is not a daemonic process of
    ``multiprocessing`` or ``billiard`` (a pool process, whose children its pool would not
    know about). Either module is imported in any process that one of them started."""
    if not hasattr(os, "fork"):
        return False
    for name in ("multiprocessing", "billiard"):
        module = sys.modules.get(name)
        current = getattr(module, "current_process", None)
        if current is not None and current().daemon:
            return False
    return True


class Forked:
    """``function(*args, **kwargs)`` run in a forked process from now on: `result` returns
    what it returned or raises what it raised; `cancel` stops it. Use one or the other once.
    """

    def __init__(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        if not may_fork():
            raise CannotFork("this process may not fork")
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            raise
        if pid == 0:  # the child
            os.close(read_end)
            _run_and_send(write_end, function, args, kwargs)  # does not return
        os.close(write_end)
        self.pid: int | None = pid
        self.read_end = read_end

    def result(self) -> Any:
        """What the call returned, once the child has sent it; the exception it raised is
        raised here. `ChildDied` where it ended without sending either."""
        try:
            with os.fdopen(self.read_end, "rb") as pipe:
                data = pipe.read()
        finally:
            self._reap()
        try:
            returned, value = pickle.loads(data)
        except Exception as error:  # nothing sent, or cut short: the child died
            raise ChildDied(f"the forked process {self.pid} ended without a result") from error
        if returned:
            return value
        raise value

    def cancel(self) -> None:
        """Stop the child if it still runs (its result is not wanted)."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(self.read_end)
        self._reap()

    def _reap(self) -> None:
        if self.pid is not None:
            pid, self.pid = self.pid, None
            os.waitpid(pid, 0)


def _run_and_send(
    write_end: int, function: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """In the child: the call's (True, result) or (False, exception), pickled to the pipe;
    then the child ends at once, without running the parent's exit handlers or flushing the
    buffers it inherited."""
    status = 1
    try:
        try:
            outcome: tuple[bool, Any] = (True, function(*args, **kwargs))
        except BaseException as error:  # noqa: BLE001  (sent to the parent, raised there)
            outcome = (False, error)
        try:
            data = pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as error:  # an exception or result that does not pickle
            data = pickle.dumps(
                (
                    False,
                    RuntimeError(
                        f"the forked process's {'result' if outcome[0] else 'error'} could not be "
                        f"sent: {error!r}; it was: {outcome[1]!r}"[:2000]
                    ),
                )
            )
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        status = 0
    finally:
        os._exit(status)
