"""The toolkit's input errors: one base class, so callers (the CLI first) can tell bad input from a bug.

A leaf module (imports nothing from the package) so every layer can raise or catch them. Anything
raised that is not an ``InputError`` is a bug in the toolkit and keeps its traceback.
"""

from __future__ import annotations

from os import PathLike

__all__ = ["CaptureError", "InputError"]


class InputError(ValueError):
    """Input the toolkit was given cannot be used: a file, a settings text, a rule, an argument.

    ``str(error)`` names the input, the place in it and what is wrong; the CLI prints it and exits 2.
    """


class CaptureError(InputError):
    """A capture that cannot be read at all: names the file, the place and what is wrong."""

    def __init__(self, path: str | PathLike[str] | None, message: str, *, location: str | None = None):
        self.path = str(path) if path is not None else None
        self.location = location
        self.reason = message
        where = self.path or "<input>"
        if location:
            where = f"{where} ({location})"
        super().__init__(f"{where}: {message}")
