"""The minimal fix for a settings file: line-level edits, so comments, key order and formatting stay.

No YAML dumper keeps a file byte for byte, so each finding carries the line edits that fix it
(``toolkit.sources.yaml_text``) and these functions apply them to the text as read.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from typing import Any

from toolkit.layers.config.resolve import TEXT_SOURCE
from toolkit.layers.config.settings import Settings, load_settings
from toolkit.sources import yaml_text
from toolkit.sources.yaml_text import Edit

__all__ = ["apply_fix", "suggest_fix"]


def _edits(settings: Settings) -> list[Edit]:
    edits: list[Edit] = []
    taken: set[tuple[int, int]] = set()
    for f in settings._findings:
        for e in f.edits:
            if (e.start, e.stop) not in taken:  # two findings may propose the same edit
                taken.add((e.start, e.stop))
                edits.append(e)
    return edits


def suggest_fix(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    env: Mapping[str, str] | None = None,
    pi_ai_version: str | None = None,
    catalog: dict[str, Any] | None = None,
    dsh: str | None = None,
) -> str:
    """The minimal fix for every finding that has one, as a unified diff against the original text.

    Takes the settings as ``load_settings`` does: a ``path``, or YAML ``text=``, with the same
    ``env``, ``pi_ai_version``, ``catalog`` and ``dsh``.
    """
    settings = load_settings(path, text=text, env=env, pi_ai_version=pi_ai_version, catalog=catalog, dsh=dsh)
    fixed = yaml_text.apply(settings.text, _edits(settings))
    name = settings.source if settings.source != TEXT_SOURCE else "settings.yaml"
    return "".join(
        difflib.unified_diff(
            settings.text.splitlines(keepends=True),
            fixed.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def apply_fix(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    env: Mapping[str, str] | None = None,
    pi_ai_version: str | None = None,
    catalog: dict[str, Any] | None = None,
    dsh: str | None = None,
) -> str:
    """The fixed text itself (what ``suggest_fix``'s diff produces); the file is never written."""
    settings = load_settings(path, text=text, env=env, pi_ai_version=pi_ai_version, catalog=catalog, dsh=dsh)
    return yaml_text.apply(settings.text, _edits(settings))
