"""LiteLLM's own record of each call, written as JSONL beside the lab's captures.

Loaded by the LiteLLM proxy from ``config.yaml`` (``litellm_settings.callbacks``). Per call it writes
``kwargs["standard_logging_object"]`` (LiteLLM's StandardLoggingPayload, what its logging integrations
receive) to ``$LAB_LITELLM_LOG``, and the ``LiteLLM_SpendLogs`` row LiteLLM would insert, built by its own
``get_logging_payload`` (there is no database in the lab), to ``$LAB_LITELLM_SPEND_LOG``.
"""

from __future__ import annotations

import json
import os
from datetime import date, datetime
from pathlib import Path

from litellm.integrations.custom_logger import CustomLogger

__all__ = ["LabJsonlLogger", "proxy_handler_instance"]


def _default(value):
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump()
    return str(value)


def _append(env: str, record) -> None:
    path = os.environ.get(env)
    if not path or record is None:
        return
    with Path(path).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, default=_default, ensure_ascii=False) + "\n")


class LabJsonlLogger(CustomLogger):
    """Appends LiteLLM's payloads for every success and failure, in call order."""

    def _write(self, kwargs, response_obj, start_time, end_time) -> None:
        _append("LAB_LITELLM_LOG", kwargs.get("standard_logging_object"))
        if os.environ.get("LAB_LITELLM_SPEND_LOG"):
            from litellm.proxy.spend_tracking.spend_tracking_utils import get_logging_payload

            _append("LAB_LITELLM_SPEND_LOG", get_logging_payload(kwargs, response_obj, start_time, end_time))

    async def async_log_success_event(self, kwargs, response_obj, start_time, end_time):
        self._write(kwargs, response_obj, start_time, end_time)

    async def async_log_failure_event(self, kwargs, response_obj, start_time, end_time):
        self._write(kwargs, response_obj, start_time, end_time)


proxy_handler_instance = LabJsonlLogger()
