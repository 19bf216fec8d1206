"""Layer 3, capability: the input modalities a model entry declares, against what was sent and what
the backend accepted.

Declared input is a contract, not a feature flag: DSH refuses an image for a model that does not
declare it before anything is sent, and a model that declares images its backend cannot take is
refused downstream, mid-turn.
"""

from __future__ import annotations

import pandas as pd

from toolkit.capture import Capture
from toolkit.knowledge import dsh_images
from toolkit.layers.config import Settings

VERDICTS = (
    "declared-and-accepted",  # declared, sent, and the backend answered
    "declared-but-refused-downstream",  # declared and sent, and the backend refused the image
    "undeclared-refused-locally",  # not declared: refused (or replaced by pi-ai's placeholder) before sending
    "undeclared-but-capable",  # as above, but a capture shows the same model accepting images elsewhere
    "config-does-not-match-capture",  # the settings and the wire disagree (the capture came from another config)
    "route-not-in-settings",  # the request matches no configured route and model
)
IMAGE_PARTS = ("input_image", "image_url", "image")
COLUMNS = [
    "exchange_id",
    "source",
    "started_at",
    "route",
    "model",
    "route_match",
    "declared_input",
    "input_source",
    "dsh_before_sending",
    "dsh_message",
    "images_sent",
    "media_types",
    "image_bytes",
    "placeholder",
    "status",
    "error_type",
    "error_code",
    "error_message",
    "verdict",
    "evidence",
]


def check(settings: Settings | None, capture: Capture) -> pd.DataFrame:
    """One row per request that carried, or tried to carry, an image; with a verdict and its evidence."""
    inputs = capture.inputs
    images = inputs[inputs["part_type"].isin(IMAGE_PARTS)]
    dropped = inputs[inputs["image_dropped"].fillna(False)]
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
    rows = []
    for x in ex[ex["exchange_id"].isin(ids)].itertuples(index=False):
        sent = images[images["exchange_id"] == x.exchange_id]
        placeholder = bool((dropped["exchange_id"] == x.exchange_id).any())
        local = refusals[refusals["exchange_id"] == x.exchange_id]
        route, model, how, entry = _match(settings, x)
        declared = tuple(entry["input"]) if entry is not None else None
        rows.append(
            {
                "exchange_id": x.exchange_id,
                "source": x.source,
                "started_at": x.started_at,
                "route": route,
                "model": model,
                "route_match": how,
                "declared_input": declared,
                "input_source": entry["input_source"] if entry is not None else None,
                "dsh_before_sending": None if declared is None else ("sends" if "image" in declared else "refuses"),
                "dsh_message": (
                    local["text"].iloc[0].removeprefix("Error: ")
                    if len(local)
                    else dsh_images.adapter_refusal(model)
                    if declared is not None and "image" not in declared
                    else None
                ),
                "images_sent": len(sent),
                "media_types": ", ".join(sorted(set(sent["media_type"].dropna().astype(str)))) or None,
                "image_bytes": int(sent["byte_size"].fillna(0).sum()) if len(sent) else 0,
                "placeholder": placeholder,
                "status": x.status,
                "error_type": x.error_type,
                "error_code": x.error_code,
                "error_message": x.error_message,
                "local_refusal": len(local) > 0,
            }
        )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    frame["verdict"], frame["evidence"] = zip(*(_verdict(r, frame) for r in frame.to_dict("records")))
    out = frame[COLUMNS].copy()
    out["verdict"] = out["verdict"].astype(pd.CategoricalDtype(list(VERDICTS)))
    for col in ("images_sent", "image_bytes", "status"):
        out[col] = out[col].astype("Int64")
    return out


def _accepted(r: dict) -> bool:
    return r["images_sent"] > 0 and not pd.isna(r["status"]) and r["status"] < 400


def _refused_downstream(r: dict) -> bool:
    return r["images_sent"] > 0 and not pd.isna(r["status"]) and r["status"] >= 400


def _verdict(r: dict, frame: pd.DataFrame) -> tuple[str, str]:
    declared = r["declared_input"]
    sent_text = (
        f"{r['images_sent']} image part(s) sent ({r['media_types']}, {r['image_bytes']} bytes)"
        if r["images_sent"]
        else "no image part on the wire"
    )
    if declared is None:
        if r["local_refusal"]:
            return "undeclared-refused-locally", f"DSH refused before sending: {r['dsh_message']}"
        return "route-not-in-settings", f"{sent_text}; no configured route serves model `{r['model']}` at this URL"
    if "image" in declared:
        if _refused_downstream(r):
            return (
                "declared-but-refused-downstream",
                f"declared {list(declared)} ({r['input_source']}); {sent_text}; backend answered {r['status']} "
                f"{r['error_code'] or ''}: {r['error_message'] or ''}".strip(),
            )
        if _accepted(r):
            return (
                "declared-and-accepted",
                f"declared {list(declared)} ({r['input_source']}); {sent_text}; backend answered {r['status']}",
            )
        return "config-does-not-match-capture", f"declared {list(declared)}, but {sent_text}" + (
            " and pi-ai's placeholder was sent instead" if r["placeholder"] else ""
        )
    if r["images_sent"] and not r["local_refusal"]:
        return (
            "config-does-not-match-capture",
            f"declared {list(declared)} ({r['input_source']}), yet {sent_text}: the capture was made with another configuration",
        )
    elsewhere = frame[(frame["model"] == r["model"]) & (frame["route"] != r["route"])]
    capable = [e for e in elsewhere.to_dict("records") if _accepted(e)]
    local = (
        "pi-ai sent its placeholder `(image omitted: model does not support images)` instead"
        if r["placeholder"]
        else f"DSH refused: {r['dsh_message']}"
    )
    if capable:
        other = capable[0]
        return (
            "undeclared-but-capable",
            f"declared {list(declared)} ({r['input_source']}); {local}; but `{r['model']}` accepted images on "
            f"route `{other['route']}` ({other['exchange_id']})",
        )
    return "undeclared-refused-locally", f"declared {list(declared)} ({r['input_source']}); {local}"


def _match(settings: Settings | None, x) -> tuple[str | None, str | None, str, pd.Series | None]:
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
