# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
export HOST PORT

.PHONY: run test install install-dev compile bench openapi lock clean

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

# The library's hot modules compiled with Cython (build_ext.py), rebuilt when a source or its
# Cython declarations (ningbo_score/*.pxd) change.  Without a C compiler the build fails and the
# same modules run as plain Python (slower, same results): make says so and goes on.
# (the list of ningbo_score.COMPILED; tests/test_build.py checks they agree)
COMPILED_SRC := $(addprefix ningbo_score/,$(addsuffix .py,caishen decompose engine hand items payments rules shanten tiles))

$(VENV)/.build: requirements-build.txt | $(VENV)/bin/python
	$(PY) -m pip install -q --require-hashes -r requirements-build.txt
	touch $@

ningbo_score/_compiled/SOURCES: $(VENV)/.build build_ext.py $(COMPILED_SRC) $(wildcard ningbo_score/*.pxd)
	@echo "compiling the library with Cython (about a minute; log: $(VENV)/build_ext.log)"
	@$(PY) build_ext.py > $(VENV)/build_ext.log 2>&1 \
	  || { tail -20 $(VENV)/build_ext.log; echo "WARNING: compiling failed; the library runs as plain Python"; }

compile: ningbo_score/_compiled/SOURCES

install: $(VENV)/.runtime compile
install-dev: $(VENV)/.dev compile

run: install
	exec $(VENV)/bin/gunicorn -c gunicorn.conf.py app:app

test: install-dev
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

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis ningbo_score/_compiled
