"""The web process settles its heap once loaded (config/heap.py): every view is imported
and the surviving objects are frozen out of the cyclic collector's sight."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, sys
before = gc.get_freeze_count()  # not 0 everywhere: Python 3.12.1 freezes a few hundred at start
import config.wsgi
frozen = gc.get_freeze_count() - before
print(frozen, 'leaderboard.views' in sys.modules, 'leaderboard.api' in sys.modules)
"""


def test_loading_the_wsgi_application_imports_every_view_and_freezes_the_heap():
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "PATH": "/usr/bin:/bin",
            "HOME": str(ROOT),
        },
    )
    assert done.returncode == 0, done.stderr[-2000:]
    frozen, views, api = done.stdout.split()
    assert int(frozen) > 50_000  # Django, DRF, numpy and the project: far more than this
    assert views == "True" and api == "True"  # loaded before the freeze, not by a request
