"""The competition app's one domain error.

A service that refuses raises ``CompetitionError`` (or a subclass) with a stable ``code`` and
``params``; pages and the API show ``message`` and map ``code`` to a status, tests match ``code``.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # submissions
    "phase_closed": "The phase {phase} is not open for submissions.",
    "phase_upcoming": "The phase {phase} opens for submissions on {start}.",
    "phase_ended": "The phase {phase} closed on {end}; it takes no more runs.",
    "track_required": "Choose the track of this run: {tracks}.",
    "unknown_track": "There is no track {track!r} in this task (expected one of {tracks}).",
    "not_a_member": "You are not a member of the team {team}.",
    "team_competition": "The team {team} does not take part in this competition.",
    "daily_limit": "Your team has used its {limit_runs} for today (UTC); "
    "the next one is possible after midnight UTC.",
    "total_limit": "Your team has used all {limit_runs} of this phase; it takes no "
    "more runs from your team.",
    "no_files": "No files were uploaded.",
    "upload_incomplete": "The upload was cut short; nothing was stored or counted. Send it again.",
    "bad_idempotency_key": "An idempotency key is 1 to 64 letters, digits, '.', '_', ':' or '-'.",
    "idempotency_key_reused": "This idempotency key was sent with submission #{submission} "
    "to the phase {phase}; use a new key for a new run.",
    "upload_manifest": "The upload does not match the list of files its sender made "
    "({reason}); nothing was stored or counted. Send it again.",
    "no_gold_keys": "The phase {phase} takes no runs yet: none of its datasets has a gold key "
    "on the platform, so nothing could be scored. It opens for uploads once the organizers "
    "have added the keys.",
    "upload_too_large": "The upload {name} is {size}; the limit is {limit}.",
    "missing_files": "A response file is missing for: {subcorpora}.",
    "unknown_files": "These files do not name a sub-corpus of the phase: {names} "
    "(expected: {expected}). {hint}",
    "duplicate_files": "More than one file was given for: {subcorpora}. Keep one file per "
    "sub-corpus.",
    "zip_and_files": "Give either one zip or one file per sub-corpus, not both.",
    "bad_zip": "The zip archive cannot be read: {reason}.",
    "unsafe_zip": "The zip archive was refused: {reason}.",
    "invalid_files": "The response files do not match the gold keys; nothing was stored "
    "and nothing was counted.",
    "not_utf8": "{name} is not UTF-8 text.",
    "scorer_config": "The scorer options of this task are invalid ({reason}); please tell the "
    "organizers.",
    "reference_run": "Run {submission} is a published result imported with its numbers; it "
    "has no files to score again.",
    "invalid_status": "Submission #{submission} is {status}; this action needs {expected}.",
    "invalid_link": "{link} is not a web address (expected http:// or https://…).",
    "card_incomplete": "System card: {reason}.",
    "bad_answer": "System card: {reason}.",
    "unknown_question": "System card: {reason}.",
    "not_chosen_phase": "The phase {phase} does not let teams choose their submission.",
    # teams
    "already_in_team": "You are already in the team {team} of this competition.",
    "team_name_taken": "A team named {name} already exists in this competition.",
    "bad_invite_code": "No team of this competition has that invite code.",
    "empty_team_name": "A team needs a name.",
    # terms and approval
    "terms_not_accepted": "Taking part in {competition} needs its terms accepted first; "
    "read and accept them at {url}",
    "team_pending": "The team {team} waits for the organizers' approval; it can submit once "
    "they approve it.",
    "team_rejected": "The organizers did not approve the team {team}: {reason}",
    # pages and announcements
    "unknown_page": "There is no page {kind!r} (expected one of {kinds}).",
    "page_too_large": "The {kind} page was not saved: a page is UTF-8 text without NUL of at "
    "most {limit} bytes.",
    "empty_announcement": "An announcement needs a title.",
    "bad_unsubscribe_link": "This unsubscribe link is not valid; it may have been cut in the "
    "e-mail. Log in to change the setting on the competition page.",
    "not_team_member": "You are not a member of the team {team}.",
    "not_captain": "Only the captain of {team} or an organizer may remove members.",
    "remove_self": "To take yourself out of the team, leave it.",
    # accounts
    "username_taken": "The user name {username} is taken.",
    "invalid_signup": "{reason}",
    # competitions
    "invalid_definition": "{path}: {reason}",
    # drafts, publishing, organizers
    "no_competition": "There is no such competition.",
    "already_published": "{competition} is already published.",
    "not_published": "{competition} is a draft already.",
    "not_organizer": "Only the organizers of {competition} (or staff) may do this.",
    "publish_unmet": "{competition} cannot be published yet: {items}.",
    "participants_joined": "{competition} cannot go back to draft: {count} participant "
    "team{plural} or terms acceptance{plural} exist.",
    "not_owner": "Only the owner of {competition} (or staff) adds and removes organizers.",
    "unknown_organizer": "There is no user named {username!r}.",
    "already_organizer": "{username} already organizes {competition}.",
    "not_an_organizer": "{username} does not organize {competition}.",
    "remove_owner": "{username} owns {competition} and stays its organizer.",
}


SIZE_PARAMS = ("size", "limit")
# The refusals whose ``size`` and ``limit`` are byte counts (elsewhere ``limit`` counts runs).
SIZE_CODES = frozenset({"upload_too_large", "too_large"})


def shown_params(params: dict[str, Any], code: str = "upload_too_large") -> dict[str, Any]:
    """The params as the message of refusal ``code`` shows them: for a refusal about sizes,
    byte counts (``size``, ``limit``) in words a person reads (``2.0 MB``); the params
    themselves unchanged."""
    from django.template.defaultfilters import filesizeformat

    shown = dict(params)
    # counts of runs, in the right number ("1 submission")
    for name, shown_name in (("limit", "limit_runs"), ("count", "count_submissions")):
        if isinstance(params.get(name), int):
            count = params[name]
            shown[shown_name] = f"{count} submission{'' if count == 1 else 's'}"
    if code not in SIZE_CODES:
        return shown
    for name in SIZE_PARAMS:
        value = params.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            shown[name] = str(filesizeformat(value)).replace("\xa0", " ")
    return shown


class CompetitionError(Exception):
    """A rule of the competition refused an action. ``code`` is stable, ``params`` explain it."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message)

    @property
    def message(self) -> str:
        template = MESSAGES.get(self.code, self.code)
        try:
            return template.format(**shown_params(self.params, self.code))
        except (KeyError, IndexError):
            return template

    def __str__(self) -> str:
        return self.message


class SubmissionRejected(CompetitionError):
    """An upload was refused. ``problems`` (a list of ``Problem``) lists file, document and line
    when the files themselves are at fault."""

    @property
    def problems(self) -> list:
        return list(self.params.get("problems", []))


class TeamError(CompetitionError):
    """A team action was refused."""


class DefinitionError(CompetitionError):
    """A competition definition file is invalid."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__("invalid_definition", path=path, reason=reason)
