"""agent-contract-toolkit: find where an agent's tool calls break, layer by layer, with evidence.

``load_capture`` reads captured traffic (HAR, JSONL logs, SSE bodies, DSH sessions, mitmproxy flows)
into pandas DataFrames. Heavy modules load on first use, so ``import toolkit`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

_LAZY = {
    "load_capture": "toolkit.capture",
    "load_captures": "toolkit.capture",
    "find_captures": "toolkit.capture",
    "Capture": "toolkit.capture",
    "CaptureError": "toolkit.errors",
    "load_settings": "toolkit.layers.config",
    "Settings": "toolkit.layers.config",
}
__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'toolkit' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
