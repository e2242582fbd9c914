# Two commands on a fresh machine: `make demo` runs the platform, `make test` runs the tests.
# Python: the newest of 3.13, 3.12 and 3.11 that runs here (the supported ones), or PYTHON=.
SUPPORTED := python3.13 python3.12 python3.11
PYTHON ?= $(firstword $(foreach p,$(SUPPORTED),$(shell $(p) -c '' >/dev/null 2>&1 && echo $(p))))
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: venv demo test test-scorer test-fast lint bench serve worker clean

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "No Python 3.11, 3.12 or 3.13 here: install one (e.g. apt install python3.12-venv), or name it: make PYTHON=/path/to/python3.12"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv

# The scorer (scorer/, its own distribution) and the platform, both editable. The scorer's
# compiled steps (scorer/scoring/native/*.c: the compact scan and mentions, the exploded token
# lines, the metrics' counts, the assignment solver) are built by its standard build
# (scorer/pyproject.toml, setuptools) with the machine's C compiler and Python headers, next
# to the sources, and rebuilt when they change; where they do not build, the same steps run
# in Python. Bytecode is compiled at install: without it every command-line run compiles
# numpy, scipy and the project again (about 0.5 s of CPU where PYTHONDONTWRITEBYTECODE is set).
NATIVE := $(wildcard scorer/scoring/native/*.c scorer/scoring/native/*.h)
# (A scoring/ folder left at the top by an older checkout holds only compiled modules and
# bytecode, but would be imported as an empty package in place of the scorer: it goes.)
$(VENV)/.installed: pyproject.toml scorer/pyproject.toml scorer/setup.py $(NATIVE) | $(BIN)/python
	@if [ -d scoring ] && [ -z "$$(find scoring -type f ! -name '*.so' ! -path '*/__pycache__/*')" ]; then \
		echo "removing scoring/, an older checkout's build output (the scorer is in scorer/scoring)"; \
		rm -rf scoring; fi
	$(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python \
		--reinstall-package universal-anaphora-scorer -e ./scorer -e '.[test]'
	$(BIN)/python -m compileall -q -j 0 scorer/scoring competition leaderboard tasks config client bench
	touch $@

venv: $(VENV)/.installed

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

## The scorer's suite alone (tests/scoring), e.g. on another Python:
## make test-scorer PYTHON=python3.12 VENV=.venv-3.12 (.ci/run does this on every supported one).
test-scorer: venv
	$(BIN)/python -m pytest tests/scoring -m "not services" $(PYTEST_ARGS)

## The habits: ruff's rules (the complexity gate among them) and formatting, mypy (scoring
## strictly), and the size ratchet (long functions and modules, tests/complexity.py).
## Configured in pyproject.toml.
lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m tests.complexity

bench: venv
	$(BIN)/python -m bench

worker: venv
	$(BIN)/celery -A config worker --loglevel=info

clean:
	rm -rf $(VENV) .venv-3.* db.sqlite3 media staticfiles build scorer/build scorer/scoring/native/_*.so
