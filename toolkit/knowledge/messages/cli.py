"""The command line's own lines: what it wrote, and the `config` command's output."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {}
