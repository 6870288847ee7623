"""vap-console: a full-screen terminal console for the Voice Agent Platform API."""

__version__ = "0.1.0"
