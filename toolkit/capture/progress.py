"""One progress line for long reads: records (and bytes, when known) per second, on stderr or in a notebook.

On a terminal the line is rewritten in place with ``\\r``; in a Jupyter kernel it is one text output
updated in place through ``IPython.display`` (plain text, no widget, so nothing is left in a saved
notebook's widget state). The clock is read once every ``EVERY`` records, so counting costs nothing.

Bytes come from a callable that says how far the reader has got in its file (``file_position`` reads
the offset of the reader's own open file from ``/proc/self/fdinfo`` on Linux; elsewhere there is no
byte count and the line shows records only).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["EVERY", "WIDGET_VIEW", "Progress", "file_position", "in_notebook"]

#: Records between two readings of the clock.
EVERY = 256


def in_notebook() -> bool:
    """Whether this runs inside a Jupyter kernel (where stderr is no terminal but a person watches)."""
    if "ipykernel" not in sys.modules:
        return False
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def file_position(path: str | os.PathLike[str], *, ignore: Iterable[int] = ()) -> Callable[[], int | None]:
    """How many bytes of ``path`` this process's reader has consumed so far: the offset of the file
    descriptor open on it (Linux ``/proc/self/fdinfo``), or None where that cannot be known.

    The readers open their files themselves; this reads where they are without touching them. A
    compressed file's offset counts compressed bytes, so it compares with the file's size. ``ignore``:
    descriptors of the same file that are not the reader's (a digest being computed beside it)."""
    target = str(Path(path).resolve())
    fd_dir = Path("/proc/self/fd")
    state: dict[str, int | None] = {"fd": None}
    skip = {str(fd) for fd in ignore}

    def find() -> int | None:
        try:
            names = os.listdir(fd_dir)
        except OSError:
            return None
        for name in names:
            if name in skip:
                continue
            try:
                if os.readlink(fd_dir / name) == target:
                    return int(name)
            except (OSError, ValueError):
                continue
        return None

    def position() -> int | None:
        fd = state["fd"]
        try:
            if fd is None or os.readlink(fd_dir / str(fd)) != target:
                fd = state["fd"] = find()
            if fd is None:
                return None
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as f:
                for line in f:
                    if line.startswith("pos:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            state["fd"] = None
        return None

    return position


class Progress:
    """``label: 12345 records, 98.1/1024.0 MB (9%), 4100 records/s, 32.7 MB/s, 3.0s``, updated twice a
    second; a last line says ``done`` or ``interrupted``. Shown on a terminal, in a notebook, or when
    ``enabled=True``; never when ``enabled=False``."""

    def __init__(
        self,
        label: str,
        *,
        enabled: bool | None = None,
        unit: str = "records",
        total_bytes: int | None = None,
        position: Callable[[], int | None] | None = None,
        interval: float = 0.5,
    ):
        self.label = label
        self.unit = unit
        self.total_bytes = total_bytes
        self.position = position
        self.interval = interval
        self.notebook = in_notebook() if enabled is not False else False
        self.enabled = (sys.stderr.isatty() or self.notebook) if enabled is None else enabled
        self.n = 0
        self.bytes: int | None = None
        self.start = self.last = time.monotonic()
        self._handle = None

    def __enter__(self) -> Progress:
        return self

    def tick(self, n: int = 1) -> None:
        before = self.n
        self.n += n
        if self.enabled and self.n // EVERY != before // EVERY:
            now = time.monotonic()
            if now - self.last >= self.interval:
                self.last = now
                self._show(self.line(now))

    def line(self, now: float | None = None, state: str | None = None) -> str:
        """The progress text at ``now``."""
        now = time.monotonic() if now is None else now
        elapsed = now - self.start
        parts = [f"{self.label}: {self.n} {self.unit}"]
        if self.position is not None:
            pos = self.position()
            self.bytes = pos if pos is not None else self.bytes
        if self.bytes is not None:
            size = f"{self.bytes / 1e6:.1f}"
            if self.total_bytes:
                size += f"/{self.total_bytes / 1e6:.1f} MB ({min(100, 100 * self.bytes // self.total_bytes)}%)"
            else:
                size += " MB"
            parts.append(size)
        if elapsed > 0:
            parts.append(f"{self.n / elapsed:.0f} {self.unit}/s")
            if self.bytes is not None:
                parts.append(f"{self.bytes / 1e6 / elapsed:.1f} MB/s")
        parts.append(f"{elapsed:.1f}s")
        if state:
            parts.append(state)
        return ", ".join(parts)

    def _show(self, text: str, final: bool = False) -> None:
        if self.notebook:
            if self._handle is None:
                self._handle = _notebook_line(text)
            else:
                self._handle.value = text
            return
        print(f"\r{text}", end="\n" if final else "", file=sys.stderr, flush=True)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.enabled and self.last != self.start:
            if self.position is not None and exc_type is None:
                self.bytes = self.total_bytes if self.total_bytes is not None else self.bytes
                self.position = None
            state = "interrupted" if exc_type is KeyboardInterrupt else "done"
            self._show(self.line(state=state), final=True)


#: The only MIME type of the progress output in a notebook: a widget view, which JupyterLab renders
#: live and a saved notebook keeps no state of (so whether a load was slow enough to show progress
#: never changes what the notebook holds, nor what strict nbval compares).
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _notebook_line(text: str):
    """A live one-line label under the cell; the line as text where ipywidgets is missing."""
    from IPython.display import display

    try:
        import ipywidgets
    except ImportError:
        return _PlainLine(text)
    label = ipywidgets.Label(value=text)
    view = {"model_id": label.model_id, "version_major": 2, "version_minor": 0}
    display({WIDGET_VIEW: view}, raw=True)
    return label


class _PlainLine:
    """A progress line shown as text and updated in place (no ipywidgets)."""

    def __init__(self, text: str) -> None:
        from IPython.display import Pretty, display

        self._pretty = Pretty
        self._handle = display(Pretty(text), display_id=True)

    @property
    def value(self) -> str:  # pragma: no cover - only the setter is used
        return ""

    @value.setter
    def value(self, text: str) -> None:
        self._handle.update(self._pretty(text))
