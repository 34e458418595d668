"""The version of the distribution (pyproject.toml reads it from here; see CHANGELOG.md)."""
__version__ = "4.0.0"
