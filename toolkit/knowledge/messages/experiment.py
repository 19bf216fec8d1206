"""The experiment section: the variants' table, the comparison, the conclusions."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "experiment.title": {
        "en": "Experiment: the same request, variants of the contract",
        "zh-CN": "实验：同一请求，契约的不同变体",
    },
    "experiment.dry_run": {
        "en": "A dry run: nothing was sent. Give an endpoint to send the variants.",
        "zh-CN": "试运行：未发送任何内容。提供一个端点即可发送各变体。",
    },
    "experiment.not_in_json": {
        "en": "the JSON report has no experiment section: use --format markdown or html",
        "zh-CN": "JSON 报告没有实验部分：请使用 --format markdown 或 html",
    },
    "experiment.counted": {
        "en": "Accepted and refused count the calls the model made, judged by DSH's own rules (the execution layer, "
        "in the session's mode); in brackets the 95% Wilson interval.",
        "zh-CN": "“接受”和“拒绝”统计的是模型发出的工具调用，按 DSH 自身的规则判定（执行层，使用会话的沙箱模式）；"
        "括号内为 95% Wilson 区间。",
    },
    "experiment.rate": {"en": "{k} of {n}", "zh-CN": "{n} 次中 {k} 次"},
    "experiment.rate_interval": {"en": "{k} of {n} ({low}–{high}%)", "zh-CN": "{n} 次中 {k} 次（{low}–{high}%）"},
    "experiment.fact.capture": {"en": "capture", "zh-CN": "抓包"},
    "experiment.fact.exchange": {"en": "exchange", "zh-CN": "交换"},
    "experiment.fact.endpoint": {"en": "endpoint", "zh-CN": "端点"},
    "experiment.fact.variants": {"en": "variants", "zh-CN": "变体"},
    "experiment.fact.samples": {"en": "samples", "zh-CN": "样本"},
    "experiment.fact.judged_by": {"en": "judged by", "zh-CN": "判定依据"},
    "experiment.fact.when": {"en": "when", "zh-CN": "时间"},
    "experiment.fact.complete": {"en": "complete", "zh-CN": "完整"},
    "experiment.sha": {"en": " (sha256 {sha}…)", "zh-CN": "（sha256 {sha}…）"},
    "experiment.no_endpoint": {"en": "none (dry run: nothing was sent)", "zh-CN": "无（试运行：未发送任何内容）"},
    "experiment.samples": {"en": "{n} per variant, interleaved", "zh-CN": "每个变体 {n} 个，交错发送"},
    "experiment.rules": {"en": "DSH's rules", "zh-CN": "DSH 的规则"},
    "experiment.rules_version": {"en": "DSH {dsh}'s rules", "zh-CN": "DSH {dsh} 的规则"},
    "experiment.rules_mode": {"en": "{rules} in {mode}", "zh-CN": "{rules}，沙箱模式 {mode}"},
    "experiment.when": {"en": "{started} to {finished} (UTC)", "zh-CN": "{started} 至 {finished}（UTC）"},
    "experiment.incomplete": {
        "en": "no: stopped early, what was sent is recorded",
        "zh-CN": "否：提前停止，已发送的内容均已记录",
    },
    "experiment.changed": {"en": "What each variant changed", "zh-CN": "各变体改了什么"},
    "experiment.came_back": {"en": "What came back", "zh-CN": "返回了什么"},
    "experiment.grouped": {"en": "{n} tools: {names}", "zh-CN": "{n} 个工具：{names}"},
    "experiment.as_captured": {"en": "the captured request as it is", "zh-CN": "原样使用抓包中的请求"},
    "experiment.nothing_to_change": {
        "en": "nothing to change: the same body as captured (sent all the same, so the comparison keeps its arm)",
        "zh-CN": "无需改动：请求体与抓包相同（仍然发送，以便对比保留这一组）",
    },
    "experiment.top_rule": {
        "en": "The most frequent refusal, as DSH words it:",
        "zh-CN": "最常见的拒绝（DSH 原文）：",
    },
    "experiment.refused_calls": {"en": "{variant}: {rate} calls refused", "zh-CN": "{variant}：{rate} 调用被拒"},
    "experiment.figure_alt": {
        "en": "refused and accepted share of calls per variant, with 95% Wilson intervals",
        "zh-CN": "各变体被拒与被接受的调用占比，含 95% Wilson 区间",
    },
    "experiment.col.variant": {"en": "variant", "zh-CN": "变体"},
    "experiment.col.tool": {"en": "tool", "zh-CN": "工具"},
    "experiment.col.path": {"en": "path", "zh-CN": "路径"},
    "experiment.col.kind": {"en": "kind", "zh-CN": "类型"},
    "experiment.col.before": {"en": "before", "zh-CN": "之前"},
    "experiment.col.after": {"en": "after", "zh-CN": "之后"},
    "experiment.col.requests": {"en": "requests", "zh-CN": "请求"},
    "experiment.col.answered": {"en": "answered", "zh-CN": "已应答"},
    "experiment.col.errors": {"en": "errors", "zh-CN": "错误"},
    "experiment.col.calls": {"en": "calls", "zh-CN": "调用"},
    "experiment.col.accepted": {"en": "accepted", "zh-CN": "接受"},
    "experiment.col.refused": {"en": "refused", "zh-CN": "拒绝"},
    "experiment.col.filled empty": {"en": "filled empty", "zh-CN": "填空值"},
    # compare's sentence (judge.compare): the numbers and variant names are parameters, never translated
    "experiment.compare.sentence": {
        "en": "{a}: {ka} of {na} calls refused ({la}–{ha}%); {b}: {kb} of {nb} ({lb}–{hb}%). "
        "Difference {d} points (95% interval {lo} to {hi}), Fisher exact p = {p}: {conclusion}",
        "zh-CN": "{a}：{na} 次调用中 {ka} 次被拒（{la}–{ha}%）；{b}：{nb} 次中 {kb} 次（{lb}–{hb}%）。"
        "差值 {d} 个百分点（95% 区间 {lo} 至 {hi}），Fisher 精确检验 p = {p}：{conclusion}",
    },
    "experiment.compare.explained": {
        "en": "the change explains the refusals.",
        "zh-CN": "拒绝可归因于这一改动。",
    },
    "experiment.compare.unclear": {
        "en": "N is too small to tell these apart; send more samples.",
        "zh-CN": "样本量 N 太小，无法区分二者；请增加样本。",
    },
    "experiment.compare.no_calls": {
        "en": "{a}: {ka} of {na} calls refused; {b}: {kb} of {nb}: no calls to compare on {which}; send more samples.",
        "zh-CN": "{a}：{na} 次调用中 {ka} 次被拒；{b}：{nb} 次中 {kb} 次：{which} 没有可比较的调用；请增加样本。",
    },
    "experiment.compare.both": {"en": "{a} and {b}", "zh-CN": "{a} 和 {b}"},
    "experiment.notice.other_host": {
        "en": "sending to {target}, not the captured host {captured}",
        "zh-CN": "发送到 {target}，而不是抓包中的主机 {captured}",
    },
}
