"""Where a sentence is read: through the Python API or on the command line.

A hint names something the reader can give (the sandbox mode, the settings file), and the two
surfaces spell it differently: ``mode=`` to a Python caller, ``--mode`` to someone at a shell. A hint
worded for the wrong surface sends the reader looking for a keyword that does not exist where they are
(``agent-contract verify`` has no ``mode=``). So the spelling is not written into the sentence: the
sentence takes ``option("mode")``, a ``ForSurface`` whose text is the spelling for the surface in force
when it is written, and ``OPTIONS`` holds every spelling once.

The surface is ambient rather than a parameter because it belongs to the whole command: the CLI sets it
once around a command (``with surface("cli"):``) and every sentence written inside, an error line or a
layer's summary, is worded for the shell; the library's default is ``"python"``. It is a context
variable, so a thread or task that sets it does not change it for another.

Pure data and formatting: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["OPTIONS", "SURFACES", "ForSurface", "current", "option", "surface"]

SURFACES = ("python", "cli")

#: how a reader gives each input on each surface; None where the surface has no such input (the
#: command line reads settings from a file only, never from YAML text)
OPTIONS: dict[str, dict[str, str | None]] = {
    "mode": {"python": "mode=", "cli": "--mode"},
    "settings": {"python": "settings=", "cli": "--settings"},
    "settings_text": {"python": "text=", "cli": None},
}

_SURFACE: ContextVar[str] = ContextVar("agent_contract_surface", default="python")


def current() -> str:
    """The surface sentences are being written for now."""
    return _SURFACE.get()


@contextmanager
def surface(name: str) -> Iterator[None]:
    """Write every sentence inside the block for surface ``name`` (``"python"`` or ``"cli"``)."""
    if name not in SURFACES:
        raise ValueError(f"unknown surface {name!r}: known {', '.join(SURFACES)}")
    token = _SURFACE.set(name)
    try:
        yield
    finally:
        _SURFACE.reset(token)


class ForSurface:
    """One thing said once per surface: its text is the form for the surface in force when it is
    written (``str``, ``format``, or ``messages.render`` for a form that is itself a ``Message``)."""

    __slots__ = ("forms",)

    def __init__(self, **forms: Any) -> None:
        unknown = set(forms) - set(SURFACES)
        if unknown or set(forms) != set(SURFACES):
            raise ValueError(f"give one form for each surface ({', '.join(SURFACES)}), not {sorted(forms)}")
        self.forms = forms

    def current(self) -> Any:
        """The form for the surface in force (None where the surface has none)."""
        return self.forms[current()]

    def __str__(self) -> str:
        form = self.current()
        return "" if form is None else str(form)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"ForSurface({', '.join(f'{k}={v!r}' for k, v in self.forms.items())})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ForSurface) and other.forms == self.forms

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, str(v)) for k, v in self.forms.items())))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_for_surface, (tuple(self.forms.items()),))


def _for_surface(items: tuple[tuple[str, Any], ...]) -> ForSurface:
    return ForSurface(**dict(items))


def option(name: str) -> ForSurface:
    """The input ``name`` (a key of ``OPTIONS``) as the surface in force spells it."""
    try:
        return ForSurface(**OPTIONS[name])
    except KeyError:
        raise KeyError(f"no option {name!r} in toolkit.knowledge.messages.surface.OPTIONS") from None
