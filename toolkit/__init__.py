"""agent-contract-toolkit: find where an agent's tool calls break, layer by layer, with evidence.

The short public face: read captures and settings, run the four layers and the verdict. Heavy
modules load on first use, so ``import toolkit`` stays cheap (no pandas until a function needs it).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.2.0.dev0"

_LAZY = {
    "load_capture": "toolkit.capture",
    "load_captures": "toolkit.capture",
    "find_captures": "toolkit.capture",
    "Capture": "toolkit.capture",
    "InputError": "toolkit.errors",
    "CaptureError": "toolkit.errors",
    "load_settings": "toolkit.layers.config",
    "load_gateway_config": "toolkit.layers.config",
    "Settings": "toolkit.layers.config",
    "SettingsError": "toolkit.layers.config",
    "suggest_fix": "toolkit.layers.config",
    "apply_fix": "toolkit.layers.config",
    "convert_tools": "toolkit.layers.serialization",
    "variants": "toolkit.layers.serialization",
    "compare": "toolkit.layers.serialization",
    "attribute": "toolkit.layers.attribution",
    "check_call": "toolkit.layers.execution",
    "replay": "toolkit.layers.execution",
    "whatif": "toolkit.analysis.whatif",
    "classify": "toolkit.analysis.triage",
    "verify": "toolkit.analysis.verify",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
