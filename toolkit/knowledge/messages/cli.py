"""The command line's own lines: what it wrote, the `config` and `experiment` commands' output, its notes.

Values (paths, keys, YAML paths, model ids, counts) are parameters, verbatim. An ``InputError``'s line
(``agent-contract: error: …``) is not here: it stays English in every language, as a grep target in logs.
"""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    # ---- every command ----------------------------------------------------------------------------
    "cli.note_plain": {"en": "agent-contract: {note}", "zh-CN": "agent-contract：{note}"},
    "cli.note": {"en": "agent-contract: note: {note}", "zh-CN": "agent-contract：注意：{note}"},
    "cli.interrupted": {"en": "agent-contract: interrupted", "zh-CN": "agent-contract：已中断"},
    "cli.wrote": {"en": "wrote {out}", "zh-CN": "已写入 {out}"},
    "cli.attribute.closest": {"en": "closest:", "zh-CN": "最接近的："},
    "cli.verify.mode": {"en": "{mode} ({source})", "zh-CN": "{mode}（{source}）"},
    # ---- verify -------------------------------------------------------------------------------------
    "cli.verify.wrote_pass": {"en": "PASS: wrote {out}", "zh-CN": "通过：已写入 {out}"},
    "cli.verify.wrote_fail": {"en": "FAIL: wrote {out}", "zh-CN": "失败：已写入 {out}"},
    # a command that could check nothing: exit 3 (toolkit.present.report.EXIT_CODES), never a pass
    "cli.inconclusive.config": {
        "en": "INCONCLUSIVE: {source} defines no routes, so there was nothing to check",
        "zh-CN": "无定论：{source} 未定义任何路由，没有可检查的内容",
    },
    "cli.inconclusive.summary": {
        "en": "INCONCLUSIVE: no capture held an entry, so nothing was read",
        "zh-CN": "无定论：没有任何抓包含有条目，未读取到任何内容",
    },
    "cli.inconclusive.attribute": {
        "en": "INCONCLUSIVE: {capture} sent no tools, so there is nothing to attribute",
        "zh-CN": "无定论：{capture} 未发送任何工具，没有可归属的内容",
    },
    "cli.verify.wrote_inconclusive": {"en": "INCONCLUSIVE: wrote {out}", "zh-CN": "无定论：已写入 {out}"},
    # a file named twice (toolkit.capture.load.REPEATED): read once, and said
    "input.repeated": {"en": "given more than once; read once", "zh-CN": "给出了多次；只读取一次"},
    # ---- ingest -------------------------------------------------------------------------------------
    "cli.ingest.skipped": {"en": "skipped {line}", "zh-CN": "已跳过 {line}"},
    # ---- summary (its lines are English: the command has no --lang) ----------------------------------
    "cli.summary.totals": {"en": "{n} captures: {counts}", "zh-CN": "{n} 个抓包：{counts}"},
    "cli.summary.totals_one": {"en": "{n} capture: {counts}", "zh-CN": "{n} 个抓包：{counts}"},
    "cli.summary.skipped": {
        "en": "skipped {n} files that are not captures:",
        "zh-CN": "跳过了 {n} 个不是抓包的文件：",
    },
    "cli.summary.skipped_one": {
        "en": "skipped {n} file that is not a capture:",
        "zh-CN": "跳过了 {n} 个不是抓包的文件：",
    },
    "cli.ingest.done": {
        "en": "{source}: {exchanges} exchanges in {seconds}s ({rows})",
        "zh-CN": "{source}：{exchanges} 个交换，用时 {seconds}s（{rows}）",
    },
    "cli.ingest.done_one": {
        "en": "{source}: {exchanges} exchange in {seconds}s ({rows})",
        "zh-CN": "{source}：{exchanges} 个交换，用时 {seconds}s（{rows}）",
    },
    "cli.ingest.wrote": {
        "en": "wrote {n} captures and manifest.json to {out}",
        "zh-CN": "已将 {n} 个抓包和 manifest.json 写入 {out}",
    },
    "cli.ingest.wrote_one": {
        "en": "wrote {n} capture and manifest.json to {out}",
        "zh-CN": "已将 {n} 个抓包和 manifest.json 写入 {out}",
    },
    # ---- config -------------------------------------------------------------------------------------
    "cli.config.col.route": {"en": "route", "zh-CN": "路由"},
    "cli.config.col.id": {"en": "id", "zh-CN": "模型"},
    "cli.config.col.api": {"en": "api", "zh-CN": "api"},
    "cli.config.col.input": {"en": "input", "zh-CN": "输入"},
    "cli.config.col.input_source": {"en": "input_source", "zh-CN": "输入来源"},
    "cli.config.col.supports_strict_mode": {"en": "supports_strict_mode", "zh-CN": "支持 strict 模式"},
    "cli.config.col.strict_mode_source": {"en": "strict_mode_source", "zh-CN": "strict 模式来源"},
    "cli.config.col.tool_strict": {"en": "tool_strict", "zh-CN": "工具 strict"},
    "cli.config.defaults": {
        "en": "new agents use {route}/{model} ({model_source}); sessions start in {mode} with approval {approval} "
        "({mode_source})",
        "zh-CN": "新 agent 使用 {route}/{model}（{model_source}）；会话以沙箱模式 {mode} 启动，审批策略 {approval}"
        "（{mode_source}）",
    },
    "cli.config.findings": {"en": "{n} findings:", "zh-CN": "{n} 项发现："},
    "cli.config.findings_one": {"en": "{n} finding:", "zh-CN": "{n} 项发现："},
    "cli.config.finding": {
        "en": "{severity} [{layer}] {where} ({path}): {message}",
        "zh-CN": "{severity} [{layer}] {where}（{path}）：{message}",
    },
    "cli.config.line": {"en": "line {line}", "zh-CN": "第 {line} 行"},
    "cli.config.file": {"en": "file", "zh-CN": "文件"},
    "cli.config.dsh_says": {"en": "    DSH says: {dsh_text}", "zh-CN": "    DSH 原文：{dsh_text}"},
    "cli.config.dsh_says_at": {
        "en": "    DSH says ({entry}): {dsh_text}",
        "zh-CN": "    DSH 原文（{entry}）：{dsh_text}",
    },
    "cli.config.fix": {"en": "    fix: {fix}", "zh-CN": "    修复：{fix}"},
    "cli.config.diff_hint": {
        "en": "the minimal fix as a diff: {command}",
        "zh-CN": "以 diff 形式查看最小修复：{command}",
    },
    # ---- experiment ---------------------------------------------------------------------------------
    "cli.experiment.no_endpoint": {
        "en": "agent-contract: no --endpoint: a dry run, nothing is sent",
        "zh-CN": "agent-contract：未给出 --endpoint：试运行，不发送任何请求",
    },
    "cli.experiment.interrupted": {
        "en": "agent-contract: interrupted; what was sent is kept in {out} (complete: false)",
        "zh-CN": "agent-contract：已中断；已发送的内容保存在 {out} 中（complete: false）",
    },
    "cli.experiment.head": {
        "en": "{capture} {exchange} ({api}), mode {mode}",
        "zh-CN": "{capture} {exchange}（{api}），沙箱模式 {mode}",
    },
    "cli.experiment.mode_unknown": {"en": "unknown", "zh-CN": "未知"},
    "cli.experiment.changes": {"en": "{variant}: {n} changes", "zh-CN": "{variant}：{n} 处改动"},
    "cli.experiment.changes_same": {
        "en": "{variant}: {n} changes (same as captured)",
        "zh-CN": "{variant}：{n} 处改动（与抓包相同）",
    },
    "cli.experiment.dry_run": {
        "en": "dry run: nothing sent ({n} requests would be sent to {where})",
        "zh-CN": "试运行：未发送任何请求（共 {n} 个请求，目标：{where}）",
    },
    "cli.experiment.nowhere": {
        "en": "no endpoint (give --endpoint URL)",
        "zh-CN": "无端点（用 --endpoint URL 指定）",
    },
    "cli.experiment.too_many": {
        "en": "(more than --max-requests {max}: a run would be refused)",
        "zh-CN": "（超过 --max-requests {max}：实际运行会被拒绝）",
    },
    "cli.experiment.image": {
        "en": "(variant {variant} carries an image at {at}: it is sent only with --allow-images)",
        "zh-CN": "（变体 {variant} 在 {at} 处带有图片：只有加上 --allow-images 才会发送）",
    },
    "cli.experiment.plan": {
        "en": "plan: {n} requests to {endpoint}",
        "zh-CN": "计划：向 {endpoint} 发送 {n} 个请求",
    },
    "cli.experiment.plan_runs": {
        "en": "  {samples} samples × {variants} variants, round-robin; request bodies: {sizes}",
        "zh-CN": "  {samples} 个样本 × {variants} 个变体，轮流发送；请求体大小：{sizes}",
    },
    "cli.experiment.plan_loopback": {
        "en": "  {host} is this machine (loopback)",
        "zh-CN": "  {host} 是本机（回环地址）",
    },
    "cli.experiment.plan_remote": {
        "en": "  {host} is NOT this machine: the requests and their bodies leave it",
        "zh-CN": "  {host} 不是本机：请求及其请求体会离开本机",
    },
    "cli.experiment.plan_key": {
        "en": "  key: ${var}, sent as authorization: Bearer, never written",
        "zh-CN": "  密钥：${var}，作为 authorization: Bearer 发送，从不写入文件",
    },
    "cli.experiment.plan_no_key": {"en": "  no key is sent", "zh-CN": "  不发送密钥"},
    "cli.experiment.plan_limits": {
        "en": "  at most {max} requests, retries included; {rate} per second; {timeout} s each; {retries} retries of a 429",
        "zh-CN": "  最多 {max} 个请求（含重试）；每秒 {rate} 个；每个 {timeout} 秒；429 最多重试 {retries} 次",
    },
    "cli.experiment.ask": {
        "en": "send {n} requests to {host}? [y/N] ",
        "zh-CN": "向 {host} 发送 {n} 个请求？[y/N] ",
    },
    "cli.experiment.declined": {
        "en": "agent-contract: nothing sent",
        "zh-CN": "agent-contract：未发送任何请求",
    },
    "cli.experiment.stopped": {
        "en": "STOPPED after {n} of {planned} requests: {why}",
        "zh-CN": "已停止：{planned} 个请求中发送了 {n} 个：{why}",
    },
    "cli.experiment.inconclusive": {
        "en": "INCONCLUSIVE: nothing could be judged to compare ({why})",
        "zh-CN": "无定论：没有可判定、可比较的调用（{why}）",
    },
    "cli.experiment.col.samples": {"en": "samples", "zh-CN": "样本"},
    "cli.experiment.col.top_rule": {"en": "top_rule", "zh-CN": "最常见的拒绝"},
    "cli.experiment.col.filled_empty": {"en": "filled_empty", "zh-CN": "填空值"},
    "cli.experiment.col.rate": {"en": "{what} %", "zh-CN": "{what} %"},
}
