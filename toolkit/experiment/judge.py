"""Judge every answer of an experiment by DSH's own rules and sum it up per variant.

A call is judged by ``toolkit.layers.execution.replay`` in the session's mode (DSH's validator and
escalation checks, its refusal text verbatim), against the schema the variant advertised, as if the user
approved any escalation once (``allowed-once``: the experiment measures what DSH's rules say, not what a
user would answer); an error answer is read by ``toolkit.analysis.triage``. Without a mode, the checks DSH
makes before it compares modes (the schema, the tool's own checks, the escalation's pairing and its
empty justification, ``check_call`` stages 1 to 4) still judge the call: the real DSH's order is the
oracle (tests/fixtures/dsh/execution.json gives the same decision in every mode there). A call that
cannot be judged says why (``not_judged``) and never counts in a rate: a rate is over judged calls only.

The rates carry Wilson intervals; ``compare`` says how sure the difference between two variants is
(Newcombe's interval, Fisher's exact p). Every call is one trial, calls within one answer too: they are
treated as independent, which they need not be.
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
from toolkit.experiment.frames import ANSWER_UNFINISHED, ANSWERS, PLAN, SUMMARY
from toolkit.experiment.stats import fisher_exact, newcombe, wilson
from toolkit.experiment.variants import Variant
from toolkit.knowledge.messages import MESSAGES, Joined, Message
from toolkit.layers.execution import DEFAULT_DSH, TOOLS, advertised_schema, check_call, replay
from toolkit.wire.schemas import flat_tool

__all__ = [
    "CONCLUSIONS",
    "SENTENCE",
    "compare",
    "judge",
    "judge_without_mode",
    "nothing_judged",
    "optional_fields",
    "summarise",
]

#: ``compare``'s sentence (English template of ``experiment.compare.sentence``); ``{conclusion}`` is one
#: of ``CONCLUSIONS``. ``compare`` writes it as a ``Message`` so a report renders it in its language.
SENTENCE = MESSAGES["experiment.compare.sentence"]["en"]
#: The two conclusions, as ``Message``s (each equal to its English text). A difference of exactly 0 gets
#: ``experiment.compare.no_difference`` instead, which says what the interval still allows.
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


def judge_without_mode(
    tool: str, arguments: dict, *, dsh: str = DEFAULT_DSH, schema: dict | None = None, **composition: Any
):
    """DSH's decision on a call when the session's mode is unknown, or None when it needs the mode.

    ``check_call`` follows DSH's order: the schema (1), the tool's own checks (2), the escalation's pairing
    and its justification (3a-3c) and the composition (4) come before any mode comparison (5), so they
    decide without one; a call that asks for no escalation runs in any mode. Only an escalation that
    passed them all needs the mode, and then no verdict is given. ``composition`` is ``check_call``'s
    (``confined``, ``background``, ``jobs``, …); the approval is ``allowed-once``, as everywhere here."""
    try:
        return check_call(tool, arguments, mode=None, dsh=dsh, schema=schema, **composition)
    except InputError:  # check_call's own refusal to go on without the mode (stage 5 onwards)
        return None


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
        # the run's reading of a failed attempt (a 3xx, a 200 without a JSON answer) before triage's
        error = (None if _missing(p.error) else str(p.error)) or error_of.get(xid)
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
            verdict, rule, why = _verdict(c, capture, terminal, dsh)
            rows.append(
                {
                    **answer,
                    "call_id": c.call_id,
                    "tool": c.tool,
                    "filled": filled,
                    "empty_filled": tuple(f for f in filled if _empty(args[f])),
                    "arguments": c.arguments,
                    "verdict": verdict,
                    "rule": rule,
                    "not_judged": why,
                }
            )
    return ANSWERS.from_records(rows)


def _verdict(c, capture: Capture, terminal: str | None, dsh: str) -> tuple[str, str | None, str | None]:
    """(verdict, DSH's refusal text, why not judged) of one replayed call.

    An answer that did not finish (cut, failed) is no call DSH would have run, whatever its arguments
    say (a cut stream's ``{}`` is not what the model meant); a call replay could not judge for want of
    the mode is judged by the checks that come before the mode (``judge_without_mode``)."""
    if terminal in ("cut", "failed"):
        return "not judged", None, ANSWER_UNFINISHED
    if not _missing(c.ok):
        return ("accepted", None, None) if c.ok else ("refused", c.message, None)
    why = None if _missing(c.not_judged) else str(c.not_judged)
    if why == "mode-unknown" and c.tool in TOOLS and isinstance(c.arguments, dict):
        v = judge_without_mode(
            str(c.tool), c.arguments, dsh=dsh, schema=advertised_schema(capture, c.exchange_id, str(c.tool))
        )
        if v is not None:
            return ("accepted", None, None) if v.ok else ("refused", v.message, None)
    return "not judged", None, why


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
        "not_judged": None,
    }


def summarise(answers: pd.DataFrame, plan: pd.DataFrame) -> pd.DataFrame:
    """One SUMMARY row per variant, in the plan's order: how many requests were planned, answered and
    errors; how many calls, how many of them judged, accepted and refused (rates over the judged calls
    only, with Wilson intervals: a call that could not be judged is no measurement), how many filled an
    optional field with nothing, and the most frequent refusal text."""
    rows = []
    for name in pd.unique(plan["variant"].astype(str)):
        planned = plan[plan["variant"].astype(str) == name]
        a = answers[answers["variant"].astype(str) == name]
        per_answer = a.drop_duplicates(["variant", "sample"])
        got = per_answer[per_answer["status"].notna()]
        c = a[a["call_id"].notna()]
        verdict = c["verdict"].astype(str)
        k_ok, k_no = int((verdict == "accepted").sum()), int((verdict == "refused").sum())
        n = k_ok + k_no  # judged: "not judged" never enters a denominator
        ok_lo, ok_hi = wilson(k_ok, n)
        no_lo, no_hi = wilson(k_no, n)
        rules = Counter(str(r) for r in c.loc[verdict == "refused", "rule"] if not _missing(r))
        rows.append(
            {
                "variant": name,
                "samples": len(planned),
                "answered": len(got),
                "errors": int(got["error"].notna().sum()),
                "calls": len(c),
                "judged": n,
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
    """``p = 0.008`` or ``p < 0.001`` (never ``p = < 0.001``)."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def compare(summary: pd.DataFrame, a: str, b: str, *, why: dict[str, Any] | None = None) -> dict:
    """How sure the difference in refused rate between variants ``a`` and ``b`` is: ``difference``
    (rate a - rate b), its Newcombe 95% interval ``low``..``high``, Fisher's exact ``p``, and a one-line
    ``sentence`` (``SENTENCE``, a ``Message``: English as a str, ``render(sentence, "zh-CN")`` in Chinese
    with the same numbers). The rates are over judged calls (``judged_a``, ``judged_b``); calls not
    judged are named in the sentence and left out.

    The change explains the refusals only when both agree: the interval excludes 0 *and* p < 0.05. When
    the rates are equal the sentence says what the interval still allows (a true null is no "N too
    small"); otherwise it says N is too small to tell. ``why`` (variant → a ``Message``, from
    ``nothing_judged``) says why a side has no judged call."""
    s = summary.set_index(summary["variant"].astype(str))
    for name in (a, b):
        if name not in s.index:
            raise InputError(f"experiment.compare: no variant {name!r} in the summary ({', '.join(s.index)})")
    ka, na = int(s.at[a, "refused"]), _count(s.at[a, "judged"])
    kb, nb = int(s.at[b, "refused"]), _count(s.at[b, "judged"])
    ua, ub = _count(s.at[a, "calls"]) - na, _count(s.at[b, "calls"]) - nb
    out: dict[str, Any] = {"a": a, "b": b, "refused_a": ka, "judged_a": na, "refused_b": kb, "judged_b": nb}
    note: Any = Message("experiment.compare.left_out", a=a, ua=ua, b=b, ub=ub) if ua > 0 or ub > 0 else ""
    if na == 0 or nb == 0:
        sides = [x for x, n in ((a, na), (b, nb)) if n == 0]
        which: Any = sides[0] if len(sides) == 1 else Message("experiment.compare.both", a=a, b=b)
        reasons = [why[x] for x in sides if why and why.get(x) is not None]
        because = (
            Message("experiment.compare.because", why=Joined("; ", reasons))
            if reasons
            else Message("experiment.compare.send_more")
        )
        sentence = Message(
            "experiment.compare.no_calls", a=a, ka=ka, na=na, b=b, kb=kb, nb=nb, which=which, because=because
        )
        return out | {"difference": None, "low": None, "high": None, "p": None, "sentence": sentence}
    d = ka / na - kb / nb
    low, high = newcombe(ka, na, kb, nb)
    p = fisher_exact(ka, na, kb, nb)
    la, ha = wilson(ka, na)
    lb, hb = wilson(kb, nb)
    # both must agree: with 3 against 3 Newcombe's interval already excludes 0 while Fisher's p is 0.1
    if (low > 0 or high < 0) and p < 0.05:
        conclusion: Any = CONCLUSIONS["explained"]
    elif ka * nb == kb * na:  # the same rate on both sides: say what the interval allows, not "N is too small"
        conclusion = Message("experiment.compare.no_difference", lo=_pct(low), hi=_pct(high))
    else:
        conclusion = CONCLUSIONS["unclear"]
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
        note=note,
    )
    return out | {"difference": d, "low": low, "high": high, "p": p, "sentence": sentence}


def _count(v: Any) -> int:
    return 0 if _missing(v) else int(v)


def nothing_judged(answers: pd.DataFrame, variant: str) -> Message | None:
    """Why ``variant`` has no judged call, in one phrase (None when it has one): no request was answered
    (the first error, verbatim), every answer was an error, the model made no call, or its calls could
    not be judged (each reason counted)."""
    a = answers[answers["variant"].astype(str) == variant]
    verdict = a["verdict"].astype(object)
    if verdict.isin(["accepted", "refused"]).any():
        return None
    per_answer = a.drop_duplicates(["variant", "sample"])
    errors = [str(e) for e in per_answer["error"] if not _missing(e)]
    if per_answer.empty:
        return Message("experiment.nothing.no_request")
    if per_answer["status"].isna().all():
        return Message("experiment.nothing.no_answer", error=errors[0] if errors else "?")
    calls = a[a["call_id"].notna()]
    if calls.empty:
        if errors and len(errors) == len(per_answer):
            return Message("experiment.nothing.all_errors", error=errors[0])
        return Message("experiment.nothing.no_calls")
    reasons = Counter(str(r) for r in calls["not_judged"] if not _missing(r))
    listed = Joined(
        ", ", (Message("experiment.nothing.reason", n=n, why=Message(_why_key(r))) for r, n in reasons.most_common())
    )
    return Message("experiment.nothing.not_judged", reasons=listed or "?")


def _why_key(reason: str) -> str:
    """The message of a not-judged reason: the execution layer's (``execution.not_judged.*``), or the
    experiment's own ``answer-unfinished``."""
    return f"experiment.not_judged.{reason}" if reason == ANSWER_UNFINISHED else f"execution.not_judged.{reason}"
