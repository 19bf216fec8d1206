"""LiteLLM 1.110.2's proxy as the hop (data/litellm-*: pi-ai → mitmdump → LiteLLM → mitmdump → stub).

``hops.diff`` is checked against two things it does not use: a plain JSON comparison of the two HAR files'
request bodies and headers, pair by pair, and what LiteLLM's own log (``litellm.jsonl``, its
StandardLoggingPayload) says it sent. ``provenance.table`` must name LiteLLM from what it wrote on the wire.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import REPO

import toolkit
from toolkit.analysis import hops, provenance
from toolkit.capture.redact import REDACTED

DATA = REPO / "data"
SCENARIOS = ("litellm-before-fix", "litellm-after-fix", "litellm-responses-to-chat")
CONVERSATION = ("input", "instructions", "messages")


def _capture(folder: str, name: str):
    return toolkit.load_capture(DATA / folder / name, keep_bodies=True)


def _har(folder: str, name: str) -> list[dict]:
    return json.loads((DATA / folder / name).read_text(encoding="utf-8"))["log"]["entries"]


def _entry(entries: list[dict], exchange_id: str) -> dict:
    return entries[int(exchange_id.rsplit(":", 1)[1])]


def _body(entry: dict) -> dict:
    return json.loads(entry["request"]["postData"]["text"])


def _leaves(value, path: str, out: dict) -> dict:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _leaves(v, f"{path}.{k}", out)
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            _leaves(v, f"{path}[{i}]", out)
    else:
        out[path] = value
    return out


def _tools(body: dict) -> dict:
    """name → (position, the tool without a Chat ``function`` wrapper): the comparison of one tool definition."""
    out = {}
    for i, t in enumerate(body.get("tools") or []):
        flat = {"type": t.get("type"), **t["function"]} if isinstance(t.get("function"), dict) else t
        out[flat["name"]] = (i, flat)
    return out


def independent(front: dict, back: dict) -> dict[str, tuple]:
    """Every leaf that differs between two request bodies: path → (before, after), missing as ``...``."""
    converted = ("input" in front) != ("input" in back)
    out: dict[str, tuple] = {}
    for key in set(front) | set(back):
        if key == "tools" or (converted and key in CONVERSATION):
            continue
        a = _leaves(front.get(key, ...), f"$.{key}", {})
        b = _leaves(back.get(key, ...), f"$.{key}", {})
        out.update({p: (a.get(p, ...), b.get(p, ...)) for p in set(a) | set(b) if a.get(p, ...) != b.get(p, ...)})
    ta, tb = _tools(front), _tools(back)
    for name in set(ta) | set(tb):
        i = (ta.get(name) or tb[name])[0]
        a = _leaves(ta[name][1] if name in ta else ..., f"$.tools[{i}]", {})
        b = _leaves(tb[name][1] if name in tb else ..., f"$.tools[{i}]", {})
        out.update({p: (a.get(p, ...), b.get(p, ...)) for p in set(a) | set(b) if a.get(p, ...) != b.get(p, ...)})
    return out


def _covers(row_path: str, leaf: str) -> bool:
    return leaf == row_path or leaf.startswith(row_path + ".") or leaf.startswith(row_path + "[")


def _shown(v) -> str | None:
    return None if v is ... else v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _cell(v) -> str | None:
    return None if pd.isna(v) else v


def _shows(changes, exchange_id: str):
    """The rows of ``changes`` one client request shows."""
    return changes["links"].map(lambda links: exchange_id in {x for x, _ in links}).astype(bool)


HOP_HEADERS = hops.HOP_HEADERS | {"authorization"}  # the key is redacted on both sides: checked on its own below


def _headers(entry: dict, direction: str) -> dict[str, str]:
    return {h["name"].lower(): h["value"] for h in entry[direction]["headers"]}


@pytest.fixture(scope="module", params=SCENARIOS)
def hop(request):
    folder = request.param
    front, back = _capture(folder, "front.har"), _capture(folder, "back.har")
    pairs = hops.align(front, back)
    return folder, front, back, pairs, hops.diff(front, back, pairs, responses=True)


def test_every_client_request_is_paired_and_litellm_own_requests_are_not(hop):
    folder, front, _, pairs, _ = hop
    linked = pairs[pairs["relation"] != "unpaired"]
    assert set(linked["a_exchange"]) == set(front.exchanges["exchange_id"])
    assert (linked["relation"] == "one-to-one").all() and (linked["confidence"] == "high").all()
    # what is left at the back is what LiteLLM sent on its own: GET /models, with its own user-agent
    back = _har(folder, "back.har")
    lone = [_entry(back, x) for x in pairs.loc[pairs["relation"] == "unpaired", "b_exchange"]]
    assert lone and all(e["request"]["method"] == "GET" and e["request"]["url"].endswith("/models") for e in lone)
    assert {_headers(e, "request")["user-agent"] for e in lone} == {"litellm/1.110.2"}


def test_diff_finds_every_body_change_and_nothing_else(hop):
    folder, _, _, pairs, changes = hop
    front_har, back_har = _har(folder, "front.har"), _har(folder, "back.har")
    body_rows = changes[~changes["path"].str.contains("header:")]
    for p in pairs[pairs["relation"] != "unpaired"].itertuples():
        fa, fb = _entry(front_har, p.a_exchange), _entry(back_har, p.b_exchange)
        truth = independent(_body(fa), _body(fb))
        rows = body_rows[_shows(body_rows, p.a_exchange)]
        rows = rows[rows["path"] != "$"]  # `protocol converted` names the conversion, below
        for leaf in truth:
            assert any(_covers(r, leaf) for r in rows["path"]), f"{folder} {p.a_exchange}: {leaf} changed, not reported"
        for r in rows.itertuples():
            under = {leaf: v for leaf, v in truth.items() if _covers(r.path, leaf)}
            assert under, f"{folder} {p.a_exchange}: {r.path} ({r.kind}) reported but nothing there differs"
            if r.path in under:  # a leaf: the values are the ones on the wire
                assert (_cell(r.before), _cell(r.after)) == tuple(_shown(v) for v in under[r.path])
        converted = changes[(changes["kind"] == "protocol converted") & (changes["a_exchange"] == p.a_exchange)]
        assert len(converted) == (("input" in _body(fa)) != ("input" in _body(fb)))


def test_diff_finds_every_header_change(hop):
    folder, _, _, pairs, changes = hop
    front_har, back_har = _har(folder, "front.har"), _har(folder, "back.har")
    for p in pairs[pairs["relation"] != "unpaired"].itertuples():
        fa, fb = _entry(front_har, p.a_exchange), _entry(back_har, p.b_exchange)
        mine = changes[_shows(changes, p.a_exchange)]
        for direction, prefix, before, after in (
            ("request", "header:", fa, fb),  # what LiteLLM sent on
            ("response", "response header:", fb, fa),  # what it answered with
        ):
            ha, hb = _headers(before, direction), _headers(after, direction)
            truth = {n for n in set(ha) | set(hb) if n not in HOP_HEADERS and ha.get(n) != hb.get(n)}
            found = {x.removeprefix(prefix) for x in mine["path"] if x.startswith(prefix)}
            assert found == truth, f"{folder} {p.a_exchange} {direction}"
        # the one change redaction hides: LiteLLM replaced the client's key with the deployment's
        ka, kb = _headers(fa, "request")["authorization"], _headers(fb, "request")["authorization"]
        assert ka != kb and ka.startswith("Bearer sk-lab-FAKE-") and kb.startswith("Bearer sk-lab-FAKE-")
        assert "header:authorization" not in set(mine["path"])
    assert "sk-lab-FAKE" not in changes.to_csv()
    assert REDACTED not in set(changes["before"].dropna()) | set(changes["after"].dropna())


def test_litellm_log_says_it_sent_what_the_back_capture_holds(hop):
    """LiteLLM's StandardLoggingPayload holds the parameters the back recorder saw; read by the toolkit on its
    Responses route it rebuilds the whole request, but for base64 data, which LiteLLM's log cuts."""
    folder, _, back, pairs, changes = hop
    records = [json.loads(line) for line in (DATA / folder / "litellm.jsonl").read_text(encoding="utf-8").splitlines()]
    back_har = _har(folder, "back.har")
    sent = [_body(_entry(back_har, x)) for x in pairs.loc[pairs["relation"] != "unpaired", "b_exchange"]]
    assert len(records) == len(sent)
    for rec, body in zip(records, sent, strict=True):  # in call order
        assert {k: body[k] for k in rec["model_parameters"]} == rec["model_parameters"]
        assert set(body) == {"model", "input" if "input" in body else "messages", *rec["model_parameters"]}
        assert rec["model"] == f"openai/{body['model']}" and rec["api_base"].startswith("http://127.0.0.1:18791/")
    if folder != "litellm-responses-to-chat":  # there the log keeps the client's Responses input (the reader says so)
        logged = _capture(folder, "litellm.jsonl")
        link = hops.align(logged, back)
        paired = link[link["relation"] != "unpaired"]
        assert len(paired) == len(logged.exchanges) and (paired["relation"] == "one-to-one").all()
        same = hops.diff(logged, back, link)
        same = same[~same["path"].str.contains("header:")]  # the log has no headers
        assert same["before"].str.contains("[base64_data truncated: ", regex=False).all()
        assert set(same["kind"]) <= {"value changed"}
    # and every strict the diff says LiteLLM wrote is in what LiteLLM says it sent
    for r in changes[changes["tool"].notna()].itertuples():
        for n, rec in enumerate(records):
            tools = {t.get("name") or t["function"]["name"]: t for t in rec["model_parameters"]["tools"]}
            tool = tools[r.tool].get("function", tools[r.tool])
            if r.kind in ("strict added", "strict changed"):
                assert json.dumps(tool["strict"]) == r.after, f"litellm.jsonl line {n + 1}"


def test_provenance_names_litellm():
    chat = provenance.table(captures=[DATA / "litellm-responses-to-chat" / n for n in ("front.har", "back.har")])
    changed = chat[(chat["field"] == "bash.strict") & (chat["question"] == "who changed the schema")].iloc[0]
    assert changed["actor"] == "LiteLLM" and changed["answer"].startswith("LiteLLM 1.110.2")
    assert "response header x-litellm-version: 1.110.2" in changed["evidence"]
    # only the client side: the echo came from LiteLLM's response, so LiteLLM is named, not the gateway
    front = provenance.table(captures=[DATA / "litellm-before-fix" / "front.har"])
    read = front[(front["field"] == "bash.strict") & (front["question"] == "who interpreted strict")].iloc[0]
    assert read["actor"] == "LiteLLM" and "x-litellm-version" in read["evidence"]
    # with the capture behind LiteLLM, the backend's own echo answers, and LiteLLM changed nothing there
    both = provenance.table(captures=[DATA / "litellm-before-fix" / n for n in ("front.har", "back.har")])
    rows = both[both["field"] == "bash.strict"].set_index("question")
    assert rows.loc["who interpreted strict", "actor"] == "gateway"
    assert rows.loc["who changed the schema", "answer"].startswith("nobody between the recorded hops")
    # a hop that does not name itself stays "proxy"
    other = provenance.table(captures=[DATA / "two-hop-strict" / n for n in ("front.har", "back.har")])
    assert set(other.loc[other["question"] == "who changed the schema", "actor"].dropna()) == {"proxy"}


def _events(text: str) -> list[dict]:
    out = []
    for block in text.split("\n\n"):
        data = [line[5:].strip() for line in block.splitlines() if line.startswith("data:")]
        if data and data[0] != "[DONE]":
            out.append(json.loads(data[0]))
    return out


@pytest.mark.parametrize("folder", ["litellm-before-fix", "litellm-after-fix"])
def test_litellm_re_emits_a_responses_stream(folder):
    """On its native Responses route LiteLLM re-serialises every event: the same events in the same order,
    each with a top-level ``model`` (the client's model name), the response id re-encoded, and the
    ``response`` snapshot without its null ``error``/``incomplete_details``."""
    pairs = hops.align(_capture(folder, "front.har"), _capture(folder, "back.har"))
    front_har, back_har = _har(folder, "front.har"), _har(folder, "back.har")
    for p in pairs[pairs["relation"] != "unpaired"].itertuples():
        fa, fb = _entry(front_har, p.a_exchange), _entry(back_har, p.b_exchange)
        ea, eb = _events(fa["response"]["content"]["text"]), _events(fb["response"]["content"]["text"])
        assert [e["type"] for e in ea] == [e["type"] for e in eb]
        model = _body(fa)["model"]
        for a, b in zip(ea, eb, strict=True):
            assert a.pop("model") == model and "model" not in b
            if "response" in b:
                ra, rb = a.pop("response"), b.pop("response")
                assert ra.pop("id") != rb.pop("id")
                for key in ("error", "incomplete_details"):
                    assert rb.pop(key) is None and key not in ra
                if rb.get("usage") is None:
                    assert "usage" not in ra
                    rb.pop("usage")
                assert ra == rb
            assert a == b
