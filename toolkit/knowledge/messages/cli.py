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
    # ---- ingest -------------------------------------------------------------------------------------
    "cli.ingest.skipped": {"en": "skipped {line}", "zh-CN": "已跳过 {line}"},
    "cli.ingest.done": {
        "en": "{source}: {exchanges} exchanges in {seconds}s ({rows})",
        "zh-CN": "{source}：{exchanges} 个交换，用时 {seconds}s（{rows}）",
    },
    "cli.ingest.wrote": {
        "en": "wrote {n} captures and manifest.json to {out}",
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
        "en": "agent-contract: interrupted; what was sent is in {out} (complete: false)",
        "zh-CN": "agent-contract：已中断；已发送的内容在 {out} 中（complete: false）",
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
    "cli.experiment.col.samples": {"en": "samples", "zh-CN": "样本"},
    "cli.experiment.col.top_rule": {"en": "top_rule", "zh-CN": "最常见的拒绝"},
    "cli.experiment.col.filled_empty": {"en": "filled_empty", "zh-CN": "填空值"},
    "cli.experiment.col.rate": {"en": "{what} %", "zh-CN": "{what} %"},
}
