"""Readers: find the bytes in a file and hand them to ``toolkit.wire``; nothing else.

Every reader is a generator ``read(path, source) -> Iterator[Record]`` yielding ``Decoded``,
``Problem``, ``Event`` and ``ToolResult`` records as it goes, and one ``EntryCount`` at the end. A
file that cannot be read at all raises ``toolkit.errors.CaptureError``; a bad entry becomes a
``Problem`` and reading goes on.
"""

__all__: list[str] = []
