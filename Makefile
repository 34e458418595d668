# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
export HOST PORT

SHELL := /bin/bash

.PHONY: run test lint install install-dev compile bench openapi lock release clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip==25.3

# Runtime dependencies, exactly the hashed versions of requirements.txt.
$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --require-hashes -r requirements.txt
	touch $@

# Test and benchmark dependencies on top (requirements-dev.txt is hashed too).
$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	$(PY) -m pip install -q --require-hashes -r requirements.txt -r requirements-dev.txt
	touch $@

# The package itself (pyproject.toml, setup.py), installed editable into the venv: pip builds it
# with the hashed build requirements (no build isolation, so nothing unpinned is fetched), which
# compiles the library's hot modules with Cython into ningbo_score/_compiled/ where a C compiler
# works.  Without one the same modules run as plain Python (slower, same results): setup.py says
# so and the install goes on.  Rebuilt when a compiled module's source or its Cython
# declarations (ningbo_score/*.pxd) change.  Progress: setup.py's "ningbo-score:" lines, one or
# two a module (pip's whole output: $(VENV)/build.log).
# (the list of ningbo_score.COMPILED; tests/test_build.py checks they agree)
COMPILED_SRC := $(addprefix ningbo_score/,$(addsuffix .py,caishen decompose engine hand items payments rules shanten tiles))

$(VENV)/.build: requirements-build.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --require-hashes -r requirements-build.txt
	touch $@

$(VENV)/.package: $(VENV)/.build pyproject.toml setup.py ningbo_score/_version.py $(COMPILED_SRC) $(wildcard ningbo_score/*.pxd)
	@echo "building the package (pip install -e .; log: $(VENV)/build.log)"
	@set -o pipefail; $(PY) -m pip install -v --no-deps --no-build-isolation -e . 2>&1 \
	  | tee $(VENV)/build.log | { grep --line-buffered -E '^ *(ningbo-score:|Successfully installed|ERROR)' || true; } \
	  || { tail -30 $(VENV)/build.log; exit 1; }
	@touch $@

compile: $(VENV)/.package

install: $(VENV)/.runtime compile
install-dev: $(VENV)/.dev compile

run: install
	exec $(VENV)/bin/gunicorn -c gunicorn.conf.py app:app

# ruff and mypy as pyproject.toml configures them (mypy strict for ningbo_score/); both must
# report nothing.
lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: install-dev lint
	$(PY) -m pytest -q

bench: install-dev
	$(PY) bench/score_bench.py

openapi: install-dev
	$(PY) -m tools.gen_openapi -o openapi.yaml

# Re-pin after editing requirements*.in (needs pip-tools).
lock:
	pip-compile -q --generate-hashes --strip-extras --allow-unsafe -o requirements.txt requirements.in
	pip-compile -q --generate-hashes --strip-extras --allow-unsafe -o requirements-dev.txt requirements-dev.in
	pip-compile -q --generate-hashes --strip-extras --allow-unsafe -o requirements-build.txt requirements-build.in

# A release is the annotated git tag vX.Y.Z of ningbo_score/_version.py, made on a clean tree
# (nothing uncommitted, nothing untracked) whose CHANGELOG.md has a "## [X.Y.Z]" section, and
# never over an existing tag.  Push it yourself: git push origin vX.Y.Z.
release:
	@set -e; version=$$(sed -n 's/^__version__ = "\(.*\)"$$/\1/p' ningbo_score/_version.py); tag="v$$version"; \
	  [ -n "$$version" ] || { echo "release: no __version__ in ningbo_score/_version.py" >&2; exit 1; }; \
	  [ -z "$$(git status --porcelain)" ] || { echo "release: the tree is not clean (git status)" >&2; exit 1; }; \
	  ! git rev-parse -q --verify "refs/tags/$$tag" >/dev/null || { echo "release: $$tag exists" >&2; exit 1; }; \
	  grep -q "^## \[$$version\]" CHANGELOG.md || { echo "release: CHANGELOG.md has no [$$version]" >&2; exit 1; }; \
	  git tag -a "$$tag" -m "ningbo-score $$version"; echo "tagged $$tag: git push origin $$tag"

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache .ruff_cache ningbo_score/_compiled build *.egg-info
