"""Shared helpers of the scoring tests: where the conformance pack is, documents built by hand."""

from __future__ import annotations

import pytest

from scoring.model import BridgingLink, Document, Markable


@pytest.fixture
def make_doc():
    """Build a `Document` by hand (see `build_doc`)."""
    return build_doc


def build_doc(
    spec: dict[str, list],
    *,
    name: str = "d",
    n_tokens: int = 100,
    element_of: dict[str, tuple[str, ...]] | None = None,
    min_spans: dict[tuple[int, int], tuple[int, int]] | None = None,
    bridging: list[tuple[str, str, str]] = (),
    dd: bool = False,
) -> Document:
    """A document from ``{entity id: [span or token, ...]}``.

    A span is ``(start, end)`` or one token position. Markables get ids ``m<n>`` in the
    order written; ``element_of`` gives each entity's ElementOf list (on all its
    markables); ``min_spans`` maps a span to its Min; ``bridging`` lists
    (anaphor markable id, anchor markable id, relation).
    """
    markables = []
    n = 0
    for eid, spans in spec.items():
        for span in spans:
            if isinstance(span, int):
                span = (span, span)
            n += 1
            markables.append(
                Markable(
                    f"m{n}",
                    eid,
                    (tuple(span),),
                    line=n,
                    min_span=(min_spans or {}).get(tuple(span)),
                    element_of=(element_of or {}).get(eid, ()),
                )
            )
    markables.sort(key=lambda m: (m.start, -m.end))
    links = tuple(BridgingLink(a, b, rel, 0) for a, b, rel in bridging)
    layer = tuple(markables)
    return Document(
        name=name,
        path=f"{name}.conllua",
        line=1,
        tokens=tuple("w" for _ in range(n_tokens)),
        identity=() if dd else layer,
        discourse_deixis=layer if dd else (),
        bridging=links,
    )
