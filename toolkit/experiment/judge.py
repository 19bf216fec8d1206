"""Judge every answer of an experiment by DSH's own rules and sum it up per variant.

A call is judged by ``toolkit.layers.execution.replay`` in the session's mode (DSH's validator and
escalation checks, its refusal text verbatim), against the schema the variant advertised; an error
answer is read by ``toolkit.analysis.triage``. The rates carry Wilson intervals; ``compare`` says how
sure the difference between two variants is (Newcombe's interval, Fisher's exact p).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pandas as pd

from toolkit.analysis.triage import EMPTY_FILLS, ERROR_TERMINALS, errors
from toolkit.capture import Capture
from toolkit.errors import InputError
from toolkit.experiment.frames import ANSWERS, PLAN, SUMMARY
from toolkit.experiment.stats import fisher_exact, newcombe, wilson
from toolkit.experiment.variants import Variant
from toolkit.knowledge.messages import MESSAGES, Message
from toolkit.layers.execution import DEFAULT_DSH, replay
from toolkit.wire.schemas import flat_tool

__all__ = ["CONCLUSIONS", "SENTENCE", "compare", "judge", "optional_fields", "summarise"]

#: ``compare``'s sentence (English template of ``experiment.compare.sentence``); ``{conclusion}`` is one
#: of ``CONCLUSIONS``. ``compare`` writes it as a ``Message`` so a report renders it in its language.
SENTENCE = MESSAGES["experiment.compare.sentence"]["en"]
#: The two conclusions, as ``Message``s (each equal to its English text).
CONCLUSIONS = {k: Message(f"experiment.compare.{k}") for k in ("explained", "unclear")}
#: When a side made no call there is nothing to compare (English template of ``experiment.compare.no_calls``).
NO_CALLS = MESSAGES["experiment.compare.no_calls"]["en"]


def optional_fields(body: dict, api: str) -> dict[str, tuple[str, ...]]:
    """tool name → its optional properties (not in ``required``), as the client defined the tool in ``body``.

    Read from the definition, not from ``strict``: on the wire strict makes every property required,
    which is exactly why a model fills fields the client left optional."""
    out: dict[str, tuple[str, ...]] = {}
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        fn = flat_tool(t) if api == "chat" else t
        schema = fn.get("input_schema" if api == "messages" else "parameters")
        name = fn.get("name")
        if not isinstance(name, str) or not isinstance(schema, dict):
            continue
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        out.setdefault(name, tuple(p for p in props if p not in required))
    return out


def _empty(value: Any) -> bool:
    return value in EMPTY_FILLS or value == [] or value == {}


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def judge(
    capture: Capture,
    plan: pd.DataFrame,
    variants: Sequence[Variant],
    *,
    mode: str | None,
    dsh: str = DEFAULT_DSH,
    api: str | None = None,
) -> pd.DataFrame:
    """One ANSWERS row per call of every planned answer, one per answer without a call, and one per
    planned request that got no answer (``error`` from the plan).

    ``capture`` is the experiment's own capture (``exchanges.jsonl``), ``plan`` the PLAN frame mapping
    each (variant, sample) to its exchange. ``filled``/``empty_filled`` are the optional fields the call
    filled (``optional_fields`` of that variant's body, i.e. the client's definition); ``verdict`` is
    replay's ``ok`` (``not judged`` for tools the model of DSH does not cover, or no ``mode``) and
    ``rule`` DSH's refusal text verbatim. ``api`` defaults to each exchange's recorded API."""
    if PLAN.mismatches(plan):
        raise InputError(f"experiment.judge: the plan is not an experiment.plan frame: {PLAN.mismatches(plan)}")
    by_name = {v.name: v for v in variants}
    unknown = sorted(set(plan["variant"].dropna().astype(str)) - set(by_name))
    if unknown:
        raise InputError(f"experiment.judge: the plan names variants that were not built: {', '.join(unknown)}")
    ex = capture.exchanges.set_index("exchange_id")
    absent = sorted(set(plan["exchange_id"].dropna().astype(str)) - set(ex.index))
    if absent:
        raise InputError(f"experiment.judge: the plan's exchanges are not in the capture: {', '.join(absent[:5])}")
    calls = replay(capture, mode=mode, dsh=dsh)
    calls_of = {x: g for x, g in calls.groupby("exchange_id", sort=False)}
    errs = errors(capture)
    errs = errs[errs["kind"].isin(["http", "stream"])]
    error_of: dict[str, str] = {}
    for r in errs.itertuples(index=False):
        text = r.message if not _missing(r.message) else r.explanation
        if not _missing(text):
            error_of.setdefault(str(r.exchange_id), str(text))
    optional_cache: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {}
    rows: list[dict] = []
    for p in plan.itertuples(index=False):
        base = {"variant": p.variant, "sample": p.sample}
        if _missing(p.exchange_id):
            rows.append(_row(base, None, p.status, None, p.error))
            continue
        xid = str(p.exchange_id)
        x = ex.loc[xid]
        status = None if _missing(x["status"]) or int(x["status"]) == 0 else int(x["status"])  # 0: no answer
        terminal = None if _missing(x["terminal"]) else str(x["terminal"])
        error = error_of.get(xid) or (None if _missing(p.error) else str(p.error))
        if error is None and ((status is not None and status >= 400) or terminal in ERROR_TERMINALS):
            error = f"status {status}, {terminal}"
        answer = {**base, "exchange_id": xid, "status": status, "terminal": terminal, "error": error}
        here = calls_of.get(xid)
        if here is None or here.empty:
            rows.append(_row(answer, xid, status, terminal, error))
            continue
        key = (str(p.variant), api or str(x["api"]))
        if key not in optional_cache:
            optional_cache[key] = optional_fields(by_name[key[0]].body, key[1])
        optional = optional_cache[key]
        for c in here.itertuples(index=False):
            args = c.arguments if isinstance(c.arguments, dict) else {}
            filled = tuple(f for f in optional.get(str(c.tool), ()) if f in args)
            verdict = "not judged" if _missing(c.ok) else "accepted" if c.ok else "refused"
            rows.append(
                {
                    **answer,
                    "call_id": c.call_id,
                    "tool": c.tool,
                    "filled": filled,
                    "empty_filled": tuple(f for f in filled if _empty(args[f])),
                    "arguments": c.arguments,
                    "verdict": verdict,
                    "rule": c.message if verdict == "refused" else None,
                }
            )
    return ANSWERS.from_records(rows)


def _row(base: dict, xid: str | None, status: Any, terminal: str | None, error: Any) -> dict:
    """An answer without a call (or a request without an answer)."""
    return {
        **base,
        "exchange_id": xid,
        "status": None if _missing(status) else int(status),
        "terminal": terminal,
        "error": None if _missing(error) else error,
        "call_id": None,
        "tool": None,
        "filled": (),
        "empty_filled": (),
        "arguments": None,
        "verdict": None,
        "rule": None,
    }


def summarise(answers: pd.DataFrame, plan: pd.DataFrame) -> pd.DataFrame:
    """One SUMMARY row per variant, in the plan's order: how many requests were planned, answered and
    errors; how many calls, accepted and refused (rates over calls, with Wilson intervals), how many
    filled an optional field with nothing, and the most frequent refusal text."""
    rows = []
    for name in pd.unique(plan["variant"].astype(str)):
        planned = plan[plan["variant"].astype(str) == name]
        a = answers[answers["variant"].astype(str) == name]
        per_answer = a.drop_duplicates(["variant", "sample"])
        got = per_answer[per_answer["status"].notna()]
        c = a[a["call_id"].notna()]
        verdict = c["verdict"].astype(str)
        n, k_ok, k_no = len(c), int((verdict == "accepted").sum()), int((verdict == "refused").sum())
        ok_lo, ok_hi = wilson(k_ok, n)
        no_lo, no_hi = wilson(k_no, n)
        rules = Counter(str(r) for r in c.loc[verdict == "refused", "rule"] if not _missing(r))
        rows.append(
            {
                "variant": name,
                "samples": len(planned),
                "answered": len(got),
                "errors": int(got["error"].notna().sum()),
                "calls": n,
                "accepted": k_ok,
                "refused": k_no,
                "filled_empty": int(sum(bool(e) for e in c["empty_filled"])),
                "accepted_rate": k_ok / n if n else None,
                "accepted_low": None if math.isnan(ok_lo) else ok_lo,
                "accepted_high": None if math.isnan(ok_hi) else ok_hi,
                "refused_rate": k_no / n if n else None,
                "refused_low": None if math.isnan(no_lo) else no_lo,
                "refused_high": None if math.isnan(no_hi) else no_hi,
                "top_rule": rules.most_common(1)[0][0] if rules else None,
            }
        )
    return SUMMARY.from_records(rows)


def _pct(x: float) -> str:
    return f"{round(x * 100):d}"


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def compare(summary: pd.DataFrame, a: str, b: str) -> dict:
    """How sure the difference in refused rate between variants ``a`` and ``b`` is: ``difference``
    (rate a - rate b), its Newcombe 95% interval ``low``..``high``, Fisher's exact ``p``, and a one-line
    ``sentence`` (``SENTENCE``, a ``Message``: English as a str, ``render(sentence, "zh-CN")`` in Chinese
    with the same numbers): the change explains the refusals only when the interval excludes 0 and
    p < 0.05; otherwise N is too small to tell."""
    s = summary.set_index(summary["variant"].astype(str))
    for name in (a, b):
        if name not in s.index:
            raise InputError(f"experiment.compare: no variant {name!r} in the summary ({', '.join(s.index)})")
    ka, na = int(s.at[a, "refused"]), int(s.at[a, "calls"])
    kb, nb = int(s.at[b, "refused"]), int(s.at[b, "calls"])
    out: dict[str, Any] = {"a": a, "b": b, "refused_a": ka, "calls_a": na, "refused_b": kb, "calls_b": nb}
    if na == 0 or nb == 0:
        which: str = a if na == 0 else b
        if na == 0 and nb == 0:
            which = Message("experiment.compare.both", a=a, b=b)
        sentence = Message("experiment.compare.no_calls", a=a, ka=ka, na=na, b=b, kb=kb, nb=nb, which=which)
        return out | {"difference": None, "low": None, "high": None, "p": None, "sentence": sentence}
    d = ka / na - kb / nb
    low, high = newcombe(ka, na, kb, nb)
    p = fisher_exact(ka, na, kb, nb)
    la, ha = wilson(ka, na)
    lb, hb = wilson(kb, nb)
    # both must agree: with 3 against 3 Newcombe's interval already excludes 0 while Fisher's p is 0.1
    conclusion = CONCLUSIONS["explained" if (low > 0 or high < 0) and p < 0.05 else "unclear"]
    sentence = Message(
        "experiment.compare.sentence",
        a=a,
        ka=ka,
        na=na,
        la=_pct(la),
        ha=_pct(ha),
        b=b,
        kb=kb,
        nb=nb,
        lb=_pct(lb),
        hb=_pct(hb),
        d=_pct(d),
        lo=_pct(low),
        hi=_pct(high),
        p=_p(p),
        conclusion=conclusion,
    )
    return out | {"difference": d, "low": low, "high": high, "p": p, "sentence": sentence}
