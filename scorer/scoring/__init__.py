"""The Universal Anaphora scorer as a library: exact, fast, no Django.

    >>> from scoring import ScoringOptions, score, score_rows
    >>> options = ScoringOptions(keep_bridging=True)
    >>> result = score("key.conllua", "response.conllua", options=options)  # doctest: +SKIP
    >>> result.metrics["muc"].prf.f1  # doctest: +SKIP
    >>> rows = score_rows(result, options)  # flat rows, per document too  # doctest: +SKIP

``score_files(key, response, words)`` returns the command line's ``--json`` object.

See docs/scorer.md for the command line, the modes and the JSON object.
"""

import os

# The scorer does no linear algebra, yet OpenBLAS (numpy's) starts a thread per core at
# numpy's import, and they spin: about 0.1 s of CPU in every process. One thread unless
# the caller chose otherwise (it must be set before numpy is imported to count).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from scoring.api import (
    read_documents,
    score,
    score_files,
    score_modes,
    validate_pair,
    validate_response,
)
from scoring.errors import ScoringError, ScoringInputError, UsageError
from scoring.options import PRESETS, ScoringOptions, parse_options
from scoring.results import CorpusResult
from scoring.serialize import ScoreRow, counts_vector, score_rows
from scoring.version import __version__

__all__ = [
    "PRESETS",
    "CorpusResult",
    "ScoreRow",
    "ScoringError",
    "ScoringInputError",
    "ScoringOptions",
    "UsageError",
    "__version__",
    "counts_vector",
    "parse_options",
    "read_documents",
    "score",
    "score_files",
    "score_modes",
    "score_rows",
    "validate_pair",
    "validate_response",
]
