"""Small template filters of the competition pages."""

from __future__ import annotations

from django import template

from scoring.vocabulary import metric_label

register = template.Library()


@register.filter
def metric_name(metric: str) -> str:
    """A metric's label as the boards print it ("CoNLL", "bridging entity", ...)."""
    return metric_label(metric)


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


@register.filter(needs_autoescape=True)
def paragraphs(text, autoescape=True):
    """Plain text with hard-wrapped lines as HTML paragraphs (blank lines separate them)."""
    from django.utils.html import conditional_escape
    from django.utils.safestring import mark_safe

    escape = conditional_escape if autoescape else (lambda value: value)
    blocks = [" ".join(block.split()) for block in str(text or "").split("\n\n")]
    return mark_safe("".join(f"<p>{escape(block)}</p>" for block in blocks if block))
