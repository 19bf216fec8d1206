"""The toolkit's own translated strings, in one place: report chrome, verdict words, layer names, the
explanations and fixes ``verify`` writes, widget labels, plot labels, the postmortem template's sentences.

The catalogue is one dict, ``MESSAGES``, kept in one module per area (``layers``, ``config``, ``report``,
…) so each stays small; a key defined twice is refused when the package is imported.

Exact upstream texts (DSH's refusals, pi-ai's placeholder, a gateway's error, a config line) are never
here: they are parameters (``{dsh_text}`` and the like), passed verbatim, as they are what a reader
searches for. ``Message`` is a ``str`` holding the English text, so code and tests that read the English
see exactly what they saw before, with the key and parameters kept to render it in another language.

Pure data and formatting: no I/O, no pandas.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit.knowledge.messages import (
    cli,
    config,
    experiment,
    layers,
    plots,
    postmortem,
    provenance,
    report,
    triage,
    widgets,
)
from toolkit.knowledge.messages.surface import ForSurface

__all__ = ["LANGUAGES", "MESSAGES", "Joined", "Message", "counted", "render", "text"]

LANGUAGES = ("en", "zh-CN")


def _merge(*areas: Any) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for area in areas:
        for key, entry in area.MESSAGES.items():
            if key in out:
                raise ValueError(f"message {key!r} is defined twice ({area.__name__} and an earlier area)")
            out[key] = entry
    return out


MESSAGES: dict[str, dict[str, str]] = _merge(
    layers, config, report, experiment, widgets, provenance, postmortem, plots, cli, triage
)


def render(value: Any, lang: str = "en") -> Any:
    """``value`` in ``lang`` if it is a toolkit sentence (``Message`` or ``Joined``), else as it is: an
    upstream text or a datum is never touched. A ``ForSurface`` (``surface.option("mode")``) is first
    taken in the form for the surface in force (the CLI's ``--mode``, the library's ``mode=``)."""
    if isinstance(value, ForSurface):
        value = value.current()
        return "" if value is None else render(value, lang)
    return value.render(lang) if isinstance(value, Message) else value


def counted(key: str, n: Any) -> str:
    """The key of a sentence that counts ``n`` things: ``key_one`` when ``n`` is 1 and the catalogue has
    that form (English writes "1 call", "2 calls"; Chinese does not inflect, so its two forms are the
    same sentence), else ``key``. A sentence that counts is written as two keys, never patched."""
    one = f"{key}_one"
    return one if n == 1 and one in MESSAGES else key


def text(key: str, lang: str = "en", **params: Any) -> str:
    """The text of ``key`` in ``lang`` with ``params`` filled in; a ``Message`` parameter is rendered in
    the same language, anything else is inserted as it is (upstream texts stay verbatim)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: known {', '.join(LANGUAGES)}")
    try:
        entry = MESSAGES[key]
    except KeyError:
        raise KeyError(f"no message {key!r} in toolkit.knowledge.messages.MESSAGES") from None
    filled = {k: render(v, lang) for k, v in params.items()}
    return entry[lang].format(**filled)


class Message(str):
    """A toolkit sentence: the English text as a ``str`` (byte-identical to what the toolkit wrote before
    it was translated), with its key and parameters kept so ``render`` can write it in another language."""

    key: str
    params: dict[str, Any]

    def __new__(cls, key: str, /, **params: Any) -> Message:
        self = super().__new__(cls, text(key, "en", **params))
        self.key = key
        self.params = params
        return self

    def render(self, lang: str = "en") -> str:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}: known {', '.join(LANGUAGES)}")
        return text(self.key, lang, **self.params)

    def __reduce__(
        self,
    ) -> tuple[Any, tuple[str, dict[str, Any]]]:  # pickles (and deep-copies) as a Message, not as its English text
        return (_message, (self.key, self.params))


class Joined(Message):
    """Parts joined by ``sep``, each a ``Message`` (rendered in the language asked for) or verbatim text:
    a list of places and hints, say, where only the hints are the toolkit's own words."""

    parts: tuple[Any, ...]
    sep: str

    def __new__(cls, sep: str, parts: Iterable[Any]) -> Joined:
        kept = tuple(p for p in parts if p)
        self = str.__new__(cls, sep.join(str(p) for p in kept))
        self.key, self.params, self.parts, self.sep = "", {}, kept, sep
        return self

    def render(self, lang: str = "en") -> str:
        return self.sep.join(str(render(p, lang)) for p in self.parts)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (Joined, (self.sep, self.parts))


def _message(key: str, params: dict[str, Any]) -> Message:
    return Message(key, **params)
