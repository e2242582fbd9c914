"""The deployment files in deploy/ parse, agree with each other and with the settings.

No container engine runs here, so these tests check what can be checked without one: the
compose file and the systemd units parse and name things that exist, gunicorn accepts its
configuration, and the Django settings load from deploy/.env.example.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent
UNITS = sorted((DEPLOY / "systemd").glob("*.service"))


def env_example() -> dict[str, str]:
    values = {}
    for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split("=", 1)
            values[name.strip()] = value.strip()
    return values


def deploy_environment() -> dict[str, str]:
    """The process environment with deploy/.env.example on top (and nothing of ours)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL"}
    }
    env.update(env_example())
    return env


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def test_compose_has_every_service_a_deployment_needs(compose):
    """postgres, redis, web, worker, beat and nginx are all there."""
    assert {"postgres", "redis", "web", "worker", "beat", "nginx"} <= set(compose["services"])


def test_compose_dependencies_and_volumes_name_things_that_exist(compose):
    """Every depends_on names a service; every named volume is declared."""
    services = compose["services"]
    declared = set(compose.get("volumes") or {})
    for name, service in services.items():
        for dependency in service.get("depends_on") or {}:
            assert dependency in services, f"{name} depends on unknown {dependency}"
        for volume in service.get("volumes") or []:
            source = volume.split(":", 1)[0]
            if source.startswith((".", "/")):
                assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
            else:
                assert source in declared, f"{name} uses undeclared volume {source}"


def test_compose_builds_from_the_dockerfile_and_runs_the_real_commands(compose):
    """The build context and Dockerfile exist; web runs gunicorn with our config; the
    workers and beat run Celery on the config app; workers scale by deploy.replicas."""
    services = compose["services"]
    build = services["web"]["build"]
    context = (DEPLOY / build["context"]).resolve()
    assert context == ROOT
    assert (context / build["dockerfile"]).is_file()
    web = " ".join(services["web"]["command"])
    assert "gunicorn" in web and "deploy/gunicorn.conf.py" in web and "config.wsgi" in web
    assert "celery -A config worker" in " ".join(services["worker"]["command"])
    assert "celery -A config beat" in " ".join(services["beat"]["command"])
    assert "replicas" in services["worker"]["deploy"]
    assert services["web"]["env_file"] == ".env"
    assert (DEPLOY / ".env.example").is_file()


def test_web_and_workers_share_the_media_volume(compose):
    """Uploaded runs and gold keys written by web must be readable by the workers."""
    services = compose["services"]
    roots = (env_example()["MEDIA_ROOT"], env_example()["PRIVATE_ROOT"])
    for name in ("web", "worker", "migrate"):
        mounts = dict(volume.split(":")[:2] for volume in services[name]["volumes"])
        assert "media" in mounts, f"{name} does not mount the media volume"
        assert all(root.startswith(mounts["media"] + "/") for root in roots)


def test_nginx_upload_limit_matches_the_settings():
    """nginx lets through what Django accepts and at most 2 MiB more (multipart envelope)."""
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    match = re.search(r"client_max_body_size\s+(\d+)([kmg]?);", text)
    assert match, "nginx.conf sets no client_max_body_size"
    factor = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2)]
    nginx_limit = int(match.group(1)) * factor

    from django.conf import settings

    for django_limit in (
        int(env_example()["SUBMISSION_MAX_UPLOAD_BYTES"]),
        settings.SUBMISSION_MAX_UPLOAD_BYTES,
    ):
        assert django_limit <= nginx_limit <= django_limit + 2 * 1024**2


def test_nginx_serves_static_root_and_proxies_to_the_gunicorn_port():
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    alias = re.search(r"location /static/ \{\s*alias ([^;]+);", text).group(1)
    assert alias.rstrip("/") == env_example()["STATIC_ROOT"].rstrip("/")
    upstream = re.search(r"server web:(\d+);", text).group(1)
    assert f":{upstream}" in env_example().get("GUNICORN_BIND", "0.0.0.0:8000")
    directives = [line for line in text.splitlines() if not line.strip().startswith("#")]
    assert not any("/data" in line for line in directives), "media or keys served by nginx"


@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_systemd_unit_parses_and_runs_a_program_of_the_venv(unit):
    """Each unit has [Unit]/[Service]/[Install]; ExecStart names a program this project's
    venv installs (gunicorn, celery) with arguments that exist here."""
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # systemd keys are case-sensitive
    parser.read(unit, encoding="utf-8")
    assert {"Unit", "Service", "Install"} <= set(parser.sections())
    service = parser["Service"]
    assert service["EnvironmentFile"] == "/etc/codicrac/env"
    argv = shlex.split(service["ExecStart"])
    program = Path(argv[0]).name
    assert program in {"gunicorn", "celery"}
    assert (BIN / program).exists(), f"{program} is not installed in the venv"
    if program == "gunicorn":
        config = argv[argv.index("--config") + 1]
        assert (ROOT / config).is_file()
        assert argv[-1] == "config.wsgi:application"
    else:
        assert argv[1:3] == ["-A", "config"] and argv[3] in {"worker", "beat"}


def test_there_is_a_unit_for_web_worker_instances_and_beat():
    names = {unit.name for unit in UNITS}
    assert names == {"codicrac-web.service", "codicrac-worker@.service", "codicrac-beat.service"}


def test_gunicorn_accepts_its_configuration_with_the_deploy_environment():
    """`gunicorn --check-config` loads deploy/gunicorn.conf.py and the WSGI app."""
    result = subprocess.run(
        [
            str(BIN / "gunicorn"),
            "--check-config",
            "--config",
            "deploy/gunicorn.conf.py",
            "config.wsgi:application",
        ],
        cwd=ROOT,
        env=deploy_environment(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr


def test_settings_load_with_the_deploy_environment():
    """With .env.example, Django uses PostgreSQL, a Redis broker (no eager jobs) and Redis as
    its cache, and runs
    without DEBUG, with media and keys on the shared volume."""
    code = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "db = s.DATABASES['default']; "
        "print(json.dumps({'engine': db['ENGINE'], 'host': db['HOST'], 'name': db['NAME'], "
        "'broker': s.CELERY_BROKER_URL, 'eager': s.CELERY_TASK_ALWAYS_EAGER, "
        "'debug': s.DEBUG, 'media': str(s.MEDIA_ROOT), 'private': str(s.PRIVATE_ROOT), "
        "'upload': s.SUBMISSION_MAX_UPLOAD_BYTES, 'cache': s.CACHES['default']}))"
    )
    env = deploy_environment()
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded["engine"] == "django.db.backends.postgresql"
    assert (loaded["host"], loaded["name"]) == ("postgres", "codicrac")
    assert loaded["broker"] == "redis://redis:6379/0"
    assert loaded["eager"] is False and loaded["debug"] is False
    assert (loaded["media"], loaded["private"]) == ("/data/media", "/data/private")
    assert loaded["upload"] == 50 * 1024 * 1024
    # every process shares Django's cache (kept board views, p-values): Django's own Redis
    assert loaded["cache"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert loaded["cache"]["LOCATION"] == "redis://redis:6379/1"


def test_dockerfile_runs_the_project_python_and_keeps_local_state_out_of_the_image():
    """The image's Python satisfies requires-python, the code is installed editable (the
    settings locate templates and fixtures relative to the code), the default command is
    the web process, and the venv, database and uploads stay out of the build context."""
    import tomllib

    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    version = re.search(r"^FROM python:(\d+)\.(\d+)", text, re.M).groups()
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    minimum = tuple(int(part) for part in re.search(r">=\s*(\d+)\.(\d+)", requires).groups())
    assert tuple(int(part) for part in version) >= minimum
    assert "pip install -e ." in text
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", text, re.M).group(1))
    assert cmd[:3] == ["gunicorn", "--config", "deploy/gunicorn.conf.py"]
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", ".git", "db.sqlite3", "media", "deploy/.env"} <= set(ignored)
