"""The ``verify`` provenance table: the six questions and the answers ``toolkit.analysis.provenance`` writes."""

from __future__ import annotations

__all__ = ["MESSAGES"]

MESSAGES: dict[str, dict[str, str]] = {
    # the questions (the table keeps them in English, as identifiers: toolkit.analysis.provenance.QUESTIONS)
    "provenance.question.who defined the field": {"en": "who defined the field", "zh-CN": "谁定义了该字段"},
    "provenance.question.who changed the schema": {"en": "who changed the schema", "zh-CN": "谁改动了 schema"},
    "provenance.question.who interpreted strict": {"en": "who interpreted strict", "zh-CN": "谁解释了 strict"},
    "provenance.question.who declared the model's capability": {
        "en": "who declared the model's capability",
        "zh-CN": "谁声明了模型的能力",
    },
    "provenance.question.who finally validated the parameters": {
        "en": "who finally validated the parameters",
        "zh-CN": "谁最终校验了参数",
    },
    "provenance.question.who owns the real permission state": {
        "en": "who owns the real permission state",
        "zh-CN": "谁掌握真实的权限状态",
    },
    "provenance.question.who filled the value": {"en": "who filled the value", "zh-CN": "谁填写了该值"},
}
