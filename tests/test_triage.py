"""Error triage: every packaged rule carries (in the YAML) real messages it must catch and near misses it must not;
unknown stays unknown; user rules come first; the lab's errors land in the right layers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

import toolkit
from toolkit.analysis import triage
from toolkit.knowledge import dsh_images as img
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge import dsh_settings as dsh
from toolkit.knowledge import pi_ai_tools
from toolkit.knowledge.pi_ai_tools import PiAiRefusal

DATA = Path(__file__).resolve().parents[1] / "data"
RULES_DIR = Path(triage.__file__).parents[1] / "knowledge" / triage.RULES_RESOURCE

SAME_MODE = 'Error: sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current "danger-full-access" mode'
BAD_FRAME = "byte 1423: invalid JSON at char 17: Expecting ',' delimiter"


def _classify(example, rules=None) -> triage.Classification:
    kwargs = dict(example) if isinstance(example, dict) else {"message": example}
    return triage.classify(kwargs.pop("message", None), rules=rules, **kwargs)


def _raw_rules() -> list[dict]:
    """Every rule as written, read here with PyYAML from the folder's files in name order."""
    return [r for f in sorted(RULES_DIR.glob("*.yaml")) for r in yaml.safe_load(f.read_text(encoding="utf-8")) or []]


def _packaged_ids() -> list[str]:
    """The rule ids in file order; a ``templates:`` entry stands for the rules generated from its family
    (``Rule.family``), in the order the loader makes them."""
    families: dict[str, list[str]] = {}
    for rule in triage.load_rules():
        if rule.family is not None:
            families.setdefault(rule.family, []).append(rule.id)
    return [i for r in _raw_rules() for i in (families.get(r["id"], []) if "templates" in r else [r["id"]])]


# ---- the rule table: each rule's examples and counterexamples sit beside it in the YAML --------

PACKAGED = {r.id: r for r in triage.load_rules()}
ADD_EXAMPLES = (
    "add `examples:` (real full texts the rule must catch: a message, or a mapping of message/error_code/status) "
    "and `counterexamples:` (near misses it must not catch) to the rule in toolkit/knowledge/triage_rules/"
)


def _missing_examples(raw: list[dict]) -> str | None:
    """What is missing from the rule table, said so that the reader knows what to add (None: nothing)."""
    missing = [f"{r['id']}: no {key}" for r in raw for key in triage.EXAMPLE_KEYS if not r.get(key)]
    return f"{', '.join(missing)}; {ADD_EXAMPLES}" if missing else None


def test_every_rule_has_examples_and_counterexamples():
    problem = _missing_examples(_raw_rules())
    assert problem is None, problem


def test_a_rule_without_examples_is_reported_with_what_to_add():
    raw = _raw_rules()
    raw[0] = {k: v for k, v in raw[0].items() if k != "examples"}
    problem = _missing_examples(raw)
    assert problem == f"dsh-settings-providers-array: no examples; {ADD_EXAMPLES}"


#: A ``templates:`` entry's examples and counterexamples are the family's (on its first generated rule); each
#: generated rule is its knowledge text, checked by tests/test_triage_knowledge.py.
SINGLE = sorted(r.id for r in PACKAGED.values() if r.family is None)
FAMILIES = sorted({r.family for r in PACKAGED.values() if r.family is not None})


@pytest.mark.parametrize("rule_id", SINGLE)
def test_rule_catches_its_examples(rule_id):
    rule = PACKAGED[rule_id]
    assert rule.examples, ADD_EXAMPLES
    for example in rule.examples:
        finding = _classify(example)
        assert finding.rule_id == rule_id, f"{example!r} went to {finding.rule_id}"
        assert finding.layer in triage.ERROR_LAYERS
        assert finding.explanation and finding.fix and finding.source


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_of_knowledge_texts_catches_its_examples_and_refuses_its_counterexamples(family):
    """Each example (a real text, or the piece of one a report quotes) is read by one of the family's rules,
    or by the earlier field rule that catches that knowledge text whole; no counterexample is read by any."""
    members = [r for r in PACKAGED.values() if r.family == family]
    head = members[0]
    assert head.examples and head.counterexamples, ADD_EXAMPLES
    for example in head.examples:
        finding = _classify(example)
        assert finding.rule_id != "unknown" and finding.layer == head.layer, (example, finding.rule_id)
    ids = {r.id for r in members}
    for example in head.counterexamples:
        assert _classify(example).rule_id not in ids, example


@pytest.mark.parametrize("rule_id", SINGLE)
def test_rule_refuses_its_counterexamples(rule_id):
    """The rule's match refuses each near miss. A truncated text may still be read as a fragment of the
    rule's own known text: then it is marked so, the match itself does not catch it, and the full text
    it is a piece of is shown."""
    rule = PACKAGED[rule_id]
    assert rule.counterexamples, ADD_EXAMPLES
    for example in rule.counterexamples:
        finding = _classify(example)
        if finding.rule_id == rule_id:
            kwargs = dict(example) if isinstance(example, dict) else {"message": example}
            body = (kwargs.get("message") or "").removeprefix("Error: ")
            assert finding.matched == "fragment" and not rule.pattern.search(body), example
            assert any(body.strip() in c.text.removeprefix("Error: ") for c in finding.candidates), example


#: The counterexamples that are a piece of their own rule's known text: the match refuses them, and
#: fragment matching reads them as a piece of that text (they were unknown before).
TRUNCATED_COUNTEREXAMPLES = {
    "dsh-background-jobs-unavailable": "background jobs unavailable: load @deepseek-ai/dsh-jobs",
    "dsh-escalation-lone-justification": (
        "invalid escalation: justification is only valid together with sandbox_permission"
    ),
    "dsh-invalid-timeout": "invalid timeoutMs: expected a positive number",
    "dsh-mcp-image-undeclared": 'image unavailable: image/png; model "gw-coder" does not declare image input',
    "dsh-settings-no-models": 'llm-pi-ai: provider "gw" resolves no models',
    "dsh-settings-providers-array": "llm-pi-ai: providers is now a dict keyed by provider route",
}


def test_truncated_counterexamples_are_read_as_fragments_of_their_rule():
    read = {}
    for rule_id, rule in PACKAGED.items():
        for example in rule.counterexamples:
            finding = _classify(example)
            if finding.rule_id == rule_id:
                read[rule_id] = example
                assert finding.matched == "fragment" and finding.rule_ids == (rule_id,)
    assert read == TRUNCATED_COUNTEREXAMPLES


def test_knowledge_texts_are_caught_by_their_rules():
    # examples in the YAML are literal texts; these come from the formatters the layers call
    for text, rule_id in [
        (dsh.removed_provider("gw"), "dsh-settings-removed-provider"),
        (dsh.needs_base_url("gw", "gw-coder"), "dsh-settings-needs-base-url"),
        (dsh.missing_credential("gw", "GW_API_KEY"), "dsh-missing-credential"),
        (dsh.missing_credential("gw", "GW_API_KEY", dsh="0.1.0-rc.8"), "dsh-missing-credential"),  # rc.8's ending
        (rt.rejected("danger-full-access", "bash", version=rt.LONG_REJECTION_FROM), "dsh-escalation-rejected"),
        (rt.rejected("danger-full-access", "write"), "dsh-escalation-rejected"),
        (rt.ERROR_PREFIX + img.read_image_refusal("screenshot.png", "gw-coder"), "dsh-read-image-undeclared"),
        (img.ACP_PROMPT_REFUSAL, "dsh-acp-image-refused"),
        (img.web_refusal("gw-coder"), "dsh-web-image-unsupported"),
        (img.adapter_refusal("gw-coder"), "dsh-pi-ai-adapter-image"),
        (pi_ai_tools.require_unmet("bash", "strict tools are unsupported"), "pi-ai-require-strict-unsupported"),
    ]:
        assert triage.classify(text).rule_id == rule_id, text


def test_every_dsh_image_text_has_its_rule():
    """Whichever entry point's text a user pastes, triage names the cause."""
    for entry, text in img.refusals("gw-coder", "shot.png", media_type="image/png"):
        found = triage.classify(text)
        assert found.rule_id != triage.UNKNOWN and found.layer == "config-capability", (entry, text, found.rule_id)


def test_examples_are_validated_when_rules_load():
    with pytest.raises(triage.RuleError, match=r"'examples' must be a list"):
        triage.load_rules([_user_rule(examples="bash is disabled by policy in this session")])
    with pytest.raises(triage.RuleError, match=r"may only have the keys message, error_code, status"):
        triage.load_rules([_user_rule(counterexamples=[{"body": "x"}])])
    rules = triage.load_rules([_user_rule(examples=["bash is disabled by policy in this session"])])
    assert rules[0].examples == ("bash is disabled by policy in this session",)


def test_rules_are_ordered_specific_before_general():
    ids = _packaged_ids()
    for specific, general in [
        ("dsh-escalation-same-mode", "dsh-escalation-not-wider"),
        ("dsh-invalid-arguments-filled-optional", "dsh-invalid-arguments"),
        ("pi-ai-require-strict-unsupported", "pi-ai-require-schema-unsupported"),
        ("gateway-unknown-behaviour", "gateway-unknown-url"),
        ("gateway-unsupported-image-input", "http-client-error-message"),
        ("openai-rate-limit-exceeded", "pi-ai-error-event"),
        ("http-rate-limit-message", "http-client-error-message"),
        # field reports (docs/field-failures.md): a cause named in the body wins over its code or status
        ("openai-strict-schema-required", "openai-invalid-function-parameters"),
        ("codex-backend-upstream-rejected-input", "openai-server-error"),
        ("openai-missing-scopes", "http-auth-message"),
        ("tool-schema-required-null", "http-client-error-message"),
        ("gateway-unknown-tool-field", "http-client-error-message"),
        ("gateway-parameter-wrong-type", "http-client-error-message"),
        ("pi-ai-validation-filled-placeholder", "pi-ai-validation-failed"),
        ("dsh-escalation-lone-justification", "tool-conditional-argument"),
    ]:
        assert ids.index(specific) < ids.index(general)


def test_packaged_rules_load_through_package_data():
    rules = triage.load_rules()
    assert [r.id for r in rules] == _packaged_ids()
    assert {r.layer for r in rules} == set(triage.ERROR_LAYERS)


def test_template_rules_reuse_the_knowledge_texts():
    raw = {r["id"]: r for r in _raw_rules()}
    assert raw["dsh-read-image-undeclared"]["template"] == "dsh_images.read_image_refusal"
    assert raw["dsh-missing-credential"]["template"] == "dsh_settings.missing_credential"
    rule = next(r for r in triage.load_rules() if r.id == "dsh-missing-credential")
    assert "(?P=ref)" in rule.pattern.pattern  # the repeated reference must be the same name


def test_pi_ai_refusal_from_the_serialization_model_is_classified():
    bash = {
        "name": "bash",
        "description": "run",
        "parameters": {"type": "object", "properties": {"command": {}}},
        "constrainedSampling": {"type": "json_schema", "strict": "require"},
    }
    for compat, rule_id in [
        (None, "pi-ai-require-strict-unsupported"),
        ({"supportsStrictMode": True}, "pi-ai-require-schema-unsupported"),
    ]:
        with pytest.raises(PiAiRefusal) as exc:
            pi_ai_tools.convert_tools([bash], api="openai-responses", compat=compat)
        assert triage.classify(str(exc.value)).rule_id == rule_id


# ---- classify ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "something odd happened",
        "Error: bash is disabled by policy in this session",  # a real DSH text no rule covers
        "",
        None,
        "gateway API error (400) without a body",
    ],
)
def test_unknown_stays_unknown(message):
    finding = triage.classify(message)
    assert (finding.rule_id, finding.layer, finding.fix, finding.source) == ("unknown", "unknown", None, None)
    assert finding.message == message


def test_dsh_prefix_is_ignored_for_matching_but_kept():
    finding = triage.classify("Error: invalid justification: expected a non-empty sentence")
    assert finding.rule_id == "dsh-invalid-justification"
    assert finding.message == "Error: invalid justification: expected a non-empty sentence"
    assert triage.classify("invalid justification: expected a non-empty sentence").rule_id == finding.rule_id


def test_missing_values_from_frames_are_ignored():
    assert triage.classify(pd.NA, error_code=pd.NA, status=pd.NA).rule_id == "unknown"
    assert triage.classify(pd.NA, status=pd.array([429], dtype="Int64")[0]).rule_id == "http-rate-limit-status"


# ---- user rules --------------------------------------------------------------------------------


def _user_rule(**over) -> dict:
    rule = {
        "id": "my-rule",
        "layer": "runtime-policy",
        "match": "^bash is disabled by policy in this session$",
        "explain": "A policy plugin disables bash.",
        "fix": "Enable bash in the policy.",
        "source": "my notes",
    }
    rule.update(over)
    return rule


def test_user_rules_extend_the_packaged_ones():
    rules = triage.load_rules([_user_rule()])
    assert rules[0].id == "my-rule" and rules[0].origin == "user rules"
    assert triage.classify("Error: bash is disabled by policy in this session", rules=rules).rule_id == "my-rule"
    assert len(rules) == len(triage.load_rules()) + 1


def test_user_rules_override_packaged_ones(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(
        yaml.safe_dump(
            [
                _user_rule(
                    id="dsh-invalid-justification",
                    layer="serialization-protocol",
                    match="^invalid justification: ",
                    explain="Ours.",
                    fix="Ours.",
                ),
                _user_rule(id="catch-escalations", layer="config-capability", match="^sandbox escalation to "),
            ]
        ),
        encoding="utf-8",
    )
    rules = triage.load_rules(path)
    assert [r.id for r in rules].count("dsh-invalid-justification") == 1
    finding = triage.classify("Error: invalid justification: expected a non-empty sentence", rules=rules)
    assert (finding.rule_id, finding.layer, finding.explanation) == (
        "dsh-invalid-justification",
        "serialization-protocol",
        "Ours.",
    )
    # tried first: it wins over the packaged, more specific same-mode rule
    assert triage.classify(SAME_MODE, rules=rules).rule_id == "catch-escalations"
    assert rules[0].origin == str(path)


@pytest.mark.parametrize(
    "rule, expected",
    [
        ({k: v for k, v in _user_rule().items() if k != "fix"}, r"rule 1 \('my-rule'\): missing key 'fix'"),
        (
            _user_rule(match="^(unclosed"),
            r"rule 1 \('my-rule'\): bad regex at position 1: missing \), unterminated subpattern",
        ),
        (
            _user_rule(layer="execution"),
            r"rule 1 \('my-rule'\): unknown layer 'execution'; choose one of config-capability",
        ),
        (_user_rule(fields=["message", "body"]), r"unknown field 'body' in 'fields'"),
        (_user_rule(template="dsh_images.web_refusal"), r"needs exactly one of 'match' .* or 'template'"),
        (
            {k: v for k, v in _user_rule(template="dsh_images.nothing").items() if k != "match"},
            r"template 'dsh_images.nothing' does not name anything in toolkit.knowledge",
        ),
        (
            {k: v for k, v in _user_rule(template="os.system").items() if k != "match"},
            r"template 'os.system' does not name anything in toolkit.knowledge",
        ),
        (_user_rule(explain=""), r"'explain' must be a non-empty string"),
        (_user_rule(severity="high"), r"unknown key 'severity'"),
        ("not a rule", r"rule 1: a rule must be a mapping, not a str"),
    ],
)
def test_bad_user_rules_say_which_rule_and_what_is_wrong(rule, expected):
    with pytest.raises(triage.RuleError, match=expected):
        triage.load_rules([rule])


def test_bad_user_rule_files(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("- id: x\n  match: [unclosed\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match=r"bad.yaml \(line \d+, column \d+\): not valid YAML"):
        triage.load_rules(bad_yaml)
    not_list = tmp_path / "map.yaml"
    not_list.write_text("id: x\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match="expected a list of rules"):
        triage.load_rules(not_list)
    with pytest.raises(triage.RuleError, match="cannot read rules file"):
        triage.load_rules(tmp_path / "missing.yaml")
    with pytest.raises(triage.RuleError, match=r"rule 2 \('my-rule'\): duplicate id 'my-rule'"):
        triage.load_rules([_user_rule(), _user_rule()])


# ---- errors() on the lab data ------------------------------------------------------------------


def _errors(path: str) -> tuple[toolkit.Capture, pd.DataFrame]:
    cap = toolkit.load_capture(DATA / path)
    return cap, triage.errors(cap)


def test_errors_frame_columns_and_dtypes():
    _, err = _errors("dsh-before-fix/session.jsonl.zstd")
    assert list(err.columns) == [
        "source",
        "exchange_id",
        "location",
        "call_id",
        "kind",
        "status",
        "error_code",
        "message",
        "layer",
        "rule_id",
        "explanation",
        "fix",
        "cause",
        "cause_tool",
        "cause_path",
        "cause_calls",
        "cause_strict_state",
        "cause_location",
    ]
    assert list(err["layer"].cat.categories) == [*triage.ERROR_LAYERS, "unknown"]
    assert triage.ERRORS.mismatches(err) == []
    assert list(err["kind"].cat.categories) == ["http", "stream", "tool-result", "tool-output", "problem"]
    assert str(err["status"].dtype) == "Int64" and str(err["message"].dtype) == "string"


def test_errors_before_fix_session_tool_results():
    cap, err = _errors("dsh-before-fix/session.jsonl.zstd")
    assert len(err) == int(cap.tool_results["is_error"].sum()) == 3
    assert set(err["kind"]) == {"tool-result"}
    got = dict(zip(err["call_id"], zip(err["layer"], err["rule_id"])))
    assert got == {
        "call_0001": ("runtime-policy", "dsh-invalid-justification"),
        "call_0002": ("runtime-policy", "dsh-escalation-same-mode"),
        "call_0003": ("config-capability", "dsh-read-image-undeclared"),
    }
    assert err["message"].str.startswith("Error: ").all()  # the text as DSH logged it
    assert set(err["source"]) == {"session.jsonl.zstd"}


@pytest.mark.parametrize(
    "path", ["image-refused/capture.har", "image-refused/gateway.jsonl", "image-refused/capture.mitm"]
)
def test_errors_image_refused(path):
    _, err = _errors(path)
    assert len(err) == 1
    row = err.iloc[0]
    assert (row["kind"], row["status"], row["error_code"]) == ("http", 400, "unsupported_image_input")
    assert row["layer"] == "config-capability" and row["rule_id"] == "gateway-unsupported-image-input"
    assert row["message"] == "Image input is not supported by model gw-coder on this gateway."


def test_errors_busy_day_every_error_classified():
    cap, everything = _errors("busy-day/gateway.jsonl")
    ex = cap.exchanges
    terminal = ex["terminal"].astype(str)
    assert (everything["layer"] != "unknown").all() and (everything["rule_id"] != "unknown").all()
    # DSH's refusals reach a gateway log only as outputs sent back in later requests: one row per call
    outputs = everything[everything["kind"] == "tool-output"]
    inputs = cap.inputs_wide()
    sent_back = inputs[(inputs["item_type"] == "function_call_output") & inputs["text"].str.startswith("Error: ")]
    assert len(outputs) == sent_back["call_id"].nunique() and outputs["call_id"].is_unique
    assert set(outputs["layer"]) == {"runtime-policy"}
    assert set(outputs["rule_id"]) == {"dsh-invalid-justification", "dsh-escalation-same-mode"}
    err = everything[everything["kind"].isin(["http", "stream"])]
    assert set(err["layer"]) == {"transport-gateway"}
    # one row per failing exchange; the cut streams' stream-cut problems are not counted twice
    assert len(err) == int((terminal.isin(["http-error", "failed", "cut"]) | (ex["status"] >= 400)).sum()) == 48
    assert err["exchange_id"].is_unique
    by_status = err[err["kind"] == "http"].groupby("status").size().to_dict()
    assert (
        by_status == {429: int((ex["status"] == 429).sum()), 500: int((ex["status"] == 500).sum())} == {429: 19, 500: 9}
    )
    stream = err[err["kind"] == "stream"]
    cut_ids = set(ex.loc[terminal == "cut", "exchange_id"])
    failed_ids = set(ex.loc[terminal == "failed", "exchange_id"])
    assert set(stream["exchange_id"]) == cut_ids | failed_ids and len(cut_ids) == len(failed_ids) == 10
    cut = stream[stream["exchange_id"].isin(cut_ids)]
    assert set(cut["rule_id"]) == {"toolkit-stream-cut-responses", "toolkit-stream-cut-chat"}
    problems = cap.problems.set_index("exchange_id")["message"]
    assert all(problems[x] == m for x, m in zip(cut["exchange_id"], cut["message"]))
    assert set(stream[stream["exchange_id"].isin(failed_ids)]["rule_id"]) == {"gateway-model-failed"}
    assert set(err.loc[err["status"] == 429, "rule_id"]) == {"gateway-rate-limited"}
    assert set(err.loc[err["status"] == 500, "rule_id"]) == {"gateway-server-error"}


def test_errors_on_a_clean_capture_is_empty():
    _, err = _errors("dsh-after-fix/capture.har")
    assert err.empty and list(err.columns)[-1] == "cause_location"
    assert triage.ERRORS.mismatches(err) == []  # the declared dtypes, not all-object columns


def test_errors_lists_problems_not_already_represented():
    cap = toolkit.load_capture(DATA / "busy-day" / "gateway.jsonl")
    before = len(triage.errors(cap))
    extra = pd.DataFrame(
        {
            "source": ["x.mitm", "x.mitm", "x.mitm"],
            "location": ["flow 3", "flow 4", "line 9"],
            "kind": ["flow-error", "sse-frame", "retried"],
            "message": [
                "mitmproxy recorded an error: Connection killed.",
                BAD_FRAME,
                "an attempt finished 'error' (PROVIDER_ERROR: OpenAI Responses stream ended "
                "before a terminal response event) and the step was retried",
            ],
            "exchange_id": [None, None, None],
        }
    )
    probs = pd.concat([cap.problems.astype(object), extra], ignore_index=True)
    cap.problems = probs.astype({c: str(t) for c, t in cap.problems.dtypes.items()})
    err = triage.errors(cap)
    rows = err[err["kind"] == "problem"]
    assert list(rows["rule_id"]) == ["toolkit-flow-error", "toolkit-sse-bad-frame", "pi-ai-stream-no-terminal"]
    assert (
        rows["message"].iloc[2].startswith("an attempt finished")
    )  # the toolkit's sentence, triaged by its inner text
    assert len(err) == before + 3
