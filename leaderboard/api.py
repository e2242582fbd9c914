"""REST API (mounted at /api/): read competitions and phases, submit runs, follow their
status, read leaderboards. Token or session authentication; the same services and selectors
as the pages, so the same rules apply (limits, validation, hidden phases).

Errors are JSON ``{"code": ..., "detail": ..., "problems": [...]}`` with a stable ``code``.
"""

from __future__ import annotations

import json

from django.db.models import prefetch_related_objects
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import NotAuthenticated
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from competition import services as competition_services
from competition.errors import CompetitionError, SubmissionRejected
from competition.forms import CARD_PREFIX
from competition.models import Competition, Phase, Submission
from competition.selectors import (
    competition_detail,
    phase_check_facts,
    submission_for_viewer,
    submission_get,
    team_for_user,
)
from competition.services.card_answers import ANSWER_CODES as CARD_CODES
from competition.upload_manifest import manifest_check
from competition.visibility import (
    phase_check_facts_visible,
    submission_details_visible,
    visible_competitions,
)
from leaderboard.board_views import board_api_body, board_api_payload
from leaderboard.selectors import BoardQueryError, submission_analysis
from leaderboard.selectors.precomputed import kept_view
from leaderboard.serializers import (
    CompetitionListSerializer,
    CompetitionSerializer,
    PhaseSerializer,
    PublicSubmissionSerializer,
    SubmissionSerializer,
    SubmitSerializer,
)

ERROR_STATUS = {
    "phase_closed": status.HTTP_403_FORBIDDEN,
    "no_gold_keys": status.HTTP_403_FORBIDDEN,
    "not_a_member": status.HTTP_403_FORBIDDEN,
    "team_competition": status.HTTP_403_FORBIDDEN,
    "no_team": status.HTTP_403_FORBIDDEN,
    "terms_not_accepted": status.HTTP_403_FORBIDDEN,
    "team_pending": status.HTTP_403_FORBIDDEN,
    "team_rejected": status.HTTP_403_FORBIDDEN,
    "daily_limit": status.HTTP_429_TOO_MANY_REQUESTS,
    "total_limit": status.HTTP_429_TOO_MANY_REQUESTS,
    "upload_too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
    "idempotency_key_reused": status.HTTP_409_CONFLICT,
}


def api_exception_handler(exc, context) -> Response | None:
    """DRF's own errors (authentication, permissions, 404, 405, parse errors) in the API's
    shape: ``{"code": ..., "detail": ...}``, the code DRF gives the error."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = getattr(exc, "detail", None)
    code = getattr(exc, "default_code", "error")
    detail_code = getattr(detail, "code", None)
    if isinstance(detail_code, str):
        code = detail_code
    response.data = {"code": code, "detail": str(detail if detail is not None else exc)}
    return response


def _form_errors(errors: dict) -> tuple[str, dict[str, list[str]]]:
    """A serializer's errors as one readable line and as {field: [messages]}."""
    fields = {name: [str(message) for message in messages] for name, messages in errors.items()}
    line = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in fields.items())
    return line, fields


def error_response(
    code: str, detail: str, *, problems=None, http_status=None, fields: dict | None = None
) -> Response:
    body: dict[str, object] = {"code": code, "detail": detail}
    if fields is not None:
        body["fields"] = fields
    if problems is not None:
        body["problems"] = [
            {
                "file": p.file,
                "subcorpus": p.subcorpus,
                "document": p.document,
                "line": p.line,
                "message": p.message,
                "code": p.code,
            }
            if not isinstance(p, dict)
            else p
            for p in problems
        ]
    return Response(body, status=http_status or ERROR_STATUS.get(code, 400))


class TokenView(ObtainAuthToken):
    """POST ``username`` and ``password``; returns ``{"token": "..."}`` for the
    ``Authorization: Token ...`` header."""

    permission_classes = [AllowAny]

    @extend_schema(
        request=inline_serializer(
            "TokenRequest",
            {"username": serializers.CharField(), "password": serializers.CharField()},
        ),
        responses=inline_serializer("TokenResponse", {"token": serializers.CharField()}),
    )
    def post(self, request, *args, **kwargs):
        serializer = self.serializer_class(data=request.data, context={"request": request})
        if not serializer.is_valid():
            return error_response(
                "invalid_credentials",
                "Unable to log in with the given user name and password.",
                http_status=status.HTTP_400_BAD_REQUEST,
            )
        from rest_framework.authtoken.models import Token

        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key, "username": token.user.get_username()})


class CompetitionListView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=CompetitionListSerializer(many=True))
    def get(self, request: Request) -> Response:
        competitions = Competition.objects.filter(visible_competitions(user=request.user)).order_by(
            "-created", "slug"
        )
        return Response(CompetitionListSerializer(competitions, many=True).data)


class CompetitionDetailView(APIView):
    """A competition with its tasks, phases and sub-corpora."""

    permission_classes = [AllowAny]

    @extend_schema(responses=CompetitionSerializer)
    def get(self, request: Request, slug: str) -> Response:
        try:
            competition = competition_detail(slug=slug, user=request.user)
        except Competition.DoesNotExist:
            raise Http404 from None
        return Response(CompetitionSerializer(competition).data)


def _phase(request: Request, phase_id: int) -> Phase:
    phase = (
        Phase.objects.select_related("task__competition")
        .prefetch_related("subcorpora")
        .filter(visible_competitions(user=request.user, prefix="task__competition__"))
        .filter(pk=phase_id)
        .first()
    )
    if phase is None:
        raise Http404
    return phase


class PhaseDetailView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PhaseSerializer)
    def get(self, request: Request, phase_id: int) -> Response:
        return Response(PhaseSerializer(_phase(request, phase_id)).data)


class PhaseCheckView(APIView):
    """What uploads to the phase are checked against, for checking files offline
    (``codicrac validate``): the validation options and, per dataset with a gold key, its
    documents' names, word forms and sentence ids — the input text, never an annotation, a
    key's path or its checksum. For the organizers, and for participants once the phase has
    started, on the terms of its data."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, phase_id: int) -> Response:
        phase = _phase(request, phase_id)
        if not phase_check_facts_visible(phase=phase, user=request.user):
            return error_response(
                "check_facts_hidden",
                "The checks of this phase are open to its participants "
                "once it has started, with the terms accepted (and an approved team where "
                "the competition approves teams).",
                http_status=status.HTTP_403_FORBIDDEN,
            )
        return Response(phase_check_facts(phase=phase))


def _submission_data(submission: Submission, request: Request) -> dict:
    # its files with their datasets in one query (a CorefUD run has 22), unless fetched
    prefetch_related_objects([submission], "files__subcorpus")
    analysis = submission_analysis(submission=submission, viewer=request.user)
    return SubmissionSerializer(submission, context={"analysis": analysis}).data


class PhaseSubmissionsView(APIView):
    """GET: your team's submissions to the phase. POST (multipart): submit a run."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=SubmissionSerializer(many=True))
    def get(self, request: Request, phase_id: int) -> Response:
        phase = _phase(request, phase_id)
        team = team_for_user(competition=phase.task.competition, user=request.user)
        if team is None:
            return Response([])
        submissions = (
            Submission.objects.filter(phase=phase, team=team)
            .select_related("team")
            .prefetch_related("files__subcorpus")
            .order_by("-created_at", "-id")
        )
        return Response([_submission_data(s, request) for s in submissions])

    @extend_schema(
        request={"multipart/form-data": SubmitSerializer},
        responses={
            201: SubmissionSerializer,
            200: SubmissionSerializer,
            400: OpenApiTypes.OBJECT,
            409: OpenApiTypes.OBJECT,
            403: OpenApiTypes.OBJECT,
            429: OpenApiTypes.OBJECT,
        },
        description="Either one zip in `archive` or one file field per available sub-corpus, "
        "named by its slug. The answer (201) comes once the files are received: the run is "
        "`checking` while a worker reads each file against its gold key, then scored; a run "
        "whose files do not fit ends `rejected`, with a `problems` list (file, document, "
        "line, message, code) in its detail, not scored and not counted. A file whose first "
        "lines are in another format is refused at once (400 `invalid_files`, with "
        "`problems`); nothing is stored or counted. System-card "
        "answers go in `card.<question slug>` fields (e.g. `card.llm=yes`); a final run of a "
        "competition whose questions are required is refused (400, `card_incomplete`, "
        "`fields` naming each question still to answer) unless it answers them. An "
        "`Idempotency-Key` header (or `idempotency_key` field) names the run meant: sent "
        "again with a key the team used, the upload returns that first run (200, header "
        "`Idempotent-Replayed: true`) and stores nothing. A body cut short of its "
        "Content-Length is refused (400 `upload_incomplete`).",
    )
    def post(self, request: Request, phase_id: int) -> Response:
        phase = _phase(request, phase_id)
        team = team_for_user(competition=phase.task.competition, user=request.user)
        if team is None:
            return error_response(
                "no_team", "Join or create a team of this competition before submitting."
            )
        form = SubmitSerializer(data=request.data)
        if not form.is_valid():
            line, fields = _form_errors(form.errors)
            return error_response("invalid_request", line, fields=fields)
        archive = request.FILES.get("archive")
        files = {key: request.FILES[key] for key in request.FILES if key != "archive"}
        track = form.validated_data.get("track") or None
        card = {
            key.removeprefix(CARD_PREFIX): value
            for key, value in request.data.items()
            if key.startswith(CARD_PREFIX) and key not in request.FILES
        }
        try:
            manifest_check(data=request.data, files=request.FILES)
            submission = competition_services.submission_create(
                team=team,
                phase=phase,
                user=request.user,
                files=files or None,
                archive=archive,
                run_name=form.validated_data.get("run_name", ""),
                description=form.validated_data.get("description", ""),
                track=track,
                link=form.validated_data.get("link", ""),
                card=card,
                idempotency_key=request.headers.get("Idempotency-Key")
                or request.data.get("idempotency_key", ""),
            )
        except SubmissionRejected as exc:
            if exc.code in CARD_CODES:  # a system-card answer: name the questions at fault
                missing = exc.params.get("missing") or []
                fields = {CARD_PREFIX + slug: ["required for a final run"] for slug in missing}
                if not missing:
                    fields = {CARD_PREFIX + str(exc.params.get("field")): [exc.message]}
                return error_response(exc.code, exc.message, fields=fields)
            return error_response(exc.code, exc.message, problems=exc.problems)
        except CompetitionError as exc:
            return error_response(exc.code, exc.message)
        replayed = submission.replayed
        submission.refresh_from_db()
        if replayed:  # sent again with its key: the first run, nothing new stored
            response = Response(_submission_data(submission, request), status=status.HTTP_200_OK)
            response["Idempotent-Replayed"] = "true"
            return response
        return Response(_submission_data(submission, request), status=status.HTTP_201_CREATED)


class SubmissionDetailView(APIView):
    """Status, error message and (when the phase lets you see them) scores of a submission
    of your team. A run of another team whose details the phase makes public (its analysis
    page on the web) is shown as there: name, status and scores, without its files or
    messages. Others get 404 (401 without a token)."""

    permission_classes = [AllowAny]

    @extend_schema(responses=SubmissionSerializer)
    def get(self, request: Request, submission_id: int) -> Response:
        submission = submission_for_viewer(submission_id=submission_id, user=request.user)
        if submission is not None:
            return Response(_submission_data(submission, request))
        other = submission_get(submission_id=submission_id, user=request.user)
        if other is not None and submission_details_visible(submission=other, user=request.user):
            analysis = submission_analysis(submission=other, viewer=request.user)
            return Response(PublicSubmissionSerializer(other, context={"analysis": analysis}).data)
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        raise Http404


class SubmissionDocumentsView(APIView):
    """Per-document recall, precision and F1 of one metric (``?metric=``, default the task's
    primary metric), for submissions whose scores you may see; others get 404."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("metric", str, description="default: primary metric")],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, submission_id: int) -> Response:
        submission = submission_get(submission_id=submission_id, user=request.user)
        if submission is None:
            raise Http404
        analysis = submission_analysis(
            submission=submission,
            viewer=request.user,
            document_metric=request.query_params.get("metric"),
        )
        if analysis is None:
            raise Http404
        return Response(
            {
                "submission_id": submission.pk,
                "metric": analysis.document_metric,
                "documents": [
                    {
                        "subcorpus": d.subcorpus,
                        "document": d.document,
                        "recall": d.recall,
                        "precision": d.precision,
                        "f1": d.f1,
                    }
                    for d in analysis.documents
                ],
            }
        )


class LeaderboardView(APIView):
    """The phase's leaderboard, exactly as the page shows it to the same user."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[
            OpenApiParameter("metric", str, description="any stored metric; default primary"),
            OpenApiParameter("mode", str, description="scoring mode; default `task`"),
            OpenApiParameter(
                "sort", str, description="avg.f1, <slug>.recall|precision|f1, team, submitted"
            ),
            OpenApiParameter("order", str, enum=["asc", "desc"]),
            OpenApiParameter("runs", str, enum=["teams", "all"]),
            OpenApiParameter("groups", bool, description="mark statistically tied groups"),
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request: Request, phase_id: int) -> Response:
        phase = _phase(request, phase_id)
        try:
            body = kept_view(
                phase=phase,
                viewer=request.user,
                view="api",
                query=request.query_params,
                build=lambda: (
                    board_api_body(
                        board_api_payload(
                            phase=phase, viewer=request.user, query=request.query_params
                        )
                    ),
                    False,
                ),
            ).content
        except BoardQueryError as exc:
            return error_response("invalid_query", str(exc))
        if request.accepted_renderer.format == "json":
            # the board as rendered when it was built (a kept view: no encoding per request)
            return HttpResponse(body, content_type="application/json")
        return Response(json.loads(body))  # another renderer (the browsable API)
