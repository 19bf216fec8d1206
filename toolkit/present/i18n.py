"""The language the toolkit writes its own words in (reports, widgets): ``en`` or ``zh-CN``.

The library's default is English whatever the machine's locale, so a notebook's outputs do not depend on
where it runs; a notebook or program chooses with ``set_language`` (or ``AGENT_CONTRACT_LANG``). The CLI
also follows the locale (``cli_language``), as a command line is expected to.
"""

from __future__ import annotations

import os
from typing import Any

from toolkit.knowledge.messages import LANGUAGES, render, text

__all__ = ["ENV", "LANGUAGES", "cli_language", "language", "localize", "set_language", "t"]

ENV = "AGENT_CONTRACT_LANG"
_chosen: str | None = None


def _check(lang: str, where: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"{where}: unknown language {lang!r}: known {', '.join(LANGUAGES)}")
    return lang


def set_language(lang: str | None) -> None:
    """Write the toolkit's words in ``lang`` from now on; ``None`` goes back to the default."""
    global _chosen
    _chosen = None if lang is None else _check(lang, "set_language")


def language() -> str:
    """``set_language``'s choice, else ``AGENT_CONTRACT_LANG``, else English (never the locale)."""
    if _chosen is not None:
        return _chosen
    env = os.environ.get(ENV)
    return _check(env, ENV) if env else "en"


def cli_language(arg: str | None = None) -> str:
    """The CLI's language: ``--lang``, else ``AGENT_CONTRACT_LANG``, else a ``zh`` locale
    (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, the first one set) as ``zh-CN``, else English."""
    if arg:
        return _check(arg, "--lang")
    env = os.environ.get(ENV)
    if env:
        return _check(env, ENV)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value:
            return "zh-CN" if value.lower().startswith("zh") else "en"
    return "en"


def t(key: str, **params: Any) -> str:
    """``key`` in the current language (``language()``)."""
    return text(key, language(), **params)


def localize(
    frame: Any,
    columns: list[str] | None = None,
    *,
    words: dict[str, str] | None = None,
    labels: str | None = None,
    lang: str | None = None,
) -> Any:
    """A copy of ``frame``'s ``columns`` (default all) for a reader in ``lang`` (default ``language()``):
    the toolkit's sentences (``Message`` cells) rendered, upstream texts, identifiers and data as they are.
    ``words`` maps a column to the message-key prefix its values are words of (``{"severity":
    "severity"}``: ``error`` is ``severity.error``); ``labels``, a key prefix, translates the column names
    (``postmortem.col``: ``call_id`` is ``postmortem.col.call_id``), else they stay, as code names them."""
    lang = language() if lang is None else _check(lang, "localize")
    columns = list(frame.columns) if columns is None else columns
    out = frame[columns].copy()
    for c in columns:
        if c in (words or {}):
            prefix = (words or {})[c]
            out[c] = out[c].map(lambda v, prefix=prefix: v if _missing(v) else text(f"{prefix}.{v}", lang))
        elif out[c].dtype == object:
            out[c] = out[c].map(lambda v: render(v, lang))
    if labels:
        out = out.rename(columns=lambda c: text(f"{labels}.{c}", lang))
    return out


def _missing(v: Any) -> bool:
    """None, NaN or pandas' NA (whose ``!=`` is itself NA, not a bool)."""
    return v is None or type(v).__name__ == "NAType" or (isinstance(v, float) and v != v)
