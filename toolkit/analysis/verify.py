"""The four-layer verdict: configuration, serialization, capability and execution, each with evidence.

Each layer gives ``pass``, ``warn``, ``fail`` or ``not checked``, a one-line summary, the evidence it
rests on (counts, DSH's exact messages, an example call) and the fix. A layer the inputs hold no
evidence for is *not checked*, never a pass, and says what input would check it (``LayerResult.needs``).
The overall verdict (``Verification.overall``, ``OVERALL``) is defined here once: ``fail`` when a
checked layer fails, ``pass`` for the layers that were checked when none fails, and ``inconclusive``
when no layer could be checked, so that an empty HAR never reads as green. The layers themselves are in
``config``, ``serialization``, ``capability`` and ``execution``; this module only puts them side by side.
It returns data only: ``toolkit.present.report`` renders it (text, Markdown, JSON, HTML).

Where DSH words one cause differently at each entry point (an image sent to a model that does not
declare image input), a layer carries every one of those texts with its entry point
(``LayerResult.dsh_messages``), so a user can search the report for the message they saw.

A LiteLLM proxy config (``verify(..., gateway_config=...)``) is a second settings source: its findings
join the settings' (configuration and capability), and each image request's verdict also says what the
gateway declares for the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pandas as pd

from toolkit.capture import Capture
from toolkit.capture.frames import CAT, declare, fixed
from toolkit.knowledge.dsh_tools import SCHEMAS
from toolkit.knowledge.messages import Joined, Message, counted
from toolkit.layers import LAYERS, capability, execution
from toolkit.layers.config import FINDINGS, GatewayConfig, Settings
from toolkit.layers.config.findings import findings_frame
from toolkit.layers.config.gateway import gateway_findings
from toolkit.layers.strict import strict_verdicts

__all__ = [
    "CAPABILITY_FAILURES",
    "FILLED_CALLS",
    "NEEDS",
    "NOT_CHECKED",
    "OVERALL",
    "TABLE",
    "VERDICTS",
    "LayerResult",
    "Verification",
    "verify",
]

NOT_CHECKED = "not checked"
VERDICTS = ("pass", "warn", "fail", NOT_CHECKED)
#: ``Verification.overall``: the verdict of the whole run
OVERALL = ("pass", "fail", "inconclusive")
#: what input would check each layer, when the inputs given held no evidence for it
NEEDS = {layer: Message(f"verify.needs.{layer}") for layer in LAYERS}
CAPABILITY_FAILURES = ("undeclared-refused-locally", "declared-but-refused-downstream", "config-does-not-match-capture")

#: ``Verification.table``: one row per layer.
TABLE = declare(
    "verify.table",
    {
        "layer": fixed(*LAYERS),
        "verdict": fixed(*VERDICTS),
        # toolkit Messages (evidence and fix: one per line, a Joined): English str, rendered by the report
        "summary": object,
        "evidence": object,
        "fix": object,
    },
)
#: ``Verification.filled_calls``: calls that sent every optional property of the advertised schema.
FILLED_CALLS = declare(
    "verify.filled_calls",
    {"exchange_id": "string", "call_id": "string", "tool": "string", "strict_state": CAT, "arguments": object},
)


@dataclass
class LayerResult:
    layer: str
    verdict: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    fix: list[str] = field(default_factory=list)
    #: (entry point, DSH's exact text) for the evidence's cause, each once, in the order found
    dsh_messages: list[tuple[str, str]] = field(default_factory=list)
    #: a layer not checked: what input would check it (``NEEDS`` unless the layer knows better)
    needs: str | None = None

    @property
    def checked(self) -> bool:
        return self.verdict != NOT_CHECKED


@dataclass
class Verification:
    results: list[LayerResult]
    findings: pd.DataFrame  # the settings findings: the ``config.findings`` frame (empty without settings)
    capability: pd.DataFrame  # capability.check rows
    replay: pd.DataFrame  # execution.replay rows
    filled_calls: pd.DataFrame  # calls that sent every optional property (the mark of a strict reading)
    mode: str | None = None  # the sandbox mode HTTP captures were judged in
    mode_source: str | None = None
    gateway: GatewayConfig | None = None  # the LiteLLM proxy config given beside the settings

    @property
    def table(self) -> pd.DataFrame:
        return TABLE.from_records(
            [
                {
                    "layer": r.layer,
                    "verdict": r.verdict,
                    "summary": r.summary,
                    "evidence": Joined("\n", r.evidence) if r.evidence else "",
                    "fix": Joined("\n", r.fix) if r.fix else "",
                }
                for r in self.results
            ]
        )

    @property
    def overall(self) -> str:
        """``fail`` when a checked layer fails; ``inconclusive`` when no layer was checked; else ``pass``
        (for the layers that were checked: ``not_checked`` names the rest)."""
        if any(r.verdict == "fail" for r in self.results):
            return "fail"
        if not any(r.checked for r in self.results):
            return "inconclusive"
        return "pass"

    @property
    def ok(self) -> bool:
        """Whether the run passed: a run that checked nothing did not."""
        return self.overall == "pass"

    @property
    def checked(self) -> list[str]:
        return [r.layer for r in self.results if r.checked]

    @property
    def root_causes(self) -> list[tuple[LayerResult, list[tuple[str, str]]]]:
        """The failing layers in the order a request meets them (config, serialization, capability,
        execution), each with the texts DSH shows for its cause (entry point, text): the first of the
        layer's own, or every distinct refusal DSH sent back to the model. What a postmortem leads with:
        an order, not a proof of cause (each layer's evidence says what it rests on)."""
        out: list[tuple[LayerResult, list[tuple[str, str]]]] = []
        for r in self.results:
            if r.verdict != "fail":
                continue
            said = r.dsh_messages[:1]
            if not said and r.layer == "execution" and len(self.replay):
                # read_image's refusals are the image gate: the capability layer's (as in ``_execution``)
                mine = self.replay["ok"].eq(False).fillna(False) & self.replay["tool"].isin(execution.TOOLS)
                refused = self.replay.loc[mine, "message"].dropna()
                said = [("tool result", str(m)) for m in dict.fromkeys(refused)]
            out.append((r, said))
        return out

    @property
    def not_checked(self) -> list[LayerResult]:
        return [r for r in self.results if not r.checked]

    def __repr__(self) -> str:
        lines = [f"{r.layer:13} {r.verdict:11} {r.summary}" for r in self.results]
        lines += [f"{r.layer:13} needs: {r.needs}" for r in self.not_checked]
        return "\n".join([f"overall       {self.overall}", *lines])


def verify(
    settings: Settings | None,
    capture: Capture | None,
    *,
    mode: str | None = None,
    dsh: str = execution.DEFAULT_DSH,
    gateway_config: GatewayConfig | None = None,
) -> Verification:
    """Run the four layers on a settings file and the captured evidence (HTTP captures and DSH sessions),
    with the LiteLLM proxy config in front of the route as a second source when given."""
    capture = capture if capture is not None else _empty_capture()
    mode_source: str | None = Message("execution.mode_source.given") if mode else None
    if mode is None and settings is not None and settings.default_preset.get("sandbox_mode"):
        mode = settings.default_preset["sandbox_mode"]  # the mode a session starts in
        mode_source = Message("verify.mode_source.settings", source=settings.default_preset.get("source"))
    findings = settings.findings if settings is not None else FINDINGS.empty()
    own = settings._findings if settings is not None else []
    if gateway_config is not None:
        own = [*own, *gateway_findings(gateway_config, settings)]
        findings = findings_frame(own)
    # the findings frame holds plain text: its translatable sentences, by their English text
    said = {str(m): m for f in own for m in (f.message, f.fix) if isinstance(m, Message)}
    caps = capability.check(settings, capture, gateway=gateway_config)
    replayed = execution.replay(capture, mode=mode, dsh=dsh, settings=settings)
    filled = execution.distinct_calls(_filled_calls(capture))
    results = [
        _config(settings, findings, gateway_config, said),
        _serialization(findings, capture, filled, said),
        _capability(findings, caps, said),
        _execution(replayed, capture, mode, dsh),
    ]
    for r in results:
        failing = caps[caps["verdict"].astype(str).isin(CAPABILITY_FAILURES)] if r.layer == "capability" else None
        r.dsh_messages = _dsh_messages(findings[findings["layer"] == r.layer], failing)
        if not r.checked and r.needs is None:
            r.needs = NEEDS[r.layer]
    return Verification(results, findings, caps, replayed, filled, mode, mode_source, gateway_config)


#: What the templates of ``dsh_images.refusals`` leave for the evidence to fill.
_PLACEHOLDERS = ("<path>", "<media type>")


def _dsh_messages(*frames: pd.DataFrame | None) -> list[tuple[str, str]]:
    """Every (entry point, text) in the frames' ``dsh_messages`` columns, each once, in order; a text the
    evidence filled in (the path a tool read) takes the place of the same entry point's template."""
    out: list[tuple[str, str]] = []
    for frame in frames:
        if frame is None or not len(frame):
            continue
        for messages in frame["dsh_messages"]:
            for entry, text in messages or ():
                pair = (str(entry), str(text))
                if pair in out:
                    continue
                template = next(
                    (i for i, (e, t) in enumerate(out) if e == pair[0] and any(p in t for p in _PLACEHOLDERS)), None
                )
                if template is not None and not any(p in pair[1] for p in _PLACEHOLDERS):
                    out[template] = pair
                else:
                    out.append(pair)
    return out


def _empty_capture() -> Capture:
    from toolkit.capture import load_captures

    return load_captures([])


def _from_findings(
    findings: pd.DataFrame, layer: str, said: dict[str, Message]
) -> tuple[str | None, list[str], list[str]]:
    """The layer's worst severity, evidence lines and fixes; ``said`` gives back the ``Message`` of a
    finding's English text, so the report can render it in another language."""
    rows = findings[findings["layer"] == layer]
    if rows.empty:
        return None, [], []
    worst = "fail" if (rows["severity"] == "error").any() else "warn" if (rows["severity"] == "warning").any() else None
    evidence: list[str] = [
        Message(
            "verify.finding_dsh",
            severity=_severity(r.severity),
            where=_where(r),
            message=said.get(r.message, r.message),
            dsh_text=r.dsh_message,
        )
        if isinstance(r.dsh_message, str)
        else Message(
            "verify.finding", severity=_severity(r.severity), where=_where(r), message=said.get(r.message, r.message)
        )
        for r in rows.itertuples()
    ]
    fixes = [said.get(r.fix, r.fix) for r in rows.itertuples() if isinstance(r.fix, str)]
    return worst, evidence, fixes


def _severity(severity) -> str:
    return Message(f"severity.{severity}") if f"severity.{severity}" in _SEVERITY_KEYS else str(severity)


_SEVERITY_KEYS = {"severity.error", "severity.warning", "severity.info"}


def _where(r) -> str:
    """``line 12`` of the settings file, or ``litellm-config.yaml line 12`` for a gateway finding."""
    if str(r.code).startswith("gateway-"):
        if pd.isna(r.line):
            return str(r.yaml_path)
        return Message("verify.where.file_line", file=str(r.yaml_path).partition(":")[0], line=r.line)
    return Message("verify.where.line", line=r.line)


def _config(settings, findings, gateway: GatewayConfig | None, said: dict[str, Message]) -> LayerResult:
    if settings is None and gateway is None:
        return LayerResult("config", NOT_CHECKED, Message("verify.config.no_settings"))
    worst, evidence, fixes = _from_findings(findings, "config", said)
    served = (", ".join(gateway.model_names) or Message("verify.config.no_model")) if gateway else None
    if worst is None:
        shown = evidence if gateway else []  # without a gateway config, as before: info findings stay out
        if settings is None:
            assert gateway is not None
            summary = Message("verify.config.no_settings_served", gateway=gateway.name, models=served)
            return LayerResult("config", "pass", summary, shown)
        counts = {"routes": len(settings.routes), "models": len(settings.models)}
        if not counts["routes"] and gateway is None:  # nothing resolved is nothing checked
            return LayerResult("config", NOT_CHECKED, Message("verify.config.no_routes", source=settings.source))
        if gateway is None:
            return LayerResult("config", "pass", Message("verify.config.clean", **counts), shown)
        summary = Message("verify.config.clean_served", **counts, gateway=gateway.name, served=served)
        return LayerResult("config", "pass", summary, shown)
    key = "verify.config.finding_one" if len(evidence) == 1 else "verify.config.findings"
    return LayerResult("config", worst, Message(key, n=len(evidence)), evidence, fixes)


def _filled_calls(capture: Capture) -> pd.DataFrame:
    """Calls that sent every property of the advertised schema, optional ones included: what a model does
    when the tool reached it as strict (pi-ai's transform, or a gateway's reading of an absent ``strict``)."""
    rows = []
    schemas = dict(zip(capture.tool_schemas["schema_hash"], capture.tool_schemas["schema"]))
    for call in capture.calls.itertuples(index=False):
        if not isinstance(call.arguments, dict):
            continue
        tools = capture.tools[(capture.tools["exchange_id"] == call.exchange_id) & (capture.tools["name"] == call.name)]
        schema = schemas.get(tools.iloc[0]["schema_hash"]) if len(tools) else SCHEMAS.get(call.name)
        props = (schema or {}).get("properties") or {}
        optional = [p for p in props if p not in ((schema or {}).get("required") or [])]
        if optional and all(p in call.arguments for p in optional):
            rows.append(
                {
                    "exchange_id": call.exchange_id,
                    "call_id": call.call_id,
                    "tool": call.name,
                    "strict_state": tools.iloc[0]["strict_state"] if len(tools) else None,
                    "arguments": call.arguments,
                }
            )
    return FILLED_CALLS.from_records(rows)


def _serialization(findings, capture: Capture, filled: pd.DataFrame, said: dict[str, Message]) -> LayerResult:
    worst, evidence, fixes = _from_findings(findings, "serialization", said)
    # what went on the wire: HTTP exchanges only (a DSH session logs the schema DSH advertised, not the request)
    http_ids = set(capture.exchanges.loc[capture.exchanges["method"].notna(), "exchange_id"])
    wire = capture.tools[capture.tools["exchange_id"].isin(http_ids)]
    states = wire["strict_state"].astype(str).value_counts().to_dict() if len(wire) else {}
    if states:
        on_wire = ", ".join(f"strict {k} ×{v}" for k, v in sorted(states.items()))
        evidence.append(Message("verify.serialization.on_wire", states=on_wire))
    evidence += _strict_evidence(capture)
    if len(filled):
        example = filled.iloc[0]
        evidence.append(
            Message(
                counted("verify.serialization.filled", len(filled)),
                n=len(filled),
                tool=example["tool"],
                call_id=example["call_id"],
                arguments=str(example["arguments"]),
            )
        )
        absent = filled[filled["strict_state"].astype(str).isin(["absent", "null"])]
        if len(absent):
            return LayerResult(
                "serialization",
                "fail",
                Message(
                    "verify.serialization.read_as_strict",
                    states="/".join(sorted(set(absent["strict_state"].astype(str)))),
                ),
                evidence,
                fixes or [Message("verify.serialization.fix_strict_false")],
            )
    if worst is None:
        if not states:
            return LayerResult("serialization", NOT_CHECKED, Message("verify.serialization.no_tools"), evidence)
        return LayerResult("serialization", "pass", Message("verify.serialization.as_configured"), evidence)
    summary = Message("verify.serialization.left_to_gateway")
    return LayerResult("serialization", worst, summary, evidence, fixes)


def _strict_evidence(capture: Capture) -> list[str]:
    """Layer 2's answer to "will this tool survive a strict reading?" (``strict.verdicts``) for the tools
    that went on the wire, and the risky fills of the called tools a strict reading reached. A tool is read
    as strict as sent when ``strict`` was true, or absent/null on a Responses endpoint."""
    ex = capture.exchanges
    http = ex[ex["method"].notna()]
    wire = capture.tools[capture.tools["exchange_id"].isin(set(http["exchange_id"]))]
    if wire.empty:
        return []
    verdicts = strict_verdicts(SimpleNamespace(tools=wire, tool_schemas=capture.tool_schemas))
    responses = set(http.loc[http["api"].astype(str) == "responses", "exchange_id"])
    lenient = wire["strict_state"].astype(str).isin(["absent", "null"])
    read = wire[(wire["strict_state"].astype(str) == "true") | (lenient & wire["exchange_id"].isin(responses))]
    keys = set(zip(read["schema_hash"], read["name"], read["strict_state"].astype(str), strict=False))
    as_read = [(h, n, str(st)) in keys for h, n, st in verdicts[["schema_hash", "tool", "strict_state_sent"]].values]
    strict = verdicts[as_read]
    refused = strict[~strict["openai_accepts"].astype(bool)]
    names = verdicts["tool"].nunique()

    def first(rows: pd.DataFrame) -> Message:
        r = rows.iloc[0]
        return Message(
            "verify.strict.first",
            rule=r["first_rule"],
            path=r["first_path"],
            tool=r["tool"],
            message=r["first_message"],
        )

    if len(refused):
        line = Message("verify.strict.refused", n=refused["tool"].nunique(), total=names, first=first(refused))
    else:
        forced = verdicts[~verdicts["openai_accepts"].astype(bool)]
        n = strict["tool"].nunique()
        if len(forced):
            line = Message(
                "verify.strict.none_refused_forced",
                n=n,
                total=names,
                forced=forced["tool"].nunique(),
                first=first(forced),
            )
        else:
            line = Message("verify.strict.none_refused", n=n, total=names)
    out: list[str] = [Message("verify.strict.line", line=line)]
    for name in dict.fromkeys(capture.calls["name"].dropna()):
        rows = strict[strict["tool"] == name]
        fills = rows.iloc[0]["risky_fills"] if len(rows) else []
        if fills:
            out.append(
                Message(
                    "verify.strict.called",
                    tool=name,
                    fields=", ".join(rows.iloc[0]["must_fill"]),
                    fills=_fills(
                        [
                            Message("verify.strict.fill", field=f["field"], filled=repr(f["filled"]), why=f["why"])
                            for f in fills
                        ]
                    ),
                )
            )
    return out


def _fills(parts: list[Message]) -> Message:
    """``a; b; c`` in English, ``a；b；c`` in Chinese: each fill joined to the rest by a Message."""
    return parts[0] if len(parts) == 1 else Message("verify.strict.fills", first=parts[0], rest=_fills(parts[1:]))


def _capability(findings, caps: pd.DataFrame, said: dict[str, Message]) -> LayerResult:
    worst, evidence, fixes = _from_findings(findings, "capability", said)
    if len(caps):
        counts = caps["verdict"].astype(str).value_counts().to_dict()
        evidence.append(Message("verify.capability.requests", counts=", ".join(f"{k} ×{v}" for k, v in counts.items())))
        bad = caps[caps["verdict"].astype(str).isin(CAPABILITY_FAILURES)]
        for r in bad.drop_duplicates("verdict").itertuples():
            evidence.append(Message("verify.capability.verdict", verdict=r.verdict, evidence=r.evidence))
        if len(bad):
            return LayerResult(
                "capability",
                "fail",
                Message(counted("verify.capability.not_reached", len(caps)), bad=len(bad), n=len(caps)),
                evidence,
                fixes or [Message("verify.capability.fix_declare")],
            )
        summary = Message(counted("verify.capability.all_accepted", len(caps)), n=len(caps))
        return LayerResult("capability", "pass", summary, evidence)
    if worst is None:
        return LayerResult("capability", NOT_CHECKED, Message("verify.capability.no_image"), evidence)
    own = findings[(findings["layer"] == "capability") & ~findings["code"].astype(str).str.startswith("gateway-")]
    summary = Message("verify.capability.undeclared" if len(own) else "verify.capability.disagree")
    return LayerResult("capability", worst, summary, evidence, fixes)


def _execution(replayed: pd.DataFrame, capture: Capture, mode, dsh) -> LayerResult:
    from toolkit.knowledge.messages import counted

    # read_image is the image gate: the capability layer judges it and reports it
    calls = replayed[replayed["tool"] != "read_image"]
    judged = calls[calls["ok"].notna() & calls["tool"].isin(execution.TOOLS)]
    unjudged = _not_judged(calls, judged)
    if judged.empty:
        if len(unjudged):
            summary = Message("verify.execution.none_because", reasons=_reasons(unjudged))
            return LayerResult("execution", NOT_CHECKED, summary)
        key = "verify.execution.only_read_image" if len(replayed) else "verify.execution.no_calls"
        return LayerResult("execution", NOT_CHECKED, Message(key))
    sightings = len(judged)
    judged = execution.distinct_calls(judged)
    failed = judged[~judged["ok"].astype(bool)]
    disagree = judged[judged["agrees"].eq(False).fillna(False)]
    modes = ", ".join(sorted(set(judged["mode"].dropna().astype(str))))  # the modes the calls ran under
    seen = Message("verify.execution.seen", n=sightings) if sightings != len(judged) else ""
    evidence: list[str] = [
        Message(
            counted("verify.execution.judged", len(judged)),
            n=len(judged),
            dsh=dsh,
            modes=modes,
            seen=seen,
            failed=len(failed),
        )
    ]
    not_judged = (
        Message(counted("verify.execution.not_judged", len(unjudged)), n=len(unjudged), reasons=_reasons(unjudged))
        if len(unjudged)
        else None
    )
    if not_judged is not None:
        evidence.append(not_judged)
    granted = judged["granted_mode"].dropna().astype(str)
    if len(granted):
        key = "verify.execution.granted_one" if len(granted) == 1 else "verify.execution.granted"
        evidence.append(Message(key, n=len(granted), modes=", ".join(sorted(set(granted)))))
    for msg, n in failed["message"].value_counts().items():
        evidence.append(Message("verify.execution.refusal", n=n, message=msg))  # DSH's text, verbatim
    if len(disagree):
        evidence.append(Message(counted("verify.execution.disagree", len(disagree)), n=len(disagree)))
    if failed.empty:
        summary = Message(counted("verify.execution.all_run", len(judged)), n=len(judged))
        return LayerResult("execution", "pass", _with_not_judged(summary, not_judged), evidence)
    from toolkit.analysis.whatif import whatif

    fixes: list[str] = []
    try:
        wi = whatif(capture, mode=mode, dsh=dsh)
        for policy, group in wi.groupby("policy", sort=False, observed=True):
            avoided = int((group["outcome"] == "avoided").sum())
            key = counted("verify.execution.avoids", len(failed))
            fixes.append(Message(key, policy=policy, avoided=avoided, n=len(failed)))
    except Exception as exc:  # the verdict stands without the what-ifs
        fixes.append(Message("verify.execution.whatif_unavailable", error=str(exc)))
    summary = Message(counted("verify.execution.refused", len(judged)), failed=len(failed), n=len(judged))
    return LayerResult("execution", "fail", _with_not_judged(summary, not_judged), evidence, fixes)


def _not_judged(calls: pd.DataFrame, judged: pd.DataFrame) -> pd.DataFrame:
    """The calls no capture let the model of DSH judge: one row per call (a call one capture could not
    judge and another could, a HAR without the mode beside DSH's own log, is judged)."""
    rows = calls[calls["not_judged"].notna()]
    rows = rows[rows["call_id"].isna() | ~rows["call_id"].isin(set(judged["call_id"].dropna()))]
    return execution.distinct_calls(rows)


def _reasons(unjudged: pd.DataFrame) -> Message | str:
    """``sandbox mode unknown ×2 (pass --mode for HTTP captures), arguments not parseable ×1``: the
    calls not judged, counted by reason (``execution.NOT_JUDGED``), with the hint that would judge them."""
    from toolkit.knowledge.messages.surface import option

    counts = unjudged["not_judged"].astype(str).value_counts(sort=False)
    out: Message | str = ""
    for reason in execution.NOT_JUDGED:  # in the vocabulary's order, not by count: stable across runs
        if reason not in counts.index:
            continue
        words = Message(f"execution.not_judged.{reason}")
        part = (
            Message("verify.execution.reason_mode", reason=words, n=int(counts[reason]), option=option("mode"))
            if reason == "mode-unknown"
            else Message("verify.execution.reason", reason=words, n=int(counts[reason]))
        )
        out = Message("verify.execution.reasons", first=out, then=part) if out else part
    return out


def _with_not_judged(summary: Message, not_judged: Message | None) -> Message:
    """The layer's summary, and the calls it could not judge: a pass over some calls is not a pass over all."""
    if not_judged is None:
        return summary
    return Message("verify.execution.and_not_judged", summary=summary, not_judged=not_judged)
