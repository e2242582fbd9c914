"""``codicrac``: the participant command line of the CODI-CRAC platform (REST API client).

    codicrac login --server URL            store an API token in ~/.config/codicrac/config.json
    codicrac submit --phase ID [--track T] [--card card.yaml] FILES...
                                           one file per sub-corpus (named by it), or one zip
    codicrac card-template --phase ID      a system-card file to fill in (YAML, to stdout)
    codicrac card ID [--card card.yaml]    a run's system card; with --card, change it
                                           (refused once the phase has ended)
    codicrac validate --phase ID FILES...  the server's checks of an upload, before submitting
                                           (logged in, in a team the phase accepts)
    codicrac status ID [--wait]            status, track, errors and scores of a submission
    codicrac status --phase ID             your team's runs of a phase
    codicrac leaderboard PHASE [--track T] [--card Q=A] [--json]
                                           the phase's leaderboard (of one track, or the
                                           runs whose system card answers Q with A)

Exit codes: 0 done; 1 the server refused or failed (invalid files, limits, network, a run that
ended failed or refused); 2 usage errors (bad arguments, missing files, not logged in). Errors
are one line on stderr (validation problems: one line each), never a traceback. No Django
import here. The commands are in `client.commands`, the requests in `client.http`, what is
printed in `client.output`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from client.cards import card_template
from client.commands import (
    cmd_card,
    cmd_card_template,
    cmd_leaderboard,
    cmd_login,
    cmd_status,
    cmd_submit,
    cmd_validate,
    match_files,
)
from client.errors import CliError, Unreachable
from client.http import Api
from client.output import format_scores, plural

__all__ = [
    "Api",
    "CliError",
    "Unreachable",
    "build_parser",
    "card_template",
    "format_scores",
    "main",
    "match_files",
    "plural",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codicrac", description="CODI-CRAC platform client")
    commands = parser.add_subparsers(dest="command", required=True)
    _login_parser(commands)
    _submit_parser(commands)
    _card_parsers(commands)
    _validate_parser(commands)
    _status_parser(commands)
    _board_parser(commands)
    return parser


def _login_parser(commands) -> None:
    login = commands.add_parser("login", help="get an API token and store it")
    login.add_argument("--server", required=True, help="e.g. https://codicrac.example.org")
    login.add_argument("--username")
    login.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    login.set_defaults(func=cmd_login)


def _submit_parser(commands) -> None:
    submit = commands.add_parser(
        "submit", help="submit a run to a phase (after `codicrac login`, as a member of a team)"
    )
    submit.add_argument("--phase", type=int, required=True, help="phase id (see the phase page)")
    submit.add_argument(
        "--track", help="the track of the run (its slug or name), in a task with tracks, e.g. llm"
    )
    submit.add_argument("--run-name", help="a name for the run, e.g. primary")
    submit.add_argument("--description")
    submit.add_argument("--wait", action="store_true", help="wait for the check and the score")
    submit.add_argument("--timeout", type=float, default=900.0)
    submit.add_argument(
        "--card", help="the run's system card: a YAML file of `question: answer` lines"
    )
    submit.add_argument(
        "--key",
        help="the run's idempotency key (default: a new one); the key of an upload whose "
        "outcome is unknown sends it again safely",
    )
    submit.add_argument("files", nargs="+", help="one file per sub-corpus, or one .zip")
    submit.set_defaults(func=cmd_submit)


def _card_parsers(commands) -> None:
    template = commands.add_parser(
        "card-template", help="print a system-card file to fill in for a phase's runs"
    )
    template.add_argument("--phase", type=int, required=True, help="phase id")
    template.add_argument("--server", help="read a public phase without logging in")
    template.set_defaults(func=cmd_card_template)

    card = commands.add_parser("card", help="show a run's system card, or change it")
    card.add_argument("id", type=int, help="the submission's id")
    card.add_argument("--card", help="the new answers: a YAML file of `question: answer` lines")
    card.add_argument(
        "--reason", help="organizers: why a card locked by the end of its phase is changed"
    )
    card.set_defaults(func=cmd_card)


def _validate_parser(commands) -> None:
    validate = commands.add_parser(
        "validate",
        help="check files as an upload to the phase is checked, without submitting",
        description="Check files as the server checks an upload to the phase, without "
        "submitting them: the files are read here, against the phase's document names, word "
        "forms and sentence ids fetched from the server. It needs `codicrac login` first, and "
        "the phase open to you: started, its terms accepted and, where the competition approves "
        "teams, your team approved.",
    )
    validate.add_argument("--phase", type=int, required=True, help="phase id")
    validate.add_argument("files", nargs="+", help="one file per dataset")
    validate.set_defaults(func=cmd_validate)


def _status_parser(commands) -> None:
    status = commands.add_parser("status", help="status and scores of a submission")
    status.add_argument("id", type=int, nargs="?", help="a submission id")
    status.add_argument("--phase", type=int, help="without an id: your team's runs of the phase")
    status.add_argument("--wait", action="store_true", help="poll until it is final")
    status.add_argument("--timeout", type=float, default=900.0)
    status.add_argument("--json", action="store_true")
    status.set_defaults(func=cmd_status)


def _board_parser(commands) -> None:
    board = commands.add_parser("leaderboard", help="show a phase's leaderboard")
    board.add_argument("phase", type=int)
    board.add_argument("--json", action="store_true")
    board.add_argument("--metric")
    board.add_argument("--sort", help="avg.f1, <sub-corpus>.f1, team, submitted, ...")
    board.add_argument("--all-runs", action="store_true", help="every run, not one per team")
    board.add_argument("--track", help="the track whose board to show (default: the first)")
    board.add_argument(
        "--card",
        action="append",
        metavar="QUESTION=ANSWER",
        help="only runs whose system card gives this answer, e.g. llm=yes (repeatable)",
    )
    board.add_argument("--server", help="read a public board without logging in")
    board.set_defaults(func=cmd_leaderboard)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage line
        return 0 if exc.code == 0 else 2
    try:
        return args.func(args)
    except CliError as exc:
        print(f"codicrac: {exc}", file=sys.stderr)
        for line in exc.details:
            print(f"  {line}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("codicrac: interrupted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
