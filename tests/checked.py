"""An upload and the scoring job it queued, run here: what the worker's check of the files
makes of the run (tests of refusals that the request no longer makes itself)."""

from __future__ import annotations

from collections.abc import Callable

from competition.models import Submission
from competition.services.problems import Problem


def checked_run(capture, create: Callable[[], Submission]) -> Submission:
    """``create()`` an upload, then run the job queued at its commit (in this process, as
    the tests' eager queue runs it): the run as stored after."""
    with capture(execute=True):
        submission = create()
    submission.refresh_from_db()
    return submission


def refusal(capture, create: Callable[[], Submission]) -> list[Problem]:
    """The problems of a run the worker's check refused (it must have)."""
    submission = checked_run(capture, create)
    assert submission.status == Submission.Status.REJECTED, submission.scoring_log
    return [Problem(**problem) for problem in submission.problems]
