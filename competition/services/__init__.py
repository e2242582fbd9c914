"""Write paths of the competition app: every action on an entity is a function here.

Services take keyword-only, typed arguments, check the rules first and raise one domain error
(``competition.errors.CompetitionError`` and its subclasses, with a stable ``code``).
"""

from competition.definition.load import CompetitionLoad, competition_load
from competition.services.accounts import user_signup
from competition.services.phases import phase_hide, phase_reveal
from competition.services.references import reference_results_import
from competition.services.rescore import phase_rescore, submission_rescore
from competition.services.runs import run_link_check, submission_describe
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
from competition.services.validation import (
    RunRefused,
    submission_file_validate,
    submission_files_check,
    submission_refuse,
)

__all__ = [
    "CompetitionLoad",
    "RunRefused",
    "submission_file_validate",
    "submission_files_check",
    "submission_refuse",
    "Problem",
    "Quota",
    "competition_load",
    "reference_results_import",
    "organizer_team_get_or_create",
    "phase_hide",
    "phase_rescore",
    "phase_reveal",
    "run_link_check",
    "submission_cancel",
    "submission_choose",
    "submission_describe",
    "submission_create",
    "submission_disqualify",
    "submission_member_check",
    "submission_precheck",
    "submission_quota",
    "submission_rescore",
    "submissions_counted",
    "team_create",
    "team_join",
    "team_leave",
    "team_member_remove",
    "team_rename",
    "upload_request_check",
    "user_signup",
]
