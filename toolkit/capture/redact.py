"""The one place that knows what a secret looks like.

Captures made by mitmproxy keep ``Authorization`` unredacted, and models echo keys into tool
arguments, so every string that reaches a DataFrame, a report or a log passes through here first.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "redact_header",
    "redact_obj",
    "redact_text",
]


REDACTED = "<redacted>"

#: Header values that are always secret, whatever they look like (lower-case names).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "cookie",
        "set-cookie",
        "chatgpt-account-id",
        "x-goog-api-key",
        "x-auth-token",
        "helicone-auth",
        "openai-organization",
        "openai-project",
    }
)

#: Keys whose values are secret in JSON bodies and query strings.
_SECRET_KEY = r"(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|id[_-]?token|client[_-]?secret|secret[_-]?key|password|passwd|authorization|x-api-key)"

_PATTERNS = [
    # OpenAI / Anthropic / OpenRouter style: sk-..., sk-proj-..., sk-ant-..., sk-or-v1-... (a digit
    # somewhere, so prose such as "risk-assessment-checklist" survives)
    r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_\-]*[0-9])[A-Za-z0-9_\-]{16,}",
    # Stripe-like live/test keys
    r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{8,}",
    # HTTP auth schemes inside text
    r"\bbearer\s+[A-Za-z0-9._~+/\-]{6,}=*",
    r"\bbasic\s+[A-Za-z0-9+/]{6,}=*",
    # JWTs
    r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*",
    # cloud and forge tokens
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
    r"\bAIza[0-9A-Za-z_\-]{20,}",
    r"\bhf_[A-Za-z0-9]{20,}",
    # key=value in query strings and .env-like text
    rf"(?<=[?&;\s\"'{{,])({_SECRET_KEY})=[^&\s\"';,]+",
    rf"^({_SECRET_KEY})=[^&\s\"';,]+",
    # "api_key": "value" inside raw JSON text
    rf"(\"{_SECRET_KEY}\"\s*:\s*)\"(?:[^\"\\]|\\.)*\"",
]
_SECRET_RE = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.MULTILINE | re.IGNORECASE)
_SECRET_KEY_RE = re.compile(rf"(?i)^{_SECRET_KEY}$")
# Cheap pre-check: every pattern above needs one of these lower-case substrings, and plain
# substring tests are an order of magnitude faster than the combined regex on clean text.
_HINTS = (
    "sk-",
    "k_",
    "bearer",
    "basic",
    "eyj",
    "akia",
    "gh",
    "xox",
    "aiza",
    "hf_",
    "key",
    "token",
    "secret",
    "passw",
    "authorization",
)


def _replace(m: re.Match) -> str:
    text = m.group(0)
    if text.startswith('"'):  # "api_key": "value"
        head = text[: text.index(":") + 1]
        return f'{head} "{REDACTED}"' if text[len(head) :].startswith(" ") else f'{head}"{REDACTED}"'
    if "=" in text and not text.lower().startswith(("bearer", "basic")):
        name = text.split("=", 1)[0]
        if _SECRET_KEY_RE.match(name):
            return f"{name}={REDACTED}"
    lowered = text.lower()
    if lowered.startswith("bearer"):
        return f"{text[:6]} {REDACTED}"
    if lowered.startswith("basic"):
        return f"{text[:5]} {REDACTED}"
    return REDACTED


def redact_text(text: str | None) -> str | None:
    """Replace key-like substrings with ``<redacted>``; other text is returned unchanged."""
    if not text:
        return text
    low = text.lower()
    for hint in _HINTS:  # a plain loop: measurably faster than any() over a generator
        if hint in low:
            return _SECRET_RE.sub(_replace, text)
    return text


def redact_header(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    if name.lower().lstrip(":") in SECRET_HEADERS:
        return REDACTED
    return redact_text(value)


@functools.lru_cache(maxsize=4096)
def _secret_key(key: str) -> bool:
    """Whether a JSON key names a secret (keys repeat: each distinct one is matched once)."""
    return _SECRET_KEY_RE.match(key) is not None


#: Depth below which ``redact_obj`` recurses (fast); a value nested deeper is walked with an explicit stack, so
#: JSON as deep as the parsers accept (``MAX_JSON_DEPTH``) never meets Python's recursion limit.
_RECURSE_DEPTH = 100


def redact_obj(obj: Any, *, text: Callable[[str], str | None] = redact_text) -> Any:
    """Redact a parsed JSON value: secret-named keys lose their value, strings lose key-like parts
    (``text`` redacts one string: a caller that sees the same strings again passes a memoised one)."""
    return _redact(obj, text, 0)


def _hides(k: Any, v: Any) -> bool:
    return isinstance(k, str) and _secret_key(k) and v not in (None, "")


def _redact(obj: Any, text: Callable[[str], str | None], depth: int) -> Any:
    if isinstance(obj, str):
        return text(obj)
    if depth >= _RECURSE_DEPTH and isinstance(obj, (dict, list)):
        return _redact_deep(obj, text)
    if isinstance(obj, dict):
        return {k: (REDACTED if _hides(k, v) else _redact(v, text, depth + 1)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_redact(v, text, depth + 1) for v in obj]
    return obj


def _redact_deep(obj: dict | list, text: Callable[[str], str | None]) -> Any:
    """``_redact`` without recursion: each container is copied empty, then filled from a stack of
    (source, copy) pairs, so the depth of the value costs heap, not stack."""

    def copy(v: Any) -> Any:
        if isinstance(v, str):
            return text(v)
        if isinstance(v, dict):
            c: dict = {}
            stack.append((v, c))
            return c
        if isinstance(v, list):
            c2: list = []
            stack.append((v, c2))
            return c2
        return v

    stack: list[tuple[Any, Any]] = []
    root = copy(obj)
    while stack:
        src, dst = stack.pop()
        if isinstance(src, dict):
            for k, v in src.items():
                dst[k] = REDACTED if _hides(k, v) else copy(v)
        else:
            dst.extend(copy(v) for v in src)
    return root
