"""Factories for leaderboard tests: competitions, teams and scored runs built row by row.

Scores are written straight into the spine's tables (as the scoring job would), so these
tests exercise the leaderboard's reads and rules without running the scorer.
"""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from competition.models import (
    Competition,
    Membership,
    Phase,
    Score,
    ScoringRun,
    SubCorpus,
    Submission,
    Task,
    Team,
)

_seq = itertools.count(1)
T0 = timezone.now() - timedelta(days=10)


class Factory:
    """Builds a competition world; every method returns the created object."""

    def user(self, username=None, **kwargs):
        username = username or f"user{next(_seq)}"
        return get_user_model().objects.create_user(
            username=username, password="pw-12345!", **kwargs
        )

    def competition(self, slug=None, organizers=()):
        competition = Competition.objects.create(
            slug=slug or f"comp{next(_seq)}", title="C", published_at=T0
        )
        competition.organizers.add(*organizers)
        return competition

    def task(self, competition=None, kind="identity", primary="conll", slug=None):
        competition = competition or self.competition()
        return Task.objects.create(
            competition=competition,
            slug=slug or f"t{next(_seq)}",
            kind=kind,
            title="Task",
            primary_metric=primary,
        )

    def phase(
        self,
        task=None,
        *,
        kind="development",
        visibility="public",
        counts="best",
        subcorpora=("light", "ami"),
        unavailable=(),
        show_own=False,
        slug=None,
    ):
        task = task or self.task()
        phase = Phase.objects.create(
            task=task,
            slug=slug or f"p{next(_seq)}",
            kind=kind,
            title=f"Phase {kind}",
            start=T0,
            leaderboard_visibility=visibility,
            counts=counts,
            show_own_scores_when_hidden=show_own,
        )
        for i, slug in enumerate([*subcorpora, *unavailable]):
            SubCorpus.objects.create(
                phase=phase,
                name=slug.upper(),
                slug=slug,
                order=i,
                available=slug not in unavailable,
                key_file=f"keys/{slug}.CONLLUA",
            )
        return phase

    def team(self, competition, name=None, members=(), organizer=False):
        team = Team.objects.create(
            competition=competition, name=name or f"team{next(_seq)}", is_organizer_team=organizer
        )
        for user in members:
            Membership.objects.create(team=team, user=user, competition=competition)
        return team

    def run(
        self,
        phase,
        team,
        f1=None,
        *,
        metric=None,
        mode="task",
        status="scored",
        minutes=None,
        documents=None,
        **fields,
    ):
        """A submission with one current scoring run.

        ``f1``: {slug: value} of the primary metric (R = P = F1 unless a tuple is given).
        ``documents``: {slug: [(num, den), ...]} per-document counts (P = R = num/den) for the
        metric and, when it is conll, for muc/bcub/ceafe; the sub-corpus row is then derived
        from them (micro-average).
        """
        metric = metric or phase.task.primary_metric
        created = T0 + timedelta(minutes=minutes if minutes is not None else next(_seq))
        submission = Submission.objects.create(
            phase=phase,
            team=team,
            status=status,
            created_at=created,
            scorer_version="test-1",
            run_name=fields.pop("run_name", ""),
            **fields,
        )
        if status != "scored":
            return submission
        run = ScoringRun.objects.create(submission=submission, scorer_version="test-1")
        subcorpora = {s.slug: s for s in phase.subcorpora.all()}
        metrics = ("muc", "bcub", "ceafe", "conll") if metric == "conll" else (metric,)
        if documents:
            f1 = {}
            for slug, docs in documents.items():
                num = sum(n for n, _ in docs)
                den = sum(d for _, d in docs)
                f1[slug] = num / den if den else 0.0
                for m in metrics:
                    for i, (n, d) in enumerate(docs):
                        value = n / d if d else 0.0
                        counts = (
                            {} if m == "conll" else {"p_num": n, "p_den": d, "r_num": n, "r_den": d}
                        )
                        Score.objects.create(
                            run=run,
                            submission=submission,
                            subcorpus=subcorpora[slug],
                            mode=mode,
                            metric=m,
                            document=f"{slug}_doc{i}",
                            recall=value,
                            precision=value,
                            f1=value,
                            counts=counts,
                        )
        for slug, value in (f1 or {}).items():
            r, p, f = value if isinstance(value, tuple) else (value, value, value)
            for m in metrics:
                Score.objects.create(
                    run=run,
                    submission=submission,
                    subcorpus=subcorpora[slug],
                    mode=mode,
                    metric=m,
                    recall=r,
                    precision=p,
                    f1=f,
                )
        return submission

    def run_every_mode(self, phase, team, values: dict, *, procedure: str, **fields):
        """A submission scored in every mode of ``procedure`` (the CoNLL parts and CoNLL,
        or the ten empty-node measures), R = P = F1 = ``values[slug]`` (a dataset left out is
        one the run skipped; a value may be a callable of (mode, metric))."""
        submission = self.run(phase, team, **fields)
        run = ScoringRun.objects.get(submission=submission, is_current=True)
        run.procedure = procedure
        run.save()
        self.scores_every_mode(run, values, procedure=procedure)
        return submission

    def scores_every_mode(self, run, values: dict, *, procedure: str):
        from scoring.procedures import PROCEDURES
        from scoring.vocabulary import CONLL, CONLL_PARTS, EMPTY_NODE_MEASURES, EMPTY_NODES

        proc = PROCEDURES[procedure]
        slugs = {s.slug: s for s in run.submission.phase.subcorpora.all()}
        for mode in proc.modes:
            if mode == EMPTY_NODES:
                metrics = EMPTY_NODE_MEASURES
            elif proc.primary_metric == CONLL:
                metrics = (*CONLL_PARTS, CONLL)
            else:
                metrics = (proc.primary_metric,)
            for metric in metrics:
                for slug, value in values.items():
                    v = value(mode, metric) if callable(value) else value
                    Score.objects.create(
                        run=run,
                        submission=run.submission,
                        subcorpus=slugs[slug],
                        mode=mode,
                        metric=metric,
                        recall=v,
                        precision=v,
                        f1=v,
                    )


@pytest.fixture
def make(db):
    return Factory()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Test users need no slow key stretching."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def empty_cache():
    """Cached tied groups are keyed by ids, which a rolled-back test database reuses."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()
