"""The notebook widgets' labels."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    "widget.endpoint": {"en": "endpoint", "zh-CN": "端点"},
    "widget.model": {"en": "model", "zh-CN": "模型"},
    "widget.status": {"en": "status", "zh-CN": "状态"},
    "widget.layer": {"en": "layer", "zh-CN": "层"},
    "widget.time": {"en": "time", "zh-CN": "时间"},
    "widget.exchanges": {"en": "exchanges", "zh-CN": "交换"},
    "widget.any": {"en": "any", "zh-CN": "全部"},
    "widget.no_times": {"en": "no times", "zh-CN": "无时间"},
    "widget.tool": {"en": "tool", "zh-CN": "工具"},
    "widget.mode": {"en": "mode", "zh-CN": "沙箱模式"},
    "widget.dsh": {"en": "DSH", "zh-CN": "DSH"},
    "widget.policies": {"en": "policies", "zh-CN": "策略"},
    "widget.left": {"en": "left", "zh-CN": "左"},
    "widget.right": {"en": "right", "zh-CN": "右"},
    "widget.left_to_right": {"en": "left → right:", "zh-CN": "左 → 右："},
    "widget.strict_verdict_for": {"en": "strict verdict for {tool}:", "zh-CN": "{tool} 的 strict 结论："},
    "widget.must_fill": {
        "en": "must fill under a strict reading: {fields}",
        "zh-CN": "按 strict 读取时必须填写：{fields}",
    },
    "widget.risky_fills": {"en": "risky fills:", "zh-CN": "有风险的填写："},
    "widget.side.adapter": {"en": "adapter", "zh-CN": "适配器"},
    "widget.side.api": {"en": "api", "zh-CN": "API"},
    "widget.side.compat": {"en": "compat", "zh-CN": "compat"},
    "widget.side.option": {"en": "option", "zh-CN": "选项"},
    "widget.side.gateway": {"en": "gateway", "zh-CN": "网关"},
    "widget.side.pi_ai": {"en": "pi-ai", "zh-CN": "pi-ai"},
    "widget.side.version": {"en": "version", "zh-CN": "版本"},
}
