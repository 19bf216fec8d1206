"""Layer 1, configuration: what a DSH ``settings.yaml`` resolves to, and where each value came from.

``resolve`` turns the settings into routes, models and defaults as DSH and pi-ai do; ``findings``
holds what is wrong, quoting DSH; ``fix`` writes the minimal line-level fix; ``settings`` reads a
path or a text (the caller says which); ``gateway`` reads a LiteLLM proxy ``config.yaml`` as a second
source and checks DSH's settings against it.
"""

from __future__ import annotations

from toolkit.layers.config.findings import CODES, FINDINGS, SEVERITIES, Finding, search
from toolkit.layers.config.fix import apply_fix, suggest_fix
from toolkit.layers.config.gateway import GatewayConfig, GatewayConfigError, load_gateway_config
from toolkit.layers.config.resolve import MODELS, ROUTES, TEXT_SOURCE
from toolkit.layers.config.settings import Settings, SettingsError, load_settings

__all__ = [
    "CODES",
    "FINDINGS",
    "MODELS",
    "ROUTES",
    "SEVERITIES",
    "TEXT_SOURCE",
    "Finding",
    "GatewayConfig",
    "GatewayConfigError",
    "Settings",
    "SettingsError",
    "apply_fix",
    "load_gateway_config",
    "load_settings",
    "search",
    "suggest_fix",
]
