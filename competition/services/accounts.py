"""Accounts: sign-up."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from competition.errors import CompetitionError


@transaction.atomic
def user_signup(*, username: str, password: str, email: str = ""):
    """Create a user account after Django's password checks."""
    User = get_user_model()
    username = username.strip()
    if not username:
        raise CompetitionError("invalid_signup", reason="A user name is required.")
    if User.objects.filter(username__iexact=username).exists():
        raise CompetitionError("username_taken", username=username)
    candidate = User(username=username, email=email.strip())
    try:
        validate_password(password, user=candidate)
    except ValidationError as exc:
        raise CompetitionError("invalid_signup", reason=" ".join(exc.messages)) from None
    candidate.set_password(password)
    try:
        candidate.save()
    except IntegrityError:
        raise CompetitionError("username_taken", username=username) from None
    return candidate
