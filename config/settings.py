"""Settings of the CODI-CRAC platform, read from environment variables.

With no variables set, the platform runs embedded: a SQLite file in the repository root and
Celery tasks executed in-process (``task_always_eager``), so ``make demo`` works on a bare
machine. ``DATABASE_URL`` selects another database (dj-database-url) and
``CELERY_BROKER_URL`` a real broker with separate ``celery -A config worker`` processes.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value in (None, ""):
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Core -------------------------------------------------------------------------------
SECRET_KEY = os.environ.get(
    "SECRET_KEY", "django-insecure-codi-crac-embedded-default-change-me-in-production"
)
DEBUG = env_bool("DEBUG", True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Behind an HTTPS proxy (deploy/nginx.conf): HTTPS_ONLY=1 makes cookies secure and redirects
# plain HTTP; the proxy's X-Forwarded-Proto says which scheme the browser used.
HTTPS_ONLY = env_bool("HTTPS_ONLY", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_SSL_REDIRECT = HTTPS_ONLY
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
if HTTPS_ONLY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "competition",
    "leaderboard",
    "tasks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # a request body is read whole or refused (400 upload_incomplete), before anyone reads it
    "competition.whole_body.WholeBodyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # last: it sees the views' exceptions first (a lost database: 503 with Retry-After)
    "config.database_errors.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------
# DATABASE_CONN_MAX_AGE: seconds a web process keeps its connection between requests (0: a
# new one per request). A new PostgreSQL connection starts a server process, some milliseconds
# of the database's CPU each: a deadline rush's status polls alone opened thousands.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Wait for a writer instead of failing at once (the embedded mode scores in-process), and
    # take the write lock when a transaction begins, so that the limit check of one upload and
    # its insert cannot interleave with another's (PostgreSQL uses a row lock for this).
    DATABASES["default"].setdefault("OPTIONS", {}).update(timeout=20, transaction_mode="IMMEDIATE")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache ------------------------------------------------------------------------------
# Django's cache holds what every web process should share: the public boards' ready-made
# views (leaderboard/selectors/precomputed.py) and the significance tests' p-values.
# CACHE_URL=redis://host:6379/1 (or rediss://, unix://): Django's own RedisCache, shared by
# every web and worker process (a different database number than the broker's is tidy, not
# required). CACHE_URL=file:///path: a folder every process of one machine shares. Without
# it: local memory, one cache per process (the embedded mode and the tests).
CACHE_URL = os.environ.get("CACHE_URL", "")
if CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "codicrac"),
            "TIMEOUT": 7 * 24 * 3600,
        }
    }
elif CACHE_URL.startswith("file://"):
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": CACHE_URL.removeprefix("file://"),
            "TIMEOUT": 7 * 24 * 3600,
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }
elif CACHE_URL:
    raise ImproperlyConfigured(
        f"CACHE_URL={CACHE_URL!r}: expected redis://, rediss://, unix:// or file://"
    )
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    }
BOARD_VIEWS_WARM = env_bool("BOARD_VIEWS_WARM", True)
"""Build the public board views when scores change (leaderboard.services.board_views_warm)."""
BOARD_VIEWS_QUIET = env_int("BOARD_VIEWS_QUIET", 5)
"""With workers, a phase's views are rebuilt once its scores have not changed for this many
seconds, so that a batch (a phase re-scored, a key replaced) rebuilds each view once, after
its last score (leaderboard.jobs); 0: at once, on every change."""
BOARD_VIEWS_MAX_WAIT = env_int("BOARD_VIEWS_MAX_WAIT", 60)
"""... and at the latest this many seconds after the first change of a batch that goes on."""

# --- Auth -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "competition:home"
LOGOUT_REDIRECT_URL = "competition:home"

# --- Internationalisation ---------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Files ------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# Uploaded runs live under MEDIA_ROOT/submissions/<id>/ and are never served by a URL.
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "media/"
# Gold keys: copied here by load_competition, never served.
PRIVATE_ROOT = Path(os.environ.get("PRIVATE_ROOT", BASE_DIR / "media" / "private"))

# --- Uploads and scoring limits ----------------------------------------------------------
SUBMISSION_MAX_UPLOAD_BYTES = env_int("SUBMISSION_MAX_UPLOAD_BYTES", 50 * 1024 * 1024)
SUBMISSION_MAX_UNCOMPRESSED_BYTES = env_int("SUBMISSION_MAX_UNCOMPRESSED_BYTES", 200 * 1024 * 1024)
SUBMISSION_MAX_COMPRESSION_RATIO = env_int("SUBMISSION_MAX_COMPRESSION_RATIO", 100)
SUBMISSION_MAX_MEMBERS = env_int("SUBMISSION_MAX_MEMBERS", 1000)  # members of a run's zip
# A CodaLab or Codabench bundle being imported (competition.bundles.archive).
BUNDLE_MAX_BYTES = env_int("BUNDLE_MAX_BYTES", 2 * 1024**3)
BUNDLE_MAX_UNCOMPRESSED_BYTES = env_int("BUNDLE_MAX_UNCOMPRESSED_BYTES", 4 * 1024**3)
BUNDLE_MAX_MEMBERS = env_int("BUNDLE_MAX_MEMBERS", 5000)
# Untrusted structure, bounded before it is built (competition.untrusted; the table in
# docs/competition-definition.md): YAML nesting, values as written and with aliases
# expanded; a definition zip's members; member name lengths; a results CSV's cells.
YAML_MAX_DEPTH = env_int("YAML_MAX_DEPTH", 32)
YAML_MAX_NODES = env_int("YAML_MAX_NODES", 50_000)
YAML_MAX_VALUES = env_int("YAML_MAX_VALUES", 100_000)
DEFINITION_MAX_MEMBERS = env_int("DEFINITION_MAX_MEMBERS", 5000)
ARCHIVE_MAX_NAME_BYTES = env_int("ARCHIVE_MAX_NAME_BYTES", 255)
ARCHIVE_MAX_PATH_BYTES = env_int("ARCHIVE_MAX_PATH_BYTES", 1024)
RESULTS_MAX_CELL_CHARS = env_int("RESULTS_MAX_CELL_CHARS", 10_000)
RESULTS_MAX_BYTES = env_int("RESULTS_MAX_BYTES", 10 * 1024 * 1024)
# An upload of several large files is validated in this many processes at once (the web
# process and forks of it); 1: in the web process alone.
UPLOAD_VALIDATION_PROCESSES = env_int("UPLOAD_VALIDATION_PROCESSES", 2)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Django's two handlers, each keeping the SHA-256 of the files it receives (the manifest check)
FILE_UPLOAD_HANDLERS = [
    "competition.whole_body.DigestingMemoryHandler",
    "competition.whole_body.DigestingTemporaryHandler",
]

SCORING_SOFT_TIME_LIMIT = env_int("SCORING_SOFT_TIME_LIMIT", 600)  # seconds
SCORING_HARD_TIME_LIMIT = env_int("SCORING_HARD_TIME_LIMIT", 660)  # seconds
SCORING_MEMORY_LIMIT_MB = env_int("SCORING_MEMORY_LIMIT_MB", 2048)  # per worker child
# A submission queued or scoring for longer than this is re-queued by the sweep ...
SWEEP_STUCK_AFTER = env_int("SWEEP_STUCK_AFTER", 900)  # seconds
# ... at most this many times in all; then it is failed with a message.
SCORING_MAX_ATTEMPTS = env_int("SCORING_MAX_ATTEMPTS", 3)
# Every worker node writes a heartbeat this often (seconds) and, in the same loop, takes
# back runs claimed by nodes silent for WORKER_STALE_AFTER seconds and publishes runs whose
# message the broker never got: a run whose worker died is scored again within about
# WORKER_STALE_AFTER + WORKER_HEARTBEAT_INTERVAL seconds while any worker is alive.
WORKER_HEARTBEAT_INTERVAL = env_int("WORKER_HEARTBEAT_INTERVAL", 5)
WORKER_STALE_AFTER = env_int("WORKER_STALE_AFTER", 30)
SWEEP_INTERVAL = env_int("SWEEP_INTERVAL", 60)  # seconds between sweeps (celery beat)
# With workers, a run of at least this many datasets is scored one job per dataset across
# the workers (a Celery chord; 0: always in one job). In-process (no broker): one job.
SCORING_PARTS_FROM = env_int("SCORING_PARTS_FROM", 2)

# --- E-mail -----------------------------------------------------------------------------
# Submitters are e-mailed when a run is scored or fails (never with its scores: with a link
# to its page). With EMAIL_HOST set, mail goes out by SMTP; without it, it is printed on the
# console of the process that sends it (the demo).
SUBMISSION_EMAILS = env_bool("SUBMISSION_EMAILS", True)
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "CODI-CRAC platform <noreply@localhost>")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# --- Celery -----------------------------------------------------------------------------
# No broker configured: jobs run in-process (eager); the in-memory transport keeps Celery from
# looking for an AMQP server it will never use.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = False
# A chord (a run scored in parts) needs a result backend: the broker's Redis. Only the
# parts' jobs keep a result (a word, not scores: those are in the database).
CELERY_RESULT_BACKEND = (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else None
)
CELERY_RESULT_EXPIRES = timedelta(hours=6)
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker's pool process keeps its database connection from one job to the next, renewed
# every this many jobs (0: a new connection for every job, Celery's default). A run scored in
# parts is some 24 jobs, and opening a connection cost each about 12 ms; a connection the
# server ended while the process waited is replaced before the next job (`tasks.scoring`).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", 100)
CELERY_WORKER_MAX_MEMORY_PER_CHILD = SCORING_MEMORY_LIMIT_MB * 1024  # kilobytes
# Celery puts these limits into each message when it is sent: the web processes and the
# workers must share them.
CELERY_TASK_SOFT_TIME_LIMIT = SCORING_SOFT_TIME_LIMIT
CELERY_TASK_TIME_LIMIT = SCORING_HARD_TIME_LIMIT
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # Must exceed the longest job, or Redis redelivers a running job (harmless, but wasteful).
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", SCORING_HARD_TIME_LIMIT + 300),
}
if os.environ.get("CELERY_UNACKED_RESTORE_INTERVAL"):
    CELERY_BROKER_TRANSPORT_OPTIONS["unacked_restore_interval"] = env_int(
        "CELERY_UNACKED_RESTORE_INTERVAL", 60
    )
    CELERY_BROKER_TRANSPORT_OPTIONS["unacked_restore_throttle"] = env_int(
        "CELERY_UNACKED_RESTORE_INTERVAL", 60
    )
CELERY_BEAT_SCHEDULE = {
    "sweep-stuck-submissions": {
        "task": "tasks.scoring.sweep_stuck_submissions",
        "schedule": timedelta(seconds=SWEEP_INTERVAL),
    },
    # Reminders before a test phase closes (sent once per phase and team, however often).
    "deadline-reminders": {
        "task": "tasks.mail.send_deadline_reminders_task",
        "schedule": timedelta(hours=1),
    },
}

# --- REST framework ---------------------------------------------------------------------
REST_FRAMEWORK = {
    # Token first: a request without credentials is answered 401 with a WWW-Authenticate
    # header (DRF answers 403 when the first class names no authentication scheme).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "EXCEPTION_HANDLER": "leaderboard.api.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "CODI-CRAC shared-task platform API",
    "DESCRIPTION": "Competitions, phases, submissions and leaderboards of the CODI-CRAC "
    "shared tasks on anaphora in dialogue.",
    "VERSION": "1.0.0",
    # Swagger UI and ReDoc assets come from the installed sidecar package, not a CDN, so the
    # API docs work on servers without internet access.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Logging ----------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
