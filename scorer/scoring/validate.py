"""Checks across documents and files that a reader alone cannot make.

The readers check one file line by line. This module checks what needs a whole document, both
files or the scoring mode: ElementOf cycles (the reference scorers loop forever, Q13), the
pairing of key and response documents (missing or extra documents, Q16) and equal tokens.
Every problem is a `ScoringInputError` with a stable ``code``:

``elementof_cycle``, ``missing_documents``, ``extra_documents``, ``token_count``,
``token_mismatch``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from operator import attrgetter

from scoring.errors import ScoringInputError
from scoring.model import Document, Markable
from scoring.options import ScoringOptions
from scoring.plan import ScoringPlan

LISTED = 10

_ELEMENT_OF = attrgetter("element_of")
"""How many document names an error message lists before "and N more"."""


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def elementof_cycles(
    doc: Document, markables: Sequence[Markable], layer: str = "IDENTITY"
) -> list[ScoringInputError]:
    """One error per ElementOf cycle among mentioned entities (self-membership included).

    Entity E "is an element of" P when a markable of E carries ``ElementOf=…P…`` and P has a
    markable of its own (ElementOf to an unmentioned entity is dropped, spec Q12). A cycle
    in that relation would make the accommodated set of P contain P itself.

    >>> from scoring.model import Markable as M
    >>> doc = Document("d", "f", 1, ("a", "b"))
    >>> ms = (M("m1", "1", ((0, 0),), 3, element_of=("2",)), M("m2", "2", ((1, 1),), 4,
    ...       element_of=("1",)))
    >>> [e.code for e in elementof_cycles(doc, ms)]
    ['elementof_cycle']
    """
    if not any(map(_ELEMENT_OF, markables)):
        return []  # no ElementOf at all: nothing to follow (most documents; a C-level test)
    edges, first_line = _elementof_edges(markables)
    problems = []
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    for root in edges:
        if state.get(root):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                state[node] = 1
                path.append(node)
            targets = edges.get(node, [])
            if index < len(targets):
                stack.append((node, index + 1))
                target = targets[index]
                if state.get(target) == 1:
                    cycle = path[path.index(target) :] + [target]
                    problems.append(_cycle_error(doc, layer, cycle, first_line[(node, target)]))
                elif not state.get(target):
                    stack.append((target, 0))
            else:
                state[node] = 2
                path.pop()
    return problems


def _elementof_edges(
    markables: Sequence[Markable],
) -> tuple[dict[str, list[str]], dict[tuple[str, str], int]]:
    """Entity → the mentioned entities it is an element of (in the order first written),
    and the line of each pair's first ElementOf."""
    mentioned = {m.entity_id for m in markables}
    edges: dict[str, list[str]] = {}
    first_line: dict[tuple[str, str], int] = {}
    for markable in markables:
        for plural in markable.element_of:
            if plural in mentioned:
                targets = edges.setdefault(markable.entity_id, [])
                if plural not in targets:
                    targets.append(plural)
                    first_line[(markable.entity_id, plural)] = markable.line
    return edges, first_line


def _cycle_error(doc: Document, layer: str, cycle: list[str], line: int) -> ScoringInputError:
    """The error of one ElementOf cycle (``cycle``: its entities, the first one again last)."""
    target = cycle[-1]
    if len(cycle) == 2:
        what = f"entity {target} is an element of itself (ElementOf={target})"
    else:
        what = "ElementOf cycle " + " → ".join(cycle)
    return ScoringInputError(
        doc.path,
        line,
        f"document '{doc.name}': {layer} {what} (expected "
        "split antecedents to be elements of other entities, without cycles)",
        code="elementof_cycle",
        document=doc.name,
    )


def layer_of(doc: Document, plan: ScoringPlan) -> tuple[tuple[Markable, ...], str]:
    """The markables a mode scores and the column they come from."""
    if plan.discourse_deixis:
        return doc.discourse_deixis, "DISCOURSE_DEIXIS"
    return doc.identity, "IDENTITY"


def document_checks(doc: Document, plan: ScoringPlan | ScoringOptions) -> list[ScoringInputError]:
    """Problems of one document that only the scoring mode makes fatal (cycles)."""
    plan = ScoringPlan.of(plan)
    if not plan.follows_split_antecedents:
        return []  # without split antecedents ElementOf is not followed (Q13 is harmless)
    markables, layer = layer_of(doc, plan)
    return elementof_cycles(doc, markables, layer)


def compare_tokens(
    key: Document, response: Document, *, forms: bool = True
) -> ScoringInputError | None:
    """The first difference between the word tokens of a key and a response document.

    ``forms=False`` compares only the number of tokens: CoNLL-2012 and MUC-7 scoring aligns
    by position, and the CoNLL-2012 reference test responses change word forms.
    """
    n_key, n_response = len(key.tokens), len(response.tokens)
    if key.tokens == response.tokens or (not forms and n_key == n_response):
        return None
    for index in range(min(n_key, n_response) if forms else 0):
        if key.tokens[index] != response.tokens[index]:
            line = response.token_lines[index] if index < len(response.token_lines) else None
            return ScoringInputError(
                response.path,
                line,
                f"document '{response.name}': token {index + 1} is '{response.tokens[index]}' "
                f"but the key has '{key.tokens[index]}' (expected the key's tokens, in the "
                "same order)",
                code="token_mismatch",
                document=response.name,
            )
    line = response.line
    return ScoringInputError(
        response.path,
        line,
        f"document '{response.name}' has {n_response} tokens but the key document has "
        f"{n_key} (expected the key's tokens, in the same order)",
        code="token_count",
        document=response.name,
    )


def sentence_ids(doc: Document) -> list[str]:
    """The ``# sent_id`` of each sentence of a document read with its layout ('' for none)."""
    ids = []
    for sentence in doc.sentences:
        comments = sentence.comments
        if comments and comments[0].startswith("# sent_id ="):  # where it usually is
            ids.append(comments[0][11:].strip())
            continue
        found = ""
        for comment in comments:
            key, eq, value = comment.lstrip("#").partition("=")
            if eq and key.strip() == "sent_id":
                found = value.strip()
                break
        ids.append(found)
    return ids


def compare_sentences(key: Document, response: Document) -> ScoringInputError | None:
    """The first difference between the sentences of a key and a response document of a
    compact (CorefUD) file: the same number of sentences, with the same ``# sent_id``, as the
    CorefUD scorer requires before it aligns anything."""
    if key.sentences == response.sentences:  # the same comments: the same sent_ids
        return None
    key_ids, response_ids = sentence_ids(key), sentence_ids(response)
    if key_ids == response_ids:
        return None
    for index, (expected, found) in enumerate(zip(key_ids, response_ids)):
        if expected != found:
            return ScoringInputError(
                response.path,
                response.line,
                f"document '{response.name}': sentence {index + 1} has sent_id "
                f"'{found}' but the key has '{expected}' (expected the key's sentences, "
                "with the same '# sent_id', in the same order)",
                code="sentence_mismatch",
                document=response.name,
            )
    return ScoringInputError(
        response.path,
        response.line,
        f"document '{response.name}' has {len(response_ids)} sentences but the key document "
        f"has {len(key_ids)} (expected the key's sentences, in the same order)",
        code="sentence_mismatch",
        document=response.name,
    )


def document_pairing(
    key_path: str,
    key_names: Sequence[tuple[str, int]],
    response_path: str,
    response_names: Sequence[tuple[str, int]],
    policy: str,
) -> tuple[list[ScoringInputError], list[str]]:
    """Missing and extra documents under ``--missing-documents`` ``policy``.

    Returns (errors, warnings). ``error`` (the default) refuses both missing and extra
    documents; ``skip`` scores the common documents (UA scorer v1); ``empty`` scores a missing
    document as an empty response. With ``skip`` and ``empty`` extra documents are ignored,
    with a warning.
    """
    response_set = {name for name, _ in response_names}
    key_set = {name for name, _ in key_names}
    missing = [name for name, _ in key_names if name not in response_set]
    extra = [name for name, _ in response_names if name not in key_set]
    errors: list[ScoringInputError] = []
    warnings: list[str] = []
    if policy == "error":
        if missing:
            errors.append(
                ScoringInputError(
                    response_path,
                    None,
                    f"{len(missing)} key document"
                    f"{'s are' if len(missing) > 1 else ' is'} missing from the response: "
                    f"{_names(missing)} (expected every document of {key_path}; "
                    "--missing-documents skip|empty scores without them)",
                    code="missing_documents",
                )
            )
        if extra:
            line = dict(response_names)[extra[0]]
            errors.append(
                ScoringInputError(
                    response_path,
                    line,
                    f"{len(extra)} response document"
                    f"{'s are' if len(extra) > 1 else ' is'} not in the key: {_names(extra)} "
                    f"(expected only documents of {key_path}, named as there)",
                    code="extra_documents",
                )
            )
        return errors, warnings
    if missing:
        how = "skipped" if policy == "skip" else "scored as empty responses"
        warnings.append(
            f"{response_path}: {len(missing)} key document"
            f"{'s' if len(missing) > 1 else ''} missing from the response, {how}: "
            f"{_names(missing)}"
        )
    if extra:
        warnings.append(
            f"{response_path}: {len(extra)} response document"
            f"{'s' if len(extra) > 1 else ''} not in the key, ignored: "
            f"{_names(extra)}"
        )
    return errors, warnings


def first_problems(problems: Iterable[ScoringInputError], limit: int) -> list[ScoringInputError]:
    """At most ``limit`` problems, in the order found."""
    out: list[ScoringInputError] = []
    for problem in problems:
        if len(out) >= limit:
            break
        out.append(problem)
    return out
