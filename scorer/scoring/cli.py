"""Command line: ``python -m scoring KEY RESPONSE [options]`` and ``ua-score``.

Options are UA scorer v1's bare words or v2's dash options (docs/scorer.md), plus ``--json``,
``--per-doc`` and ``--missing-documents error|skip|empty``. ``python -m scoring convert ...``
hands over to `scoring.convert`.

Exit status: 0 scored; 2 bad options or bad input (``FILE:LINE: message`` on stderr, no
traceback); 3 an internal error (named as such, with the input files); 130 interrupted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from scoring.api import score_invocation
from scoring.convert import main as convert_main
from scoring.errors import ScoringError
from scoring.options import parse_options
from scoring.report import text_report
from scoring.version import __version__

USAGE = """\
usage: python -m scoring KEY RESPONSE [option ...] [--json] [--per-doc]
                         [--missing-documents error|skip|empty]
       python -m scoring convert --to compact|exploded IN OUT

UA scorer v1 option words (any order): remove_singletons remove_split_antecedent
  keep_non_referring keep_bridging only_split_antecedent evaluate_discourse_deixis
  min | lea muc bcub ceafe ceafm blanc all
UA scorer v2 options (any dash option switches to v2 meaning and defaults):
  -f ua|corefud|conll|muc7   -m METRIC ...   -a exact|partial-corefud|partial-craft|head
  -m empty-nodes (with -f corefud): CRAC 2026's ten empty-node measures
  -s  -l  -z  --zero-match-method linear|dependent  -d  --only-split-antecedent
  --np-only  --remove-nested-mentions  --allow-boundary-crossing  -t PRESET
See docs/scorer.md.
"""


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "convert":
        return convert_main(args[1:])
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if args and args[0] == "--version":
        print(f"ua-score {__version__}")
        return 0
    if len(args) < 2 or args[0].startswith("-") or args[1].startswith("-"):
        sys.stderr.write("error: KEY and RESPONSE files come first\n" + USAGE)
        return 2
    key, response, words = args[0], args[1], args[2:]
    try:
        invocation = parse_options(words)
        result = score_invocation(key, response, invocation)
    except ScoringError as exc:  # str() is "FILE:LINE: what is wrong (what was expected)"
        print(f"error: {exc}" if not str(exc).startswith((key, response)) else exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: say so, never a traceback
        print(
            f"internal error while scoring {response} against {key}: "
            f"{type(exc).__name__}: {exc} (please report it with both files)",
            file=sys.stderr,
        )
        return 3
    for warning in result["warnings"]:
        print(f"warning: {warning}", file=sys.stderr)
    try:
        if invocation.as_json:
            json.dump(result, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(text_report(result, invocation.report_order))
        sys.stdout.flush()
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
