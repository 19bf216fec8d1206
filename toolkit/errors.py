"""The one error a reader raises when a file cannot be read at all.

A leaf module (imports nothing from the package) so every layer can raise or catch it.
"""

from __future__ import annotations

from os import PathLike


class CaptureError(ValueError):
    """A capture that cannot be read at all: names the file, the place and what is wrong."""

    def __init__(self, path: str | PathLike | None, message: str, *, location: str | None = None):
        self.path = str(path) if path is not None else None
        self.location = location
        self.reason = message
        where = self.path or "<input>"
        if location:
            where = f"{where} ({location})"
        super().__init__(f"{where}: {message}")
