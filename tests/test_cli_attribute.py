"""``agent-contract attribute``: which client library sent a capture's tools, on the lab's real captures."""

from __future__ import annotations

import json

from conftest import FIXTURES, REPO

from toolkit.present.cli import main

DATA = REPO / "data"


def test_a_dsh_capture_is_attributed_to_pi_ai_as_dsh_loads_it(capsys):
    assert main(["attribute", str(DATA / "dsh-before-fix" / "capture.har")]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("these tools look like pi-ai 1.6.0/0.82.1/0.99.1 (openai-responses)")
    assert "Vercel AI SDK" not in first and "Agents SDK" not in first  # both always send strict
    assert " 25     25" in out  # all 25 DSH tools reproduced exactly


def test_behind_litellm_the_tools_carry_the_strict_false_litellm_wrote(capsys):
    assert main(["attribute", str(DATA / "litellm-responses-to-chat" / "back.har")]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "LiteLLM 1.110.2 with strict false" in first
    assert "strict unset" not in first


def test_tools_no_library_sends_say_so_and_exit_1(tmp_path, capsys):
    source = (DATA / "busy-day" / "gateway.jsonl").read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(source)
    for tool in record["request"]["body"]["tools"]:
        tool["strict"] = "yes"  # no modelled adapter writes a string here
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["attribute", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("no profile matches")
    assert "closest:" in out


def test_a_capture_without_tools_is_inconclusive(capsys):
    """Nothing to attribute is not bad input and not a verdict: exit 3, as ``verify`` with no evidence."""
    rollout = FIXTURES / "codex" / "real-0.171.0-danger-full-access.jsonl"
    assert main(["attribute", str(rollout)]) == 3
    out = capsys.readouterr().out
    assert out == f"INCONCLUSIVE: {rollout} sent no tools, so there is nothing to attribute\n"


def test_the_verdict_line_in_chinese_keeps_names_versions_and_the_table(capsys, monkeypatch):
    monkeypatch.delenv("AGENT_CONTRACT_LANG", raising=False)
    capture = str(DATA / "dsh-before-fix" / "capture.har")
    assert main(["attribute", capture]) == 0
    en = capsys.readouterr().out
    assert main(["attribute", capture, "--lang", "zh-CN"]) == 0
    zh = capsys.readouterr().out
    assert zh.splitlines()[0] != en.splitlines()[0] and "这些工具看起来出自" in zh.splitlines()[0]
    assert "pi-ai 1.6.0/0.82.1/0.99.1（openai-responses）" in zh and "compat.supportsStrictMode" in zh
    assert zh.splitlines()[1:] == en.splitlines()[1:]  # the table is data: the same in both languages


def test_no_match_in_chinese(tmp_path, capsys):
    source = (DATA / "busy-day" / "gateway.jsonl").read_text(encoding="utf-8").splitlines()[0]
    record = json.loads(source)
    for tool in record["request"]["body"]["tools"]:
        tool["strict"] = "yes"
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["attribute", str(path), "--lang", "zh-CN"]) == 1
    out = capsys.readouterr().out
    assert "最接近的：" in out and "closest:" not in out and "no profile matches" not in out
