"""The system card of a run over the REST API: ``GET`` reads it, ``PUT`` saves answers
(``{"answers": {"llm": "yes", "base-model": "Llama 3.1 8B"}}``); the run's team and the
competition's organizers only (others get 404). Once the phase has ended the card is locked
(403 ``cards_locked``, ``locked`` in the GET says why); an organizer may still change it with
``"reason": "..."`` beside the answers, which the audit log keeps."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from competition.models import SystemCardQuestion
from competition.selectors import submission_for_viewer
from competition.services import cards
from leaderboard.api import error_response


def _card(submission) -> dict:
    questions = SystemCardQuestion.objects.filter(competition=submission.phase.task.competition)
    return {
        "submission": submission.pk,
        "questions": [
            {
                "slug": q.slug,
                "text": q.text,
                "kind": q.kind,
                "choices": q.choices,
                "required": q.required,
                "when": q.when,
            }
            for q in questions
        ],
        "answers": cards.card_of(submission=submission),
        "missing": cards.card_missing(submission=submission),
        "locked": cards.card_lock(submission=submission) or None,
    }


class SubmissionCardView(APIView):
    permission_classes = [IsAuthenticated]

    def _submission(self, request: Request, submission_id: int):
        submission = submission_for_viewer(submission_id=submission_id, user=request.user)
        if submission is None:
            raise Http404
        return submission

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, submission_id: int) -> Response:
        return Response(_card(self._submission(request, submission_id)))

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT)
    def put(self, request: Request, submission_id: int) -> Response:
        submission = self._submission(request, submission_id)
        answers = request.data.get("answers") if isinstance(request.data, dict) else None
        if not isinstance(answers, dict):
            return error_response("bad_card", 'expected {"answers": {question: answer}}')
        try:
            reason = request.data.get("reason") or ""
            if not isinstance(reason, str):
                return error_response("bad_card", '"reason" is text: why a locked card changes')
            cards.card_answers_save(
                submission=submission, answers=answers, user=request.user, reason=reason
            )
        except cards.CardError as exc:
            return error_response(
                exc.code,
                exc.message,
                fields={exc.field: [exc.message]} if exc.field else None,
                http_status=403 if exc.code == "cards_locked" else None,
            )
        return Response(_card(submission))
