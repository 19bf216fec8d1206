import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolkit.capture.redact import REDACTED, redact_header, redact_obj, redact_text

ALNUM = string.ascii_letters + string.digits
token = st.text(ALNUM, min_size=24, max_size=64).filter(lambda t: any(c.isdigit() for c in t))

# Key shapes a capture can carry; each yields a full secret string.
keys = st.one_of(
    token.map(lambda t: "sk-" + t),
    token.map(lambda t: "sk-proj-" + t),
    token.map(lambda t: "sk-ant-api03-" + t),
    token.map(lambda t: "Bearer " + t),
    token.map(lambda t: "bearer " + t),
    st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", min_size=16, max_size=16).map(lambda t: "AKIA" + t),
    token.map(lambda t: "ghp_" + t),
    token.map(lambda t: "hf_" + t),
    token.map(lambda t: "xoxb-" + t),
    st.tuples(token, token).map(lambda p: f"eyJ{p[0]}.eyJ{p[1]}.{p[0][:10]}"),
)
# Text around a key, ending in a separator so the key starts a token as real keys do.
prose = st.text(string.ascii_letters + string.digits + " .,:;\n\"'()[]{}", max_size=40)
sep = st.sampled_from([" ", "\n", '"', "'", "=", ":", "(", ",", "\t"])


def _secret_part(key: str) -> str:
    return key.split(" ", 1)[1] if key.lower().startswith("bearer ") else key


@settings(max_examples=300)
@given(before=prose, s1=sep, key=keys, s2=sep, after=prose)
def test_no_generated_key_survives_redaction(before, s1, key, s2, after):
    assume(_secret_part(key) not in before + after)
    text = before + s1 + key + s2 + after
    out = redact_text(text)
    assert _secret_part(key) not in out
    assert REDACTED in out


@given(key=keys)
def test_keys_inside_json_and_urls_are_redacted(key):
    secret = _secret_part(key)
    assert secret not in redact_text(f'{{"note": "{key}"}}')
    assert secret not in redact_text(f"https://gw.local/v1/responses?api_key={secret}&x=1")
    assert secret not in str(redact_obj({"a": [{"b": key}], "api_key": secret}))


def test_secret_headers_are_redacted_whatever_their_value():
    for name in [
        "Authorization",
        "proxy-authorization",
        "X-Api-Key",
        "api-key",
        "Cookie",
        "Set-Cookie",
        "ChatGPT-Account-Id",
    ]:
        assert redact_header(name, "anything at all") == REDACTED
    assert redact_header("content-type", "application/json") == "application/json"
    assert redact_header("x-trace", "Bearer abcdefghijkl12345") == "Bearer <redacted>"


def test_ordinary_text_is_left_alone():
    for text in [
        "risk-assessment-checklist-2",
        "Run the tool once.",
        "basically fine",
        "sandbox_permissions",
        '{"justification": ""}',
        "task-1234567890123456",
    ]:
        assert redact_text(text) == text


def test_query_and_json_keys_keep_their_names():
    assert redact_text("https://h/p?key=1&api_key=abc") == "https://h/p?key=1&api_key=<redacted>"
    assert redact_text('{"api_key": "abc"}') == '{"api_key": "<redacted>"}'
    assert redact_obj({"apiKeyEnv": "OPENAI_API_KEY", "apiKey": "x"}) == {
        "apiKeyEnv": "OPENAI_API_KEY",
        "apiKey": REDACTED,
    }
