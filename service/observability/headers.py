"""Browser-facing headers: security headers on every answer, HSTS over HTTPS, CORS on ``/v1/*``.

- **Security headers** on every response: :data:`SECURITY_HEADERS` (a Content-Security-Policy
  that allows only same-origin scripts, styles, images, fonts and fetches, no framing), plus
  :data:`HSTS` when the request came over HTTPS.  The middleware of
  service/observability/metrics.py adds them as plain tuples in ``start_response``.
- **CORS** on ``/v1/*`` (plain flask-cors): any origin by default (``app.config["CORS_ORIGINS"]``),
  no credentials, methods GET/POST/OPTIONS, request headers Content-Type, Accept-Language,
  X-Request-ID, traceparent and tracestate (:data:`CORS_REQUEST_HEADERS`), response header
  X-Request-ID exposed, preflight cached 10 minutes.
"""
from __future__ import annotations

import flask
from flask_cors import CORS

from service.observability.ids import REQUEST_ID_HEADER


# The calculator page (/) and the Swagger UI page (/docs) load only same-origin files, so no
# 'unsafe-inline' is needed: no inline <script>; Swagger UI's React code sets element styles
# through the CSSOM, which style-src does not govern; its one inline <style> element is the
# two-rule stylesheet inside its logo's SVG, allowed below by its hash (swagger-ui-bundle 1.1.0:
# ".logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}"); data: images
# (Swagger UI's CSS draws icons as data: SVGs; the calculator's favicon is "data:,").
# tests/server/test_observability.py loads both pages in Chromium under this policy, tries an
# operation in Swagger UI, and fails on any violation.
SWAGGER_LOGO_STYLE_HASH = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='"
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    f"style-src 'self' {SWAGGER_LOGO_STYLE_HASH}",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}
HSTS = "max-age=31536000; includeSubDomains"

#: Request headers a browser may send on a cross-origin /v1 call (preflight ``Allow-Headers``):
#: the body's type, the language, the request ID and W3C trace context (traceparent, tracestate).
CORS_REQUEST_HEADERS = ("Content-Type", "Accept-Language", REQUEST_ID_HEADER, "traceparent", "tracestate")


def init_cors(app: flask.Flask) -> None:
    """Plain flask-cors on ``/v1/*``, with the options of the module's docstring."""
    origins = app.config.get("CORS_ORIGINS", "*")
    CORS(app,
         resources={r"/v1/*": {"origins": origins}},
         methods=["GET", "POST", "OPTIONS"],
         allow_headers=list(CORS_REQUEST_HEADERS),
         expose_headers=[REQUEST_ID_HEADER],
         send_wildcard=origins == "*",
         vary_header=True,
         max_age=600)

