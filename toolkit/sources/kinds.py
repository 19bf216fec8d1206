"""What a file is, in a person's words: a capture of one of the registry's formats, a DSH settings file,
a LiteLLM proxy config, or a folder ``agent-contract experiment`` wrote.

Each option of the CLI takes one kind of input. Read as another kind, a file still "works" and says
something false: a HAR read as settings resolves to "0 routes and 0 models", a HAR read as a session
log is taken for DSH's own record. Naming what a file *is* lets an option refuse a file of another
kind in one line that says which option takes it. Only a positive identification refuses: a file this
module cannot name (``UNKNOWN``) is left to the reader of the option, whose own error is more precise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from toolkit.errors import InputError
from toolkit.knowledge import dsh_settings, litellm_config
from toolkit.sources import registry
from toolkit.sources.detect import recognize_file

__all__ = ["DSH_SETTINGS", "EXPERIMENT", "FOLDER", "LITELLM_CONFIG", "UNKNOWN", "Kind", "kind_of"]


@dataclass(frozen=True)
class Kind:
    """A kind of input: ``name`` is a capture format's registry name or one of the kinds below."""

    name: str
    noun: str  # "a HAR capture": how a refusal names the file


DSH_SETTINGS = Kind("dsh-settings", "a DSH settings file")
LITELLM_CONFIG = Kind("litellm-config", "a LiteLLM proxy config")
EXPERIMENT = Kind("experiment", "a folder written by `agent-contract experiment`")
FOLDER = Kind("folder", "a folder")
UNKNOWN = Kind("unknown", "a file of no kind the toolkit names")

#: the files ``agent-contract experiment --out`` always writes (``toolkit.experiment.run``)
_EXPERIMENT_FILES = ("experiment.json", "exchanges.jsonl")


def _sections(text: str) -> set[str]:
    """The keys at column 0 of a YAML mapping: cheap, bounded by the head, and never a YAML parse (an
    alias bomb or a huge document is the reader's to refuse, not the sniffer's)."""
    return set(re.findall(r"^([A-Za-z_][\w-]*)[ \t]*:", text, flags=re.M))


def kind_of(path: str | Path) -> Kind:
    """Name what ``path`` is from its content (a folder from its files). Cheap: the first 64 KiB."""
    p = Path(path)
    if p.is_dir():
        return EXPERIMENT if any((p / f).is_file() for f in _EXPERIMENT_FILES) else FOLDER
    try:
        name, _, text = recognize_file(p)
    except (InputError, RecursionError):
        # unreadable, or nested past what a recogniser can look into: the option's own reader says why,
        # with the file and place
        return UNKNOWN
    if name is not None:
        return Kind(name, registry.get(name).noun)
    keys = _sections(text.decode("utf-8", "replace"))
    if keys & set(dsh_settings.SECTIONS):
        return DSH_SETTINGS
    if keys & set(litellm_config.SECTIONS):
        return LITELLM_CONFIG
    return UNKNOWN
