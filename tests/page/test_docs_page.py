"""The docs page in a real browser: headless Chromium loads /docs from the real server (gunicorn,
no internet needed: Swagger UI comes from the installed package), renders the operations of
openapi.yaml, and a screenshot of it is checked."""
from __future__ import annotations

import re
import struct

import numpy as np
import pytest
from matplotlib import image as mpimg

from _chromium import run_chromium
from conftest import gunicorn_server

WIDTH, HEIGHT = 1280, 1600
BUDGET = "--virtual-time-budget=15000"  # virtual ms for scripts and the spec fetch to finish


@pytest.fixture(scope="module")
def docs_url():
    with gunicorn_server({"WEB_CONCURRENCY": "1"}) as (base, _):
        yield f"{base}/docs"


def test_docs_page_renders_the_operations(docs_url, tmp_path):
    result = run_chromium(docs_url, "--dump-dom", BUDGET, user_data_dir=tmp_path / "profile")
    dom = result.stdout.decode("utf-8", "replace")
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert 'id="swagger-ui"' in dom
    assert "Unable to render this definition" not in dom and "Failed to load API definition" not in dom
    # every operation of openapi.yaml is listed, POST /v1/score among them
    paths = set(re.findall(r'data-path="([^"]+)"', dom))
    assert {"/v1/score", "/v1/rules", "/v1/rules/{preset}", "/healthz"} <= paths, paths
    assert re.search(r'opblock-summary-method">POST<', dom)
    assert "Score a winning hand" in dom
    assert "Ningbo mahjong scoring API" in dom  # the title of openapi.yaml's info


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_docs_page_screenshot(docs_url, tmp_path):
    shot = tmp_path / "docs.png"
    result = run_chromium(docs_url, f"--screenshot={shot}", f"--window-size={WIDTH},{HEIGHT}", BUDGET,
                          user_data_dir=tmp_path / "profile")
    assert result.returncode == 0 and shot.exists(), result.stderr.decode()[-2000:]
    data = shot.read_bytes()
    assert png_size(data) == (WIDTH, HEIGHT)
    pixels = (mpimg.imread(shot)[:, :, :3] * 255).round().astype(np.int32)
    assert pixels.shape == (HEIGHT, WIDTH, 3)
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    assert len(colours) > 200, f"only {len(colours)} colours: a blank or unstyled page"
    # Swagger UI's own look, so its CSS and scripts were loaded from the server:
    # the dark top bar ...
    top = pixels[5:50, 200:600, :].reshape(-1, 3)  # between the logo and the URL box
    assert (top.max(axis=1) < 60).mean() > 0.95, "no dark Swagger UI top bar"
    # ... and the green POST badge (#49cc90) and blue GET badges (#61affe) of the operations
    def share(rgb) -> float:
        return (np.abs(pixels - np.array(rgb)).max(axis=2) <= 12).mean()
    assert share((0x49, 0xCC, 0x90)) > 0.0005, "no POST operation drawn"
    assert share((0x61, 0xAF, 0xFE)) > 0.0005, "no GET operation drawn"
    # most of the page is the light background, text in dark
    assert (pixels.min(axis=2) > 230).mean() > 0.4
