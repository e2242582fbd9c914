"""Django admin for every model of the competition app, by what it administers: the
structure (`structure`), teams and their runs (`runs`), what participants read and accept
(`participation`). Importing this package registers them all.

Actions that change state go through the services (re-score, cancel, disqualify, reveal), so
the admin follows the same rules as the pages.
"""

from competition.admin import participation, runs, structure

__all__ = ["participation", "runs", "structure"]
