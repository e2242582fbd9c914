"""Write paths of the competition app: every action on an entity is a function here.

Services take keyword-only, typed arguments, check the rules first and raise one domain error
(``competition.errors.CompetitionError`` and its subclasses, with a stable ``code``).
"""

from competition.services.accounts import user_signup
from competition.services.definitions import CompetitionLoad, competition_load
from competition.services.phases import phase_hide, phase_reveal
from competition.services.references import reference_results_import
from competition.services.runs import run_link_check, submission_describe
from competition.services.scoring import (
    PartResults,
    PartsOutcome,
    RecoverReport,
    ScoreValue,
    ScoringResults,
    SweepReport,
    part_compute,
    phase_rescore,
    scored_files,
    scoring_part_start,
    scoring_part_store,
    scoring_parts_collect,
    scoring_parts_create,
    set_aside_message,
    submission_claim,
    submission_compute,
    submission_fail,
    submission_held,
    submission_record,
    submission_recover,
    submission_release,
    submission_replaced_keys,
    submission_rescore,
    submission_set_aside,
    submission_sweep,
    worker_alive,
    worker_heartbeat,
    workers_alive,
)
from competition.services.submissions import (
    Problem,
    Quota,
    submission_cancel,
    submission_choose,
    submission_create,
    submission_disqualify,
    submission_member_check,
    submission_precheck,
    submission_quota,
    submissions_counted,
    upload_request_check,
)
from competition.services.teams import (
    organizer_team_get_or_create,
    team_create,
    team_join,
    team_leave,
    team_member_remove,
    team_rename,
)

__all__ = [
    "CompetitionLoad", "Problem", "Quota", "RecoverReport", "ScoreValue", "ScoringResults",
    "SweepReport", "submission_recover", "worker_alive", "worker_heartbeat", "workers_alive",
    "competition_load", "reference_results_import", "organizer_team_get_or_create",
    "phase_hide", "phase_rescore", "phase_reveal",
    "run_link_check", "submission_cancel", "submission_choose", "submission_describe",
    "submission_claim", "submission_compute", "submission_create", "submission_disqualify",
    "submission_fail", "submission_release", "submission_replaced_keys",
    "submission_set_aside", "set_aside_message", "submission_held", "scored_files",
    "part_compute", "scoring_part_start", "scoring_part_store", "scoring_parts_collect",
    "scoring_parts_create", "PartResults", "PartsOutcome", "submission_member_check",
    "submission_precheck", "submission_quota",
    "submission_record",
    "submission_rescore", "submission_sweep", "submissions_counted", "team_create",
    "team_join", "team_leave", "team_member_remove", "team_rename",
    "upload_request_check", "user_signup",
]
