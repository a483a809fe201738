# The two commands: `make run` (serve on http://127.0.0.1:8000) and `make test`.
# Also: `make dev` (`make run` with Django's debug mode), `make test-fast`, `make lint`,
# `make bench`, `make lock`. Everything runs from .venv, built here on first use from the lock
# files (exact versions, checked by hash).

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Where the linters and type checker look; games/engine is checked with --strict flags
# (pyproject.toml), the Django apps with the defaults.
CODE := config accounts chat notifications games tournaments ratings lobby
# pytest-xdist workers. The tests wait on sockets, subprocesses and browsers more than they
# compute, so more workers than this machine's two cores pay (README, Contributing).
TEST_WORKERS ?= 6
# The fast set computes more than it waits (its slow waiters are in the slow groups), so it runs
# best with few more workers than cores: on the two-core machine 3 beat 6 (README, Contributing).
FAST_WORKERS ?= 3
# Tests of a group (tests/conftest.py puts each browser module in one) share a worker.
PYTEST := $(VENV)/bin/pytest --dist loadgroup
# More pytest options, e.g. PYTEST_ARGS="--randomly-seed=1234" to replay an order.
PYTEST_ARGS ?=

.PHONY: run dev test test-fast lint bench lock clean

# Find Python 3.12 or newer. pyenv shims can exist and still fail ("command not found"), so each
# candidate must actually run and report a version before it is chosen.
define find_python
for cand in python3.13 python3.12 \
    $$(pyenv root 2>/dev/null)/versions/3.1[3-9]*/bin/python3 \
    $$(pyenv root 2>/dev/null)/versions/3.12*/bin/python3 python3; do \
  if "$$cand" -c 'import sys; assert sys.version_info >= (3, 12)' >/dev/null 2>&1; then \
    echo "$$cand"; exit 0; \
  fi; \
done; \
echo "Python 3.12 or newer is needed; none was found." >&2; exit 1
endef

# A half-made venv (no ensurepip on Debian without python3-venv, a failed pip upgrade) is
# removed, so the next `make` starts over instead of trusting a broken .venv/bin/python.
$(PY):
	@python=$$($(find_python)) || exit 1; echo "Creating $(VENV) with $$python"; \
	  { "$$python" -m venv $(VENV) && $(PY) -m pip install --quiet --upgrade pip; } || \
	  { rm -rf $(VENV); echo "Could not create $(VENV) (on Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; }

# Stamps: reinstall only when a lock file changes. The lock files pin every package, the
# dependencies' dependencies too, with their hashes (`make lock` writes them from pyproject.toml);
# the project itself is installed after them, without dependencies of its own choosing.
$(VENV)/.installed: requirements.lock | $(PY)
	$(PY) -m pip install --quiet --require-hashes -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

$(VENV)/.installed-dev: requirements-dev.lock | $(PY)
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@ $(VENV)/.installed

# Write requirements.lock (runtime: the Dockerfile and `make run`) and requirements-dev.lock
# (runtime and dev: `make test`, `make lint`, CI) from pyproject.toml, with every file's hash.
# Versions already locked are kept; a new dependency is added at its newest allowed version.
# `make lock LOCK_ARGS=--upgrade` moves everything to the newest allowed versions instead,
# `LOCK_ARGS="--upgrade-package django"` one package. Commit both files with pyproject.toml.
LOCK_ARGS ?=
PIP_COMPILE := $(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links $(LOCK_ARGS)
lock: | $(PY)
	@[ -x $(VENV)/bin/pip-compile ] || $(PY) -m pip install --quiet 'pip-tools>=7.4'
	$(PIP_COMPILE) --output-file requirements.lock pyproject.toml
	$(PIP_COMPILE) --extra dev --output-file requirements-dev.lock pyproject.toml

run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_initial_data
	$(PY) manage.py create_admin
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops the server and its embedded worker)"
	exec $(VENV)/bin/daphne -b $(HOST) -p $(PORT) config.asgi:application

# `make run` with DEBUG on: tracebacks on error pages, static files re-read on every request.
# For a developer's own machine only: debug pages show settings and code to whoever sees them.
dev: export DJANGO_DEBUG = 1
dev: run

test: $(VENV)/.installed-dev
	$(PYTEST) -n $(TEST_WORKERS) $(PYTEST_ARGS)

# Everything but the slow groups (faults, bench, hostile, browser, processes; pyproject.toml).
test-fast: $(VENV)/.installed-dev
	$(PYTEST) -n $(FAST_WORKERS) -m "not slow" $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy $(wildcard $(CODE))

bench: $(VENV)/.installed-dev
	@set -e; for f in bench/*.py; do [ -e "$$f" ] || continue; $(PY) "$$f"; done

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache
