"""Imported at start-up by a test's Celery worker that has this folder on its PYTHONPATH
(tests/tasks/test_worker_path.py, `SLOW_WORKER`): every document it scores takes
``SLOW_SCORING_SECONDS`` longer, so that a job lasts long enough to be killed mid-way or to
reach its time limit whatever the scorer's speed. Nothing else imports it."""

import os
import time

_DELAY = float(os.environ.get("SLOW_SCORING_SECONDS") or 0)

if _DELAY > 0:
    import scoring.engine

    _score_document = scoring.engine.score_document

    def _slow_score_document(key, response, plan, **shared):
        time.sleep(_DELAY)
        return _score_document(key, response, plan, **shared)

    scoring.engine.score_document = _slow_score_document
