# syntax=docker/dockerfile:1
# The scoring service: gunicorn serving app:app on port 8000 (`python -m service`: service/__main__.py).
#   docker build --build-arg VERSION=4.0.0 --build-arg REVISION="$(git rev-parse HEAD)" \
#     --build-arg SOURCE=https://git.example.com/ningbo-score -t ningbo-score:4.0.0 .
#   docker run --rm -p 8000:8000 ningbo-score:4.0.0
# (the syntax line: BuildKit's Dockerfile frontend 1.x, which `RUN --mount` below needs)
# Base images pinned to an exact Python and Debian release (bump both FROM lines together).

# Build stage: the package's wheel, built the standard way (pip's build isolation, as `pip install .`
# anywhere), its hot modules compiled with Cython; the full image has the C compiler the slim one
# lacks.  The build environment takes setuptools and Cython from a wheelhouse of the hashed pins
# of requirements-build.txt only (pyproject.toml's [build-system] names the same versions), as
# `make wheelhouse` and tests/build/test_package.py do.  Only the wheel leaves this stage.
FROM python:3.11.14-bookworm AS build
WORKDIR /build
COPY requirements-build.txt ./
RUN pip download --no-cache-dir --no-deps --require-hashes -r requirements-build.txt -d /wheelhouse
COPY pyproject.toml setup.py LICENSE README.md ./
COPY ningbo_score ningbo_score
RUN pip wheel --no-cache-dir --no-deps --no-index --find-links /wheelhouse -w /wheels .

FROM python:3.11.14-slim-bookworm

# Who built what (OCI image annotations); VERSION is ningbo_score/_version.py's (make release),
# REVISION the commit, also given to the service (the revision label of ningbo_score_build_info),
# SOURCE the repository's URL (the project names none of its own).
ARG VERSION=4.0.0
ARG REVISION=unknown
ARG SOURCE=unknown
LABEL org.opencontainers.image.title="ningbo-score" \
      org.opencontainers.image.description="Ningbo mahjong (宁波麻将) scoring service" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="MIT"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    HOST=0.0.0.0 \
    PORT=8000 \
    NINGBO_SCORE_REVISION=${REVISION}
# /metrics is served on METRICS_HOST:METRICS_PORT (127.0.0.1:8011 by default: inside the
# container only); deploy/deployment.yaml sets METRICS_HOST=0.0.0.0 for the scraper.

WORKDIR /app

# Dependencies first (exact versions and hashes), so that a source change reuses this layer.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements.txt

# The library: the wheel built above (with the `ningbo-score` command), into site-packages.
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-deps /wheels/ningbo_score-*.whl

# Then the service (what .dockerignore lets through), owned by root and read-only to the
# service; byte-compiled now since the running user can't write here.  The library's source
# copy goes: `python -m` (and gunicorn) put /app first on sys.path, where it would shadow the
# compiled install.
COPY . .
RUN rm -r ningbo_score && python -m compileall -q /app

# An unprivileged numeric user (Kubernetes' runAsNonRoot can check a number, not a name).
USER 10001:10001

EXPOSE 8000

# Liveness without curl (not in the slim image): Python's urllib against /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=4); sys.exit(0 if r.status == 200 else 1)"]

# The settings read first (a bad one, WEB_CONCURRENCY's included, is one line and exit status 2,
# not gunicorn's traceback), then gunicorn with gunicorn.conf.py in the same process (PID 1).
CMD ["python", "-m", "service"]
