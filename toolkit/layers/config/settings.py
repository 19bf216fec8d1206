"""Reading a settings source: a path or a text, told apart by the caller, never guessed.

Guessing broke: a path without a ``.yaml`` suffix was parsed as YAML text and reported as
``not-a-mapping``. So ``load_settings(path)`` takes a file and ``load_settings(text=...)`` takes YAML
text, and every error names which of the two it was given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.errors import InputError
from toolkit.knowledge import dsh_settings as dsh_knowledge
from toolkit.knowledge import pi_ai
from toolkit.knowledge.messages.surface import option
from toolkit.layers.config.findings import Finding, findings_frame
from toolkit.layers.config.resolve import MODELS, ROUTES, TEXT_SOURCE, Resolver

__all__ = ["TEXT_SOURCE", "Settings", "SettingsError", "load_settings", "pi_ai_for", "read_source"]


class SettingsError(InputError):
    """A settings source that cannot be read at all (missing file, a credential file, no source given)."""


@dataclass
class Settings:
    """A resolved settings file: ``routes``, ``models`` and ``findings`` frames, plus the defaults."""

    source: str  # the path as given, or TEXT_SOURCE
    text: str
    data: Any
    routes: pd.DataFrame
    models: pd.DataFrame
    findings: pd.DataFrame
    default_model: dict[str, Any]
    default_preset: dict[str, Any]
    pi_ai: str
    dsh: str | None = None  # the DSH release modelled (``load_settings(dsh=...)``), or None for the source reading
    _findings: list[Finding] = field(default_factory=list, repr=False)

    def model(self, route: str, model: str) -> pd.Series | None:
        rows = self.models[(self.models["route"] == route) & (self.models["id"] == model)]
        return None if rows.empty else rows.iloc[0]

    def __repr__(self) -> str:
        counts = self.findings["severity"].value_counts().to_dict() if len(self.findings) else {}
        counts = {k: v for k, v in counts.items() if v}
        return (
            f"<Settings {self.source}: {len(self.routes)} routes, {len(self.models)} models, "
            f"findings {counts or 'none'}>"
        )


def read_source(path: str | os.PathLike[str] | None, text: str | None) -> tuple[str, str]:
    """``(text, source)`` from exactly one of a path and a text."""
    if (path is None) == (text is None):
        raise TypeError("give the settings as a path (load_settings(path)) or as YAML text (text=...), not both")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text= takes the YAML text as a str, not {type(text).__name__}")
        return text, TEXT_SOURCE
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"the settings path must be a str or os.PathLike, not {type(path).__name__}")
    p = Path(path).expanduser()
    shown = _shown(path)
    if p.name in dsh_knowledge.CREDENTIAL_FILES:
        raise SettingsError(f"{shown}: refusing to read a credential file; pass settings.yaml")
    text_option = option("settings_text").current()  # the command line takes a file only: no hint there
    hint = (
        f" (taken as a path to a settings file; YAML text goes in {text_option})"
        if isinstance(path, str) and text_option
        else ""
    )
    try:
        return p.read_text(encoding="utf-8"), str(path)
    except OSError as exc:
        raise SettingsError(f"{shown}: cannot read: {exc.strerror or exc}{hint}") from None
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{shown}: not UTF-8 text (byte {exc.start}): {exc.reason}{hint}") from None


def _shown(path: str | os.PathLike[str]) -> str:
    """The path as given; a str that looks like a whole text is cut short (it was meant for ``text=``)."""
    name = str(path)
    return repr(name[:40] + "…") if isinstance(path, str) and ("\n" in name or len(name) > 200) else name


def pi_ai_for(dsh: str | None, pi_ai_version: str | None) -> str:
    """The pi-ai version to model: the one ``dsh`` loads, else ``pi_ai_version``, else the default."""
    if dsh is None:
        return pi_ai.DEFAULT_VERSION if pi_ai_version is None else pi_ai_version
    if dsh not in dsh_knowledge.PI_AI_FOR_DSH:
        raise ValueError(f"dsh={dsh!r}: unknown DSH release; known: {', '.join(dsh_knowledge.PI_AI_FOR_DSH)}")
    loaded = dsh_knowledge.PI_AI_FOR_DSH[dsh]
    if pi_ai_version is not None and pi_ai_version != loaded:
        raise ValueError(f"dsh={dsh!r} loads pi-ai {loaded}, not pi_ai_version={pi_ai_version!r}; give one of the two")
    return loaded


def load_settings(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    env: Mapping[str, str] | None = None,
    pi_ai_version: str | None = None,
    catalog: dict[str, Any] | None = None,
    dsh: str | None = None,
) -> Settings:
    """Resolve a DSH ``settings.yaml`` the way DSH and pi-ai do: a file (``path``), or its YAML ``text=``.

    ``env`` (default ``os.environ``) is only asked whether an ``apiKeyEnv`` name is set. ``catalog``
    maps a route id to ``{model id: {input, contextWindow, maxTokens, api, baseUrl, compat}}`` for
    routes pi-ai's installed catalog describes (the toolkit does not ship that catalog). ``dsh`` names a
    DSH release (``toolkit.knowledge.dsh_settings.PI_AI_FOR_DSH``): its texts, and the pi-ai it loads;
    a different ``pi_ai_version`` beside it is a ValueError.
    """
    version = pi_ai_for(dsh, pi_ai_version)
    body, source = read_source(path, text)
    r = Resolver(body, os.environ if env is None else env, version, catalog or {}, source, dsh=dsh)
    r.run()
    return Settings(
        source=source,
        text=body,
        data=r.data,
        routes=ROUTES.from_records(r.routes),
        models=MODELS.from_records(r.models),
        findings=findings_frame(r.findings),
        default_model=r.default_model,
        default_preset=r.default_preset,
        pi_ai=version,
        dsh=dsh,
        _findings=r.findings,
    )
