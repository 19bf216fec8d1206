"""What is wrong with a settings file: one ``Finding`` per problem, and the declared ``findings`` frame.

A finding quotes DSH's own text where DSH has one (``dsh_message``), and for a cause DSH words
differently at each entry point, every one of those texts (``dsh_messages``), so a user can search the
findings for the message they saw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from toolkit.capture.frames import declare, fixed
from toolkit.sources.yaml_text import Edit, path_text

__all__ = ["CODES", "FINDINGS", "MOUNT_REFUSALS", "SEVERITIES", "Finding", "findings_frame", "search"]

SEVERITIES = ("error", "warning", "info")
CODES = (
    "yaml-syntax",
    "not-a-mapping",
    "section-not-a-mapping",
    "no-routes",
    "providers-array",
    "removed-key",
    "unsupported-api",
    "unknown-modality",
    "invalid-size",
    "invalid-credential-ref",
    "missing-model-id",
    "empty-field",
    "empty-default-input",
    "api-key-unset",
    "no-models",
    "empty-model-id",
    "duplicate-model",
    "needs-api",
    "needs-base-url",
    "compat-unreadable",
    "compat-withheld",
    "compat-undeclared",
    "compat-valueless",
    "compat-wrong-api",
    "empty-reasoning-efforts",
    "input-modalities-ignored",
    "image-undeclared",
    "strict-absent",
    "default-route-missing",
    "default-model-missing",
    "default-model-incomplete",
    "unknown-preset",
    # a LiteLLM proxy config.yaml beside the settings (toolkit.layers.config.gateway)
    "gateway-no-model-list",
    "gateway-flag-not-bool",
    "gateway-model-missing",
    "gateway-text-only",
    "gateway-vision-undeclared",
    "gateway-no-tools",
)
#: The codes that stand for DSH refusing the settings when it mounts them (the others are runtime or advice);
#: checked against what DSH 0.1.0-rc.8 refuses in ``tests/fixtures/dsh/config.json``.
MOUNT_REFUSALS = frozenset(
    {
        "section-not-a-mapping",
        "providers-array",
        "removed-key",
        "unsupported-api",
        "unknown-modality",
        "invalid-size",
        "invalid-credential-ref",
        "missing-model-id",
        "empty-field",
        "empty-default-input",
        "no-models",
        "empty-model-id",
        "duplicate-model",
        "needs-api",
        "needs-base-url",
        "compat-unreadable",
        "compat-withheld",
        "compat-undeclared",
        "compat-valueless",
        "compat-wrong-api",
        "empty-reasoning-efforts",
    }
)

FINDINGS = declare(
    "config.findings",
    {
        "severity": pd.CategoricalDtype(list(SEVERITIES), ordered=True),
        "layer": "string",
        "code": fixed(*CODES),
        "yaml_path": "string",
        "line": "Int64",
        "column": "Int64",
        "message": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "dsh_message": "string",  # DSH's text a user most likely sees for this problem, when DSH has one
        "dsh_messages": object,  # ((entry point, exact text), ...) when DSH words the cause per entry point
        "fix": object,  # a toolkit Message (or NA): English str, rendered in zh-CN by the report
    },
)


@dataclass
class Finding:
    severity: str
    code: str
    path: tuple[Any, ...]
    message: str
    fix: str | None = None
    dsh_message: str | None = None
    layer: str = "config"
    line: int | None = None
    column: int | None = None
    edits: list[Edit] = field(default_factory=list, repr=False)
    dsh_messages: tuple[tuple[str, str], ...] = ()


def findings_frame(findings: list[Finding]) -> pd.DataFrame:
    """Worst first, then by line."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return FINDINGS.from_records(
        {
            "severity": f.severity,
            "layer": f.layer,
            "code": f.code,
            "yaml_path": path_text(f.path),
            "line": f.line,
            "column": f.column,
            "message": f.message,
            "dsh_message": f.dsh_message,
            "dsh_messages": f.dsh_messages,
            "fix": pd.NA if f.fix is None else f.fix,  # NA as the string column had, not None
        }
        for f in sorted(findings, key=lambda f: (order[f.severity], f.line or 0))
    )


def search(frame: pd.DataFrame, text: str) -> pd.DataFrame:
    """The rows of a frame with ``dsh_message``/``dsh_messages`` (findings, ``capability.check``) whose
    DSH texts contain ``text``: paste the message DSH showed, get the finding that explains it."""

    def hit(row: pd.Series) -> bool:
        texts = [t for _, t in row["dsh_messages"]]
        if isinstance(row["dsh_message"], str):
            texts.append(row["dsh_message"])
        return any(text in t for t in texts)

    return frame[[hit(r) for _, r in frame.iterrows()]] if len(frame) else frame
