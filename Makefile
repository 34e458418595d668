# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
export HOST PORT

.PHONY: run test install install-dev bench openapi lock clean

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

install: $(VENV)/.runtime
install-dev: $(VENV)/.dev

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

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
