"""The plots' titles, axis labels and legends."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {}
