# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
export HOST PORT

SHELL := /bin/bash

.PHONY: run test screenshots offline lint install install-dev compile wheelhouse dist bench openapi lock release clean

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
# (the list of ningbo_score.COMPILED; tests/build/test_build.py checks they agree)
COMPILED_SRC := $(addprefix ningbo_score/,$(addsuffix .py,caishen decompose engine hand items payments rules shanten tiles))

$(VENV)/.build: requirements-build.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --require-hashes -r requirements-build.txt
	touch $@

$(VENV)/.package: $(VENV)/.build pyproject.toml setup.py ningbo_score/_version.py ningbo_score/_sources.py $(COMPILED_SRC) $(wildcard ningbo_score/*.pxd)
	@echo "building the package (pip install -e .; log: $(VENV)/build.log)"
	@set -o pipefail; $(PY) -m pip install -v --no-deps --no-build-isolation -e . 2>&1 \
	  | tee $(VENV)/build.log | { grep --line-buffered -E '^ *(ningbo-score:|Successfully installed|ERROR)' || true; } \
	  || { tail -30 $(VENV)/build.log; exit 1; }
	@touch $@

compile: $(VENV)/.package

# The standard build (pip's build isolation, as `pip install .`, `pip wheel .` and `python -m build`
# on any machine), offline: its build environment takes setuptools and Cython from a wheelhouse
# of requirements-build.txt's hashed pins (pyproject.toml's [build-system] names the same
# versions).  tests/build/test_package.py builds this way; so does the Dockerfile.
$(VENV)/wheelhouse/.complete: requirements-build.txt | $(VENV)/bin/python
	$(PY) -m pip download -q --no-deps --require-hashes -r requirements-build.txt -d $(VENV)/wheelhouse
	touch $@

wheelhouse: $(VENV)/wheelhouse/.complete

# sdist and wheel into dist/ (the wheel built from the sdist, compiled where a C compiler works),
# then auditwheel's manylinux wheel beside the platform one: what a package index takes.
dist: $(VENV)/.dev $(VENV)/wheelhouse/.complete
	rm -rf dist
	PIP_NO_INDEX=1 PIP_FIND_LINKS=$(VENV)/wheelhouse $(PY) -m build --outdir dist .
	if ls dist/*-linux_*.whl >/dev/null 2>&1; then \
	  PATH=$(VENV)/bin:$$PATH $(VENV)/bin/auditwheel repair -w dist dist/*-linux_*.whl && rm dist/*-linux_*.whl; fi
	ls dist

install: $(VENV)/.runtime compile
install-dev: $(VENV)/.dev compile wheelhouse

# Where to open it first, then `python -m service` (service/__main__.py): the settings are read
# first (a bad one is a line naming it, WEB_CONCURRENCY included, which gunicorn would read
# itself with a traceback), then gunicorn runs with gunicorn.conf.py, which ends the start in one
# line naming the variable to set if a port is taken: PORT, METRICS_PORT or HOST.
run: install
	@h='$(HOST)'; case "$$h" in 0.0.0.0|::) h=127.0.0.1;; *:*) h="[$$h]";; esac; \
	  echo "ningbo-score: the page at http://$$h:$(PORT)/ and the API docs at http://$$h:$(PORT)/docs"
	exec $(VENV)/bin/python -m service

# ruff and mypy as pyproject.toml configures them (mypy strict for ningbo_score/); both must
# report nothing.
lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The tests run under slipcover, which prints the share of the house's lines they ran (the files
# not all run, then the total) and fails below the floor COVERAGE_FLOOR, a little below the figure
# measured (83.0% on 2026-12-07, over the tests that run in-process).  It counts what runs in the
# tests' own process (not the gunicorn or CLI that a test starts) and can't see into C: where the
# compiled modules are in use the figure leaves them out (NINGBO_SCORE_PURE=1 make test counts
# them, as plain Python).  It instruments only the measured modules, so the tests take about 7%
# longer than plain pytest (coverage.py's tracer: twice as long on Python 3.11).
COVERAGE_FLOOR ?= 80
COVERED := ningbo_score,service,schemas,tools
COMPILED_IN_USE = $(shell $(PY) -c 'import ningbo_score as n; print(",".join(f"ningbo_score/{m}.py" for m in n.COMPILED) if n.USING_COMPILED else "")' 2>/dev/null)
test: install-dev lint
	$(PY) -m slipcover --source $(COVERED) $(if $(COMPILED_IN_USE),--omit $(COMPILED_IN_USE)) --skip-covered \
	  --missing-width 40 --fail-under $(COVERAGE_FLOOR) -m pytest -q

# docs/screenshots/: the page at phone and desktop size, in both languages (the tests draw them
# into a temporary folder otherwise, leaving the checkout as it was)
# Scoring with no signal (the page's 离线计分): Pyodide from the npm registry, the pure-Python wheel
# and marshmallow's, into build/offline/ (not committed: 13.7 MB), served at /offline/ when there.
offline: install-dev
	$(PY) -m tools.build_offline

screenshots: install-dev
	UPDATE_SCREENSHOTS=1 $(PY) -m pytest -q tests/page/test_page.py -k test_screenshots

bench: install-dev
	$(PY) bench/score_bench.py

openapi: install-dev
	$(PY) -m tools.gen_openapi -o openapi.yaml

# Re-pin after editing requirements*.in (needs pip-tools).  No index or find-links line of this
# machine's pip configuration goes into the lock files (--no-emit-…, and the filter for any that
# a -c or -r file carries): they are for every machine (tests/build/test_dockerfile.py checks).
LOCK := pip-compile -q --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
	--no-emit-trusted-host
UNLOCAL := sed -i -E '/^--(extra-)?index-url|^--find-links|^-f |^-i |^--trusted-host/d'
lock:
	$(LOCK) -o requirements.txt requirements.in && $(UNLOCAL) requirements.txt
	$(LOCK) -o requirements-dev.txt requirements-dev.in && $(UNLOCAL) requirements-dev.txt
	$(LOCK) -o requirements-build.txt requirements-build.in && $(UNLOCAL) requirements-build.txt

# A release is the annotated git tag vX.Y.Z of ningbo_score/_version.py, made on a clean tree
# (nothing uncommitted, nothing untracked) whose CHANGELOG.md has a "## [X.Y.Z]" section, and
# never over an existing tag.  The tag's message is that section, as it is written
# (tools/changelog.py; tests/build/test_release.py checks every dated section has its tag).  Push it
# yourself: git push origin vX.Y.Z.
release:
	@set -e; version=$$(sed -n 's/^__version__ = "\(.*\)"$$/\1/p' ningbo_score/_version.py); tag="v$$version"; \
	  [ -n "$$version" ] || { echo "release: no __version__ in ningbo_score/_version.py" >&2; exit 1; }; \
	  [ -z "$$(git status --porcelain)" ] || { echo "release: the tree is not clean (git status)" >&2; exit 1; }; \
	  ! git rev-parse -q --verify "refs/tags/$$tag" >/dev/null || { echo "release: $$tag exists" >&2; exit 1; }; \
	  section=$$(python3 tools/changelog.py section "$$version" 2>&1) || { echo "release: $$section" >&2; exit 1; }; \
	  git tag -a "$$tag" --cleanup=verbatim -m "$$section"; echo "tagged $$tag: git push origin $$tag"

clean:
	rm -rf $(VENV) dist .pytest_cache .hypothesis .mypy_cache .ruff_cache ningbo_score/_compiled build *.egg-info
