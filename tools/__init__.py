"""Developer tools of the service (``python -m tools.gen_openapi``)."""
