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
        "en": "Accepted and refused count the calls the model made that could be judged, by DSH's own rules (the "
        "execution layer, in the session's mode); a call that could not be judged is left out of the rates. In "
        "brackets the 95% Wilson interval.",
        "zh-CN": "“接受”和“拒绝”统计的是模型发出、且能够判定的工具调用，按 DSH 自身的规则判定（执行层，使用会话的沙箱模式）；"
        "无法判定的调用不计入比率。括号内为 95% Wilson 区间。",
    },
    "experiment.assumptions": {
        "en": "Each call is judged as if the user approved its escalation once (allowed-once), and every call "
        "counts as one trial, calls within one answer too (treated as independent). The change is said to explain "
        "the refusals only when the 95% interval of the difference excludes 0 and Fisher's p < 0.05.",
        "zh-CN": "每次调用都按用户已批准一次其权限升级（allowed-once）来判定；每次调用算作一次试验，同一应答中的多次调用也"
        "各算一次（视为相互独立）。只有当差值的 95% 区间不含 0 且 Fisher 检验 p < 0.05 时，才说拒绝可归因于这一改动。",
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
    "experiment.col.judged": {"en": "judged", "zh-CN": "已判定"},
    "experiment.col.filled empty": {"en": "filled empty", "zh-CN": "填空值"},
    # compare's sentence (judge.compare): the numbers and variant names are parameters, never translated
    "experiment.compare.sentence": {
        "en": "{a}: {ka} of {na} calls refused ({la}–{ha}%); {b}: {kb} of {nb} ({lb}–{hb}%). "
        "Difference {d} points (95% interval {lo} to {hi}), Fisher exact {p}: {conclusion}{note}",
        "zh-CN": "{a}：{na} 次调用中 {ka} 次被拒（{la}–{ha}%）；{b}：{nb} 次中 {kb} 次（{lb}–{hb}%）。"
        "差值 {d} 个百分点（95% 区间 {lo} 至 {hi}），Fisher 精确检验 {p}：{conclusion}{note}",
    },
    "experiment.compare.explained": {
        "en": "the change explains the refusals.",
        "zh-CN": "拒绝可归因于这一改动。",
    },
    "experiment.compare.unclear": {
        "en": "N is too small to tell these apart; send more samples.",
        "zh-CN": "样本量 N 太小，无法区分二者；请增加样本。",
    },
    "experiment.compare.no_difference": {
        "en": "no difference seen; the 95% interval still allows a true difference from {lo} to {hi} points.",
        "zh-CN": "未见差异；95% 区间仍容许 {lo} 至 {hi} 个百分点的真实差异。",
    },
    "experiment.compare.left_out": {
        "en": " Calls not judged, left out of the rates: {a} {ua}, {b} {ub}.",
        "zh-CN": "未判定、未计入比率的调用：{a} {ua} 次，{b} {ub} 次。",
    },
    "experiment.compare.no_calls": {
        "en": "{a}: {ka} of {na} calls refused; {b}: {kb} of {nb}: no judged calls to compare on {which}; {because}",
        "zh-CN": "{a}：{na} 次调用中 {ka} 次被拒；{b}：{nb} 次中 {kb} 次：{which} 没有已判定的调用可比较；{because}",
    },
    "experiment.compare.send_more": {"en": "send more samples.", "zh-CN": "请增加样本。"},
    "experiment.compare.because": {"en": "{why}.", "zh-CN": "{why}。"},
    "experiment.compare.both": {"en": "{a} and {b}", "zh-CN": "{a} 和 {b}"},
    "experiment.nothing.no_request": {"en": "no request was sent", "zh-CN": "没有发送任何请求"},
    "experiment.nothing.no_answer": {"en": "no request was answered ({error})", "zh-CN": "没有请求得到应答（{error}）"},
    "experiment.nothing.all_errors": {
        "en": "every answer was an error ({error})",
        "zh-CN": "每个应答都是错误（{error}）",
    },
    "experiment.nothing.no_calls": {"en": "the model made no call", "zh-CN": "模型没有发出任何调用"},
    "experiment.nothing.not_judged": {
        "en": "no call could be judged: {reasons}",
        "zh-CN": "没有可判定的调用：{reasons}",
    },
    "experiment.nothing.reason": {"en": "{n} × {why}", "zh-CN": "{n} 次{why}"},
    "experiment.not_judged.answer-unfinished": {
        "en": "answer cut or failed before it finished",
        "zh-CN": "应答在完成前被截断或失败",
    },
    # why an attempt is no answer (send.Sender._failure); {said} is the endpoint's own text, verbatim
    "experiment.failure.said": {"en": ": {said}", "zh-CN": "：{said}"},
    "experiment.failure.status": {"en": "HTTP {status}{said}", "zh-CN": "HTTP {status}{said}"},
    "experiment.failure.redirect": {
        "en": "HTTP {status}: a redirect is not an answer (redirects are never followed)",
        "zh-CN": "HTTP {status}：重定向不是应答（从不跟随重定向）",
    },
    "experiment.failure.redirect_to": {
        "en": "HTTP {status} to {where}: a redirect is not an answer (redirects are never followed)",
        "zh-CN": "HTTP {status}，重定向到 {where}：重定向不是应答（从不跟随重定向）",
    },
    "experiment.failure.not_json": {
        "en": "HTTP {status} without a JSON answer{said}",
        "zh-CN": "HTTP {status}，但没有 JSON 应答{said}",
    },
    "experiment.failure.not_json_kind": {
        "en": "HTTP {status} without a JSON answer ({kind}){said}",
        "zh-CN": "HTTP {status}，但没有 JSON 应答（{kind}）{said}",
    },
    "experiment.stopped.in_a_row": {
        "en": "{n} requests in a row without an answer; the last: {last}",
        "zh-CN": "连续 {n} 个请求没有得到应答；最后一个：{last}",
    },
    "experiment.stopped": {
        "en": "Stopped early: {why}",
        "zh-CN": "提前停止：{why}",
    },
    "experiment.inconclusive": {
        "en": "Inconclusive: nothing could be judged to compare.",
        "zh-CN": "无定论：没有可判定、可比较的调用。",
    },
    "experiment.notice.not_loopback": {
        "en": "{host} is not this machine: the requests leave it",
        "zh-CN": "{host} 不是本机：请求会离开本机",
    },
    "experiment.notice.stopping": {
        "en": "stopping after the current request (Ctrl-C again to end it now)",
        "zh-CN": "将在当前请求结束后停止（再按一次 Ctrl-C 立即结束该请求）",
    },
    "experiment.notice.finishing": {
        "en": "writing the record of what was sent; a moment",
        "zh-CN": "正在写入已发送内容的记录，请稍候",
    },
    "experiment.notice.other_host": {
        "en": "sending to {target}, not the captured host {captured}",
        "zh-CN": "发送到 {target}，而不是抓包中的主机 {captured}",
    },
}
