"""Layer 3, capability: the input modalities a model entry declares, against what was sent and what
the backend accepted.

Declared input is a contract, not a feature flag: DSH refuses an image for a model that does not
declare it before anything is sent, and a model that declares images its backend cannot take is
refused downstream, mid-turn.

A LiteLLM proxy config in front of the route is a second declaration (``check(..., gateway=...)``):
each row then also says what the gateway declares for the model (``gateway_vision``, and the file and
line or the cost map that decided it), so a verdict can name both sides.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.capture import Capture
from toolkit.capture.frames import CAT, UTC_TIME, declare, fixed
from toolkit.knowledge import dsh_images
from toolkit.knowledge.messages import Message
from toolkit.layers.config import GatewayConfig, Settings

__all__ = ["CHECK", "GATEWAY_STATES", "IMAGE_PARTS", "ROUTE_MATCHES", "VERDICTS", "check"]

VERDICTS = (
    "declared-and-accepted",  # declared, sent, and the backend answered
    "declared-but-refused-downstream",  # declared and sent, and the backend refused the image
    "undeclared-refused-locally",  # not declared: refused (or replaced by pi-ai's placeholder) before sending
    "undeclared-but-capable",  # as above, but a capture shows the same model accepting images elsewhere
    "config-does-not-match-capture",  # the settings and the wire disagree (the capture came from another config)
    "route-not-in-settings",  # the request matches no configured route and model
)
ROUTE_MATCHES = ("session", "baseURL", "baseURL path", "model id", "none")
IMAGE_PARTS = ("input_image", "image_url", "image")
#: what a LiteLLM gateway config declares about images for the row's model (``GatewayConfig.vision``)
GATEWAY_STATES = ("text-only", "image-capable", "undeclared", "not-listed")

CHECK = declare(
    "capability.check",
    {
        "exchange_id": "string",
        "source": CAT,
        "started_at": UTC_TIME,
        "route": "string",
        "model": "string",
        "route_match": fixed(*ROUTE_MATCHES),
        "declared_input": object,  # tuple of modalities, or None when no configured model matched
        "input_source": object,  # a toolkit Message: English str, rendered in zh-CN by the report (NA: no match)
        "dsh_before_sending": fixed("sends", "refuses"),
        "dsh_message": "string",  # the refusal the evidence shows, else the one a DSH user most likely sees
        "dsh_messages": object,  # ((entry point, exact text), ...): every DSH text for an undeclared image
        "images_sent": "Int64",
        "media_types": "string",
        "image_bytes": "Int64",
        "placeholder": "boolean",
        "status": "Int64",
        "terminal": "string",  # how the exchange ended; a DSH log has this but no status
        "error_type": "string",
        "error_code": "string",
        "error_message": "string",
        "verdict": fixed(*VERDICTS),
        "evidence": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "gateway_vision": fixed(*GATEWAY_STATES),  # None without a gateway config
        "gateway_evidence": object,  # a toolkit Message (NA without a gateway config): the gateway's declaration,
        # with its file and line or the cost map
    },
)


def check(settings: Settings | None, capture: Capture, *, gateway: GatewayConfig | None = None) -> pd.DataFrame:
    """One row per request that carried, or tried to carry, an image; with a verdict and its evidence,
    and, given the ``gateway`` config in front of the route, what it declares for the model."""
    parts = capture.input_parts  # the parts once each; then only the requests that sent an image part
    images = capture.inputs_wide(["media_type", "byte_size"], parts=parts[parts["part_type"].isin(IMAGE_PARTS)])
    dropped = capture.inputs_sent(parts=parts[parts["image_dropped"].fillna(False)])  # placeholders, per request
    refusals = capture.tool_results[capture.tool_results["text"].str.contains(dsh_images.MARKER, regex=False, na=False)]
    ex = capture.exchanges
    image_error = (ex["status"].fillna(0) >= 400) & (
        ex["error_code"].str.contains("image", case=False, na=False)
        | ex["error_message"].str.contains("image", case=False, na=False)
    )
    ids = (
        set(images["exchange_id"])
        | set(dropped["exchange_id"])
        | set(refusals["exchange_id"].dropna())
        | set(ex.loc[image_error, "exchange_id"])
    )
    rows, times, recorded = [], [], []
    for x in ex[ex["exchange_id"].isin(ids)].itertuples(index=False):
        sent = images[images["exchange_id"] == x.exchange_id]
        local = refusals[refusals["exchange_id"] == x.exchange_id]
        route, model, how, entry = _match(settings, x)
        declared = tuple(entry["input"]) if entry is not None else None
        message, messages = _dsh_texts(model, declared, local["text"].iloc[0] if len(local) else None)
        times.append(x.started_at)
        recorded.append(len(local) > 0)
        rows.append(
            {
                "exchange_id": x.exchange_id,
                "source": x.source,
                "started_at": None,  # filled below: the declaration takes epoch seconds, these are Timestamps
                "route": route,
                "model": model,
                "route_match": how,
                "declared_input": declared,
                "input_source": entry["input_source"] if entry is not None else None,
                "dsh_before_sending": None if declared is None else ("sends" if "image" in declared else "refuses"),
                "dsh_message": message,
                "dsh_messages": messages,
                "images_sent": len(sent),
                "media_types": ", ".join(sorted(set(sent["media_type"].dropna().astype(str)))) or None,
                "image_bytes": int(sent["byte_size"].fillna(0).sum()) if len(sent) else 0,
                "placeholder": bool((dropped["exchange_id"] == x.exchange_id).any()),
                "status": x.status,
                "terminal": x.terminal,
                "error_type": x.error_type,
                "error_code": x.error_code,
                "error_message": x.error_message,
                "verdict": None,
                "evidence": None,
                "gateway_vision": None,
                "gateway_evidence": None,
            }
        )
        if gateway is not None and isinstance(model, str):
            said = gateway.vision(model)
            rows[-1]["gateway_vision"], rows[-1]["gateway_evidence"] = said.state, said.sentence
    for r, local_refusal in zip(rows, recorded, strict=True):
        r["verdict"], r["evidence"] = _verdict(r, local_refusal, rows)
        if r["gateway_evidence"]:
            r["evidence"] = Message("capability.and_gateway", evidence=r["evidence"], gateway=r["gateway_evidence"])
    out = CHECK.from_records(rows)
    for col in _MESSAGE_COLUMNS:  # missing as NA, as the "string" columns these were showed it
        out[col] = out[col].where(out[col].notna(), pd.NA)
    out["started_at"] = pd.Series(times, dtype=object).astype(UTC_TIME) if times else out["started_at"]
    return out


#: the object columns that hold Messages: missing values are NA, not None
_MESSAGE_COLUMNS = ("input_source", "evidence", "gateway_evidence")


def _dsh_texts(
    model: object, declared: tuple[str, ...] | None, recorded: str | None
) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The DSH texts for this row: a refusal the evidence recorded is the primary text, exactly as recorded."""
    if recorded is None and (declared is None or "image" in declared):
        return None, ()
    named = dsh_images.parse_refusal(recorded) if recorded is not None else None
    messages = dsh_images.refusals(
        (named or {}).get("model") or str(model),
        (named or {}).get("path"),
        media_type=(named or {}).get("media_type"),
    )
    if recorded is None:
        return dsh_images.primary(messages), messages
    if recorded not in dict(messages).values():
        messages = (("recorded", recorded), *messages)
    return recorded, messages


def _accepted(r: dict[str, Any]) -> bool:
    if r["images_sent"] == 0:
        return False
    if not pd.isna(r["status"]):
        return bool(r["status"] < 400)
    # a DSH log keeps no HTTP status: a step that sent the image and completed was answered
    return r["terminal"] == "completed" and pd.isna(r["error_message"])


#: DSH's adapter codes for content refused before sending (dsh-llm ``LlmError``): not the backend's answer.
LOCAL_ERROR_CODES = ("UNSUPPORTED_CONTENT",)


def _refused_downstream(r: dict[str, Any]) -> bool:
    if r["images_sent"] == 0:
        return False
    if not pd.isna(r["status"]):
        return bool(r["status"] >= 400)
    # a DSH log keeps no HTTP status: a step that sent the image and failed with a provider error was refused
    return not pd.isna(r["error_message"]) and r["error_code"] not in LOCAL_ERROR_CODES


def _answer(r: dict[str, Any]) -> Message:
    what = f"{r['error_code'] or ''}: {r['error_message'] or ''}".strip()  # the backend's code and text, verbatim
    if pd.isna(r["status"]):
        return Message("capability.step_failed", answer=what)
    return Message("capability.backend_answered", status=r["status"], answer=what)


def _verdict(r: dict[str, Any], local_refusal: bool, rows: list[dict[str, Any]]) -> tuple[str, Message]:
    """The verdict and its evidence: a toolkit ``Message`` whose parameters (DSH's texts, the backend's
    answer, the model and route names, the declared list and where it came from) are verbatim."""
    declared = r["declared_input"]
    sent = (
        Message("capability.sent", n=r["images_sent"], media_types=r["media_types"], size=r["image_bytes"])
        if r["images_sent"]
        else Message("capability.nothing_sent")
    )
    if declared is None:
        if local_refusal:
            return "undeclared-refused-locally", Message("capability.refused_before_sending", dsh_text=r["dsh_message"])
        return "route-not-in-settings", Message("capability.no_route", sent=sent, model=r["model"])
    said = {"declared": list(declared), "source": r["input_source"]}
    if "image" in declared:
        if _refused_downstream(r):
            return "declared-but-refused-downstream", Message(
                "capability.declared_then", **said, sent=sent, outcome=_answer(r)
            )
        if _accepted(r):
            outcome = (
                Message("capability.step_completed")
                if pd.isna(r["status"])
                else Message("capability.backend_status", status=r["status"])
            )
            return "declared-and-accepted", Message("capability.declared_then", **said, sent=sent, outcome=outcome)
        key = "capability.declared_but_placeholder" if r["placeholder"] else "capability.declared_but"
        return "config-does-not-match-capture", Message(key, declared=list(declared), sent=sent)
    if r["images_sent"] and not local_refusal:
        return "config-does-not-match-capture", Message("capability.declared_yet", **said, sent=sent)
    capable = [e for e in rows if e["model"] == r["model"] and e["route"] != r["route"] and _accepted(e)]
    local = (
        Message("capability.placeholder", placeholder=dsh_images.PLACEHOLDER_USER)
        if r["placeholder"]
        else Message("capability.dsh_refused", dsh_text=r["dsh_message"])
    )
    if capable:
        other = capable[0]
        return "undeclared-but-capable", Message(
            "capability.declared_local_capable",
            **said,
            local=local,
            model=r["model"],
            route=other["route"],
            exchange=other["exchange_id"],
        )
    return "undeclared-refused-locally", Message("capability.declared_local", **said, local=local)


def _match(settings: Settings | None, x: Any) -> tuple[str | None, str | None, str, pd.Series | None]:
    """Which configured route and model served this request, and how sure the match is."""
    model = x.model
    if settings is None or settings.models.empty:
        return x.provider if isinstance(x.provider, str) else None, model, "none", None
    models = settings.models[settings.models["id"] == model]
    if isinstance(x.provider, str):  # DSH sessions name the route
        hit = models[models["route"] == x.provider]
        return x.provider, model, ("session" if len(hit) else "none"), (hit.iloc[0] if len(hit) else None)
    url, path = x.url if isinstance(x.url, str) else "", x.path if isinstance(x.path, str) else ""
    for how, test in (
        ("baseURL", lambda base: url.startswith(base.rstrip("/"))),
        ("baseURL path", lambda base: bool(path) and path.startswith(_path_of(base))),
    ):
        hit = models[models["base_url"].map(lambda b, test=test: isinstance(b, str) and test(b))]
        if len(hit) == 1:
            return hit.iloc[0]["route"], model, how, hit.iloc[0]
    if len(models) == 1:
        return models.iloc[0]["route"], model, "model id", models.iloc[0]
    return None, model, "none", None


def _path_of(base: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(base).path.rstrip("/") + "/"
