"""Textual-free client for the Voice Agent Platform API."""

from vap_console.api import errors, models

__all__ = ["errors", "models"]
