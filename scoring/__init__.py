"""The Universal Anaphora scorer as a library: exact, fast, no Django.

    >>> from scoring import score_files
    >>> result = score_files("key.conllua", "response.conllua", ["keep_bridging"])  # doctest: +SKIP
    >>> result["metrics"]["muc"]["f1"]  # doctest: +SKIP

See docs/scorer.md for the command line, the modes and the JSON object.
"""

from scoring.api import read_documents, score_files, validate_response
from scoring.errors import ScoringError, ScoringInputError, UsageError
from scoring.options import ScoringOptions, parse_options
from scoring.version import __version__

__all__ = ["ScoringError", "ScoringInputError", "ScoringOptions", "UsageError", "__version__",
           "parse_options", "read_documents", "score_files", "validate_response"]
