"""A scoring run's plan: the options compiled once into what each stage does.

`ScoringOptions` says what a user asked for; several stages need to know what that means for
them (which layers a reader keeps, whether minimum spans are read and checked on which side,
how mentions are matched, which metrics and extra layers are scored). `ScoringPlan.compile`
answers every such question once, checks the combination, and the pairing, the readers'
settings, the mode processing and the engine read their part of the plan instead of working
it out again from the options.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scoring.errors import UsageError
from scoring.options import Matching, MissingDocuments, ScoringOptions
from scoring.vocabulary import COREF_METRICS

IDENTITY = "identity"
BRIDGING = "bridging"
DISCOURSE_DEIXIS = "discourse_deixis"


@dataclass(frozen=True, slots=True)
class ReaderPlan:
    """What the exploded reader keeps of one side's file."""

    layers: tuple[str, ...]  # annotation layers read: only the ones the mode scores
    read_min: bool  # read minimum spans (and heads) at all
    check_min: bool  # refuse a minimum span outside its markable on this side
    discontinuous: bool  # v2 reads a repeated MarkableID as one discontinuous mention
    allow_crossing: bool  # markables may cross sentence boundaries

    def settings(self) -> dict[str, Any]:
        """The reader's keyword arguments."""
        return {
            "layers": list(self.layers),
            "check_min": self.check_min,
            "read_min": self.read_min,
            "discontinuous": self.discontinuous,
            "allow_crossing": self.allow_crossing,
            "layout": False,
        }


@dataclass(frozen=True, slots=True)
class ScoringPlan:
    """Everything a run decides from its options, decided once (`compile`)."""

    options: ScoringOptions  # what was asked (kept for reports and serialization)
    format: str  # auto | ua | corefud | conll | muc7
    missing_documents: MissingDocuments
    key_reader: ReaderPlan
    response_reader: ReaderPlan
    discourse_deixis: bool  # the scored layer is DISCOURSE_DEIXIS, not IDENTITY
    follows_split_antecedents: bool  # ElementOf links are followed (so a cycle is fatal)
    matching: Matching
    filters_mentions: bool  # np_only or remove_nested_mentions
    keep_singletons: bool
    keep_split_antecedents: bool
    keep_zeros: bool
    aligns_zeros_by_dependencies: bool  # --zero-match-method dependent, zeros kept
    metrics: tuple[str, ...]  # coreference metrics, report order
    extra_metrics: tuple[str, ...]  # mention, mor, zero
    scores_split_counts: bool  # only_split_antecedent: the split counters are the scores
    conll: bool  # the CoNLL average is reported
    non_referring: bool  # non-referring identification is scored
    bridging: bool  # bridging is scored

    @classmethod
    def compile(cls, options: ScoringOptions) -> ScoringPlan:
        """The plan of ``options``; `UsageError` for a metric the engine does not know."""
        unknown = [m for m in options.metrics if m not in COREF_METRICS]
        if unknown:
            raise UsageError(
                f"unknown coreference metric(s): {', '.join(unknown)} "
                f"(valid: {', '.join(COREF_METRICS)})"
            )
        if options.discourse_deixis:
            layers: tuple[str, ...] = (DISCOURSE_DEIXIS,)
        else:
            layers = (IDENTITY, BRIDGING) if options.keep_bridging else (IDENTITY,)
        read_min = options.matching in ("partial-corefud", "head")

        def reader(side: str) -> ReaderPlan:
            # the key's minimum spans bind under partial matching; both sides' under head
            check = options.matching == "head" or (
                options.matching == "partial-corefud" and side == "key"
            )
            return ReaderPlan(
                layers=layers,
                read_min=read_min,
                check_min=check,
                discontinuous=options.style == "v2",
                allow_crossing=options.allow_boundary_crossing,
            )

        return cls(
            options=options,
            format=options.format,
            missing_documents=options.missing_documents,
            key_reader=reader("key"),
            response_reader=reader("response"),
            discourse_deixis=options.discourse_deixis,
            follows_split_antecedents=(
                options.keep_split_antecedents
                or options.only_split_antecedent
                or options.discourse_deixis
            ),
            matching=options.matching,
            filters_mentions=options.np_only or options.remove_nested_mentions,
            keep_singletons=options.keep_singletons,
            keep_split_antecedents=options.keep_split_antecedents,
            keep_zeros=options.keep_zeros,
            aligns_zeros_by_dependencies=(
                options.keep_zeros and options.zero_match_method == "dependent"
            ),
            metrics=tuple(options.metrics),
            extra_metrics=tuple(options.extra_metrics),
            scores_split_counts=options.only_split_antecedent,
            conll=options.conll,
            non_referring=options.keep_non_referring,
            bridging=options.keep_bridging,
        )

    @classmethod
    def of(cls, given: ScoringOptions | ScoringPlan) -> ScoringPlan:
        """``given`` if it is a plan already, else its compiled plan: the engine's public
        entry points take either, and compile at most once per run."""
        return given if isinstance(given, ScoringPlan) else cls.compile(given)

    @property
    def reading(self) -> tuple[Any, ...]:
        """What reading and pairing the files depends on: runs whose plans have the same
        ``reading`` read both files into the same documents and pairs, and may share one
        reading (`scoring.api.score_modes`). Only the exploded reader (``auto`` reads
        exploded files or refuses) takes the reader plans; the others read one way."""
        readers = (self.key_reader, self.response_reader) if self.format in ("auto", "ua") else ()
        return (self.format, self.missing_documents, *readers)

    def reader(self, side: str) -> ReaderPlan:
        """The reader plan of ``side`` ("key" or "response")."""
        return self.key_reader if side == "key" else self.response_reader
