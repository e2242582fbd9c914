"""The scoring life cycle of a run, by step; the jobs (``tasks.scoring``) call it.

- ``claims``: who scores a run (the claim, its release) and whether a holder is alive;
- ``compute``: the scorer's rows of every dataset in every mode (writes nothing);
- ``outcome``: how a scoring ended (one type, one classification of what stopped it);
- ``parts``: a multi-dataset run scored one dataset per job, each part staged once;
- ``record``: the run's scores recorded, or the run failed or set aside;
- ``keys``: the gold keys a run is scored against, and those replaced since its upload;
- ``recovery``: runs whose job is gone taken back, lost messages sent again, the sweep.

Every step is safe to run twice: the claim is a conditional UPDATE, the compute writes
nothing, and the record writes only for the job that holds the claim, in one transaction.
The life cycle stands on the services (their queue port, audit, boards); the services never
import it (organizers' re-scoring is ``competition.services.rescore``).
"""

from competition.scoring.claims import (
    attempts_message,
    submission_claim,
    submission_held,
    submission_release,
    worker_alive,
    worker_heartbeat,
    workers_alive,
)
from competition.scoring.compute import part_compute, results_assemble, submission_compute
from competition.scoring.keys import scoring_keys, set_aside_message, submission_replaced_keys
from competition.scoring.outcome import (
    DATABASE_ERRORS,
    HARD_LIMIT_MESSAGE,
    Kind,
    Outcome,
    outcome_of,
)
from competition.scoring.parts import (
    StagedPart,
    scoring_part_release,
    scoring_part_start,
    scoring_part_store,
    scoring_parts_collect,
    scoring_parts_create,
)
from competition.scoring.record import (
    outcome_record,
    scores_insert,
    submission_fail,
    submission_record,
    submission_set_aside,
)
from competition.scoring.recovery import (
    RecoverReport,
    SweepReport,
    submission_recover,
    submission_sweep,
)
from competition.scoring.results import PartResults, ScoreValue, ScoringResults, scored_files

__all__ = [
    "DATABASE_ERRORS",
    "HARD_LIMIT_MESSAGE",
    "Kind",
    "Outcome",
    "PartResults",
    "RecoverReport",
    "ScoreValue",
    "ScoringResults",
    "StagedPart",
    "SweepReport",
    "attempts_message",
    "outcome_of",
    "outcome_record",
    "part_compute",
    "results_assemble",
    "scored_files",
    "scores_insert",
    "scoring_keys",
    "scoring_part_release",
    "scoring_part_start",
    "scoring_part_store",
    "scoring_parts_collect",
    "scoring_parts_create",
    "set_aside_message",
    "submission_claim",
    "submission_compute",
    "submission_fail",
    "submission_held",
    "submission_record",
    "submission_recover",
    "submission_release",
    "submission_replaced_keys",
    "submission_set_aside",
    "submission_sweep",
    "worker_alive",
    "worker_heartbeat",
    "workers_alive",
]
