# Two commands on a fresh machine: `make demo` runs the platform, `make test` runs the tests.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: venv demo test test-fast lint bench serve worker clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv

# Bytecode is compiled at install: without it every command-line run compiles numpy, scipy
# and the project again (about 0.5 s of CPU where PYTHONDONTWRITEBYTECODE is set).
$(VENV)/.installed: pyproject.toml setup.py | $(BIN)/python
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -e '.[test]'
	$(BIN)/python -m compileall -q -j 0 scoring competition leaderboard tasks config client bench
	touch $@

# The scorer's compiled steps (scoring/native/*.c: the compact scan and mentions, the exploded
# token lines, the metrics' counts of a table without sets, the assignment solver), built
# with the machine's C compiler and Python headers; without them the same steps run in Python.
$(VENV)/.speedups: scoring/native/_speedups.c scoring/native/_exploded.c scoring/native/_tables.c scoring/native/_assign.c scoring/native/text.h scoring/native/lsap.h setup.py | $(VENV)/.installed
	$(BIN)/python setup.py -q build_ext --inplace --build-temp $(VENV)/build-temp
	touch $@

venv: $(VENV)/.installed $(VENV)/.speedups

## The platform: a CODI-CRAC 2021 competition with real data, SQLite, in-process scoring.
## PORT=8101 (and HOST) choose where it serves; the printed links and e-mails follow.
demo: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo_setup --url http://$(HOST):$(PORT)/
	SITE_URL=http://$(HOST):$(PORT) $(BIN)/python manage.py runserver $(HOST):$(PORT)

## Every test. First what they need beside the venv (Chromium, PostgreSQL, Redis: one line
## naming what is missing; .ci/run provides them). Pass 1: embedded configuration (SQLite,
## in-process Celery), everything but the `services` tests. Pass 2: PostgreSQL + Redis + real
## `celery worker` processes. The only skips are the scoring policy's (tests/deviations.py).
SERVICES_ENV := DATABASE_URL=postgres://postgres@127.0.0.1:5432/test \
	CELERY_BROKER_URL=redis://127.0.0.1:6379/15
test: venv
	@$(BIN)/python tests/preflight.py
	$(BIN)/python -m pytest -m "not services" $(PYTEST_ARGS)
	$(SERVICES_ENV) $(BIN)/python -m pytest -m services $(PYTEST_ARGS)

## The habits: ruff's rules and formatting, mypy (scoring strictly). Configured in pyproject.toml.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: venv
	$(BIN)/python -m bench

worker: venv
	$(BIN)/celery -A config worker --loglevel=info

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles build scoring/native/_*.so
