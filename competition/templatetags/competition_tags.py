"""Small template filters of the competition pages."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def phase_status(phase, at) -> str:
    """'upcoming', 'open' or 'closed' for ``{{ phase|phase_status:now }}``."""
    return phase.status(at=at)


@register.filter
def score4(value) -> str:
    """A score as a percentage with two decimals, like the CODI-CRAC result tables."""
    if value is None:
        return "–"
    return f"{100 * float(value):.2f}"
