"""A scorer's problem with a response file, as a team reads it: named by the file it
uploaded, never the gold key's path or content, without command-line advice, condensed to
what it can act on (the evident fix for a file of another split or dataset, a few of each
kind)."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from competition.models import Phase, SubCorpus
from competition.uploads import ReceivedFile, subcorpus_for_name
from scoring.filenames import dataset_for_documents, file_newdoc_ids

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an uploaded response file, as shown to the team."""

    file: str  # the name the team uploaded
    subcorpus: str
    document: str | None
    line: int | None
    message: str
    code: str

    @classmethod
    def of_file(
        cls, *, response: ReceivedFile, subcorpus: SubCorpus, code: str, message: str
    ) -> Problem:
        """A problem of the file as a whole (no document, no line), named as uploaded."""
        return cls(
            file=response.original_name,
            subcorpus=subcorpus.name,
            document=None,
            line=None,
            code=code,
            message=message,
        )

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        doc = f" [document {self.document}]" if self.document else ""
        return f"{where}{doc}: {self.message}"


_CLI_ADVICE = (
    re.compile(r";\s*[^;()]*(?:\s--?[a-z]|python -m|ua-score|codicrac)[^;()]*(?=\))"),
    re.compile(r"\s*\((?:see )?`?(?:python -m|ua-score|codicrac)[^)]*\)"),
    re.compile(r";\s*use -f \w+"),
    re.compile(r", the default format(?=\))"),
)

# After one of these, the rest of a file's problems only repeat it.
FATAL_CODES = frozenset(
    {
        "wrong_format",
        "unsupported_format",
        "unreadable",
        "empty_file",
        "encoding",
        "undecodable",
        "nul_character",
        "tokens_before_newdoc",
        "no_newdoc",
        "bad_columns_header",
        "columns",
    }
)
SAME_CODE_SHOWN = 3  # then "and N more like these"
SPLIT_WORDS = {"dev": "development", "train": "training", "test": "test"}


def web_wording(message: str) -> str:
    """A scorer message as the web shows it: without command-line options or commands."""
    for pattern in _CLI_ADVICE:
        message = pattern.sub("", message)
    return message


def _split_of(text: str) -> str | None:
    words = set(re.split(r"[^a-z0-9]+", text.lower()))
    found = [word for word in SPLIT_WORDS if word in words]
    return found[0] if len(found) == 1 else None


def _wrong_split(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> Problem | None:
    """A file of another split (a ``_dev`` file sent to a test phase): its documents are all
    missing and all extra. Say so, instead of listing document names."""
    codes = {problem.code for problem in problems}
    if not codes or not codes <= {"missing_documents", "extra_documents"}:
        return None
    expected = "dev" if phase.kind == Phase.Kind.DEVELOPMENT else "test"
    extra = next((p.message for p in problems if p.code == "extra_documents"), "")
    sent = _split_of(response.original_name) or _split_of(extra.split(":", 1)[-1][:200])
    if sent is None or sent == expected:
        return None
    return Problem.of_file(
        response=response,
        subcorpus=subcorpus,
        code="wrong_split",
        message=(
            f"this looks like a {SPLIT_WORDS[sent]} file, but the phase {phase.title} "
            f"scores the {SPLIT_WORDS[expected]} documents of {subcorpus.name}: upload "
            f"your system's output on the {SPLIT_WORDS[expected]} input."
        ),
    )


def _other_subcorpus(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> Problem | None:
    """A file given for one sub-corpus whose name says another (``AMI.CONLLUA`` in the LIGHT
    field) and whose documents are all wrong: say which file goes where."""
    codes = {problem.code for problem in problems}
    if not codes or not codes <= {"missing_documents", "extra_documents"}:
        return None
    available = {sc.slug: sc for sc in phase.subcorpora.filter(available=True)}
    others = {slug: sc.name for slug, sc in available.items()}
    named = subcorpus_for_name(response.original_name, others)
    if named is not None and named != subcorpus.slug:
        return Problem.of_file(
            response=response,
            subcorpus=subcorpus,
            code="other_subcorpus",
            message=(
                f"this file's name says {others[named]}, but it was given for "
                f"{subcorpus.name} and holds none of its documents: give each "
                "sub-corpus its own file."
            ),
        )
    held = dataset_for_documents(file_newdoc_ids(response.path), subcorpus_documents(available))
    if held is None or held == subcorpus.slug:
        return None
    return Problem.of_file(
        response=response,
        subcorpus=subcorpus,
        code="other_subcorpus",
        message=(
            f"this looks like {others[held]}'s file: it holds the documents of "
            f"{others[held]}, not those of {subcorpus.name}. Give each dataset its own "
            "file."
        ),
    )


def condensed(
    problems: list[Problem], *, phase: Phase, response: ReceivedFile, subcorpus: SubCorpus
) -> list[Problem]:
    """A file's problems as a team can act on them: only the first when it is fatal (the
    wrong format, no documents), the evident fix for a file of another split, and at most a
    few of each kind, then how many more."""
    if not problems:
        return []
    if problems[0].code in FATAL_CODES:
        return problems[:1]
    if (
        hint := _wrong_split(problems, phase=phase, response=response, subcorpus=subcorpus)
        or _other_subcorpus(problems, phase=phase, response=response, subcorpus=subcorpus)
    ) is not None:
        return [hint]
    shown: list[Problem] = []
    hidden: dict[str, int] = {}
    for problem in problems:
        seen = sum(1 for kept in shown if kept.code == problem.code)
        if seen < SAME_CODE_SHOWN:
            shown.append(problem)
        else:
            hidden[problem.code] = hidden.get(problem.code, 0) + 1
    for code, count in hidden.items():
        shown.append(
            Problem.of_file(
                response=response,
                subcorpus=subcorpus,
                code=code,
                message=f"… and {count} more like the ones above ({code}); fix those first.",
            )
        )
    return shown


def problem_from(error, *, response: ReceivedFile, subcorpus: SubCorpus, key_path: Path) -> Problem:
    path = str(getattr(error, "path", ""))
    message = str(getattr(error, "message", error))
    # Never show private or server paths: name files as the team knows them.
    message = message.replace(str(key_path), f"gold key of {subcorpus.name}")
    message = message.replace(str(response.path), response.original_name)
    message = web_wording(message)
    on_key_side = bool(path) and Path(path) == key_path
    if on_key_side:
        # The details (entities, markables, lines) describe the gold annotation: log them for
        # the organizers, tell the team only that the key is at fault.
        logger.error("gold key of %s refused by the scorer: %s", subcorpus.name, message)
        message = (
            f"the gold key of {subcorpus.name} cannot be used by the scorer "
            f"({getattr(error, 'code', 'invalid')}); the organizers must fix it. "
            "Your upload was not counted."
        )
    return Problem(
        file=f"gold key of {subcorpus.name}" if on_key_side else response.original_name,
        subcorpus=subcorpus.name,
        document=getattr(error, "document", None),
        line=None if on_key_side else getattr(error, "line", None),
        message=message,
        code=str(getattr(error, "code", "invalid")),
    )


def subcorpus_documents(subcorpora: Mapping[str, SubCorpus]) -> dict[str, set[str]]:
    """Each sub-corpus's document names (from its gold key, read when it was stored)."""
    return {
        slug: {str(d.get("name", "")) for d in sc.documents if isinstance(d, dict)}
        for slug, sc in subcorpora.items()
    }
