"""The postmortem template: its headings, table columns and the sentences its code writes."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {}
