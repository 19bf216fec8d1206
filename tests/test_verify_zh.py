"""The four layers' lines (summary, evidence, fix) in Chinese, on every bundled data set the README and the
tests use: no toolkit sentence left in English, every upstream text verbatim, and the English report
byte-identical to what it was before the layers' sentences became Messages (``snapshots/verify_layers/``,
written from the English report before that change)."""

from __future__ import annotations

import os
import re

import pytest
from conftest import REPO

from toolkit.analysis.verify import verify
from toolkit.capture import load_captures
from toolkit.knowledge.dsh_settings import PI_AI_FOR_DSH
from toolkit.knowledge.messages import Message, render
from toolkit.layers.config import load_gateway_config, load_settings
from toolkit.layers.strict import strict_verdicts
from toolkit.present import report

SNAPSHOTS = REPO / "tests" / "snapshots" / "verify_layers"
BEFORE, AFTER = "data/configs/settings.before.yaml", "data/configs/settings.after.yaml"
LITELLM = "data/configs/litellm-config.yaml"
MODE = "danger-full-access"


def _dsh(folder: str) -> dict:
    """A DSH run: the settings DSH was given, its HAR and the log it wrote, judged by the DSH that ran."""
    f = f"data/{folder}"
    return {
        "settings": f"{f}/settings.yaml",
        "captures": [f"{f}/capture.har", f"{f}/session.jsonl.zstd"],
        "dsh": "0.1.0-rc.8",
    }


#: name -> the CLI's inputs; together they reach every capability verdict, every strict line and each layer's
#: no-evidence sentence
SCENARIOS: dict[str, dict] = {
    "dsh-before-fix": _dsh("dsh-before-fix"),
    "dsh-after-fix": _dsh("dsh-after-fix"),
    "dsh-image": _dsh("dsh-image"),
    "dsh-image-gw": {**_dsh("dsh-image"), "gateway": LITELLM},
    "before-fix": {"settings": BEFORE, "captures": ["data/before-fix/capture.har"], "mode": MODE},
    "after-fix": {"settings": AFTER, "captures": ["data/after-fix/capture.har"], "mode": MODE},
    "other-apis": {"settings": AFTER, "captures": ["data/other-apis/capture.har"], "mode": MODE},
    "image-refused": {"settings": AFTER, "captures": ["data/image-refused/capture.har"], "mode": MODE},
    "image-refused-before": {"settings": BEFORE, "captures": ["data/image-refused/capture.har"], "mode": MODE},
    "litellm-before-back": {"captures": ["data/litellm-before-fix/back.har"], "mode": MODE},
    "litellm-r2c-gw": {
        "settings": BEFORE,
        "gateway": LITELLM,
        "captures": ["data/litellm-responses-to-chat/back.har"],
        "mode": MODE,
    },
    "two-hop-strict": {"settings": BEFORE, "captures": ["data/two-hop-strict/back.har"], "mode": MODE},
    "two-hop-chat": {
        "settings": AFTER,
        "captures": ["data/two-hop-chat/front.har", "data/two-hop-chat/back.har"],
        "mode": MODE,
    },
    "gw-only": {"gateway": LITELLM},
}


@pytest.fixture(scope="module", params=sorted(SCENARIOS))
def run(request):
    """(name, verdict, the English and the Chinese text report, the capture it was computed from)."""
    s = SCENARIOS[request.param]
    dsh = s.get("dsh", "0.1.1-rc.2")
    loads = {"dsh": dsh} if dsh in PI_AI_FOR_DSH else {}  # as the CLI does
    settings = load_settings(REPO / s["settings"], env={}, **loads) if "settings" in s else None
    gateway = load_gateway_config(REPO / s["gateway"]) if "gateway" in s else None
    capture = load_captures([REPO / c for c in s["captures"]]) if s.get("captures") else None
    v = verify(settings, capture, mode=s.get("mode"), dsh=dsh, gateway_config=gateway)
    inputs = report.Inputs(None, [], [], None, dsh)
    en, zh = (report.to_text(v, inputs, lang=lang).split("\n", 3)[3] for lang in ("en", "zh-CN"))
    return request.param, v, en, zh, capture


def test_the_english_layers_are_byte_identical(run):
    name, _, en, _, _ = run
    snapshot = SNAPSHOTS / f"{name}.en.txt"
    if os.environ.get("UPDATE_SNAPSHOTS"):  # a deliberate change of the English, reviewed in the diff
        snapshot.write_text(en, encoding="utf-8")
    assert en == snapshot.read_text(encoding="utf-8"), "set UPDATE_SNAPSHOTS=1 to accept a deliberate change"


def _upstream(v, capture) -> list[str]:
    """Every exact text the layers quote: DSH's (findings, image refusals, the validator's refusals), the
    backend's answers, OpenAI's strict 400s; longest first, so a text inside another goes with it. The
    entry point a DSH text is shown at (``web model switch``, ``headless stderr (pi-ai)``) counts as its
    name: it says where DSH shows the text, and is kept as it is beside it."""
    texts = {t for r in v.results for pair in r.dsh_messages for t in pair}
    for frame, cols in (
        (v.findings, ("dsh_message",)),
        (v.capability, ("dsh_message", "error_message", "error_code")),
        (v.replay, ("message",)),
    ):
        for col in cols:
            texts |= {str(t) for t in frame[col].dropna()} if col in frame else set()
    if capture is not None and len(capture.tools):
        texts |= {str(t) for t in strict_verdicts(capture)["first_message"].dropna()}
    return sorted((t for t in texts if t), key=len, reverse=True)


#: Latin words the Chinese text keeps on purpose (I18N.md's terms): product and API names, JSON keys kept
#: as terms; none of them makes a run of three words with another.
KEPT = {"DSH", "OpenAI", "Responses", "strict", "schema", "settings", "HTTP", "URL", "LiteLLM"}
_WORD = r"(?<![\w./'`$-])[A-Za-z]+(?![\w./'`$-])"
_RUN = re.compile(rf"{_WORD}(?:[ ,]+{_WORD}){{2,}}")


def _english_runs(text: str, upstream: list[str]) -> list[str]:
    """Runs of three or more English words left once the upstream texts, code spans, quoted values, Python
    literals and identifiers are taken out."""
    for t in upstream:
        text = text.replace(t, " ")
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", " ", text)  # repr'd values, quoted names
    text = re.sub(r"\{[^{}\n]*\}|\[[^\[\]\n]*\]", " ", text)  # an example's arguments, a declared list
    runs = [m.group(0) for m in _RUN.finditer(text)]
    return [r for r in runs if not set(re.findall(r"[A-Za-z]+", r)) <= KEPT]


def test_no_toolkit_words_stay_english_in_the_chinese_layers(run):
    name, v, en, zh, capture = run
    upstream = _upstream(v, capture)
    left = {line: found for line in zh.splitlines() if (found := _english_runs(line, upstream))}
    assert left == {}, name
    # and the check would see an English line: the English report is full of them
    assert any(_english_runs(line, upstream) for line in en.splitlines())


def test_every_upstream_text_of_the_layers_stays_verbatim(run):
    _, v, en, zh, capture = run
    quoted = [t for t in _upstream(v, capture) if t in en]
    assert [t for t in quoted if t not in zh] == []


def test_the_layers_sentences_are_messages_down_to_the_evidence_frames():
    """The capability frame keeps each verdict's evidence as a Message (an object column), and the strict
    frame each risky fill's reason; both render in Chinese with DSH's text verbatim."""
    s = SCENARIOS["dsh-before-fix"]
    v = verify(
        load_settings(REPO / s["settings"], env={}, dsh=s["dsh"]), load_captures([REPO / c for c in s["captures"]])
    )
    evidence = v.capability["evidence"].iloc[0]
    assert isinstance(evidence, Message) and v.capability["evidence"].dtype == object
    zh = render(evidence, "zh-CN")
    assert zh.startswith("声明为 ['text']") and v.capability["dsh_message"].iloc[0] in zh
    assert v.capability["input_source"].isna().sum() == 0
    fills = strict_verdicts(load_captures([REPO / "data/dsh-before-fix/capture.har"]))
    bash = fills[fills["tool"] == "bash"].iloc[0]["risky_fills"]
    why = {f["field"]: f["why"] for f in bash}
    assert all(isinstance(w, Message) for w in why.values())
    assert render(why["justification"], "zh-CN") == (
        "DSH 拒绝空的 justification：'invalid justification: expected a non-empty sentence'"
    )


def test_attribution_verdict_in_chinese_keeps_names_and_options():
    """``attribute``'s one line: the English as before (``test_adapters``), the connectives in Chinese, the
    library names, versions, APIs and option labels verbatim."""
    from toolkit.layers.attribution import attribute_capture

    table = attribute_capture(load_captures([REPO / "data/two-hop-strict/back.har"]))
    verdict = table.attrs["verdict"]
    assert verdict == (
        "these tools look like Vercel AI SDK 7.0.173 with strict true; or LiteLLM 1.110.2 with strict true "
        "(tied: these tools cannot tell them apart) (descriptions and key order not compared: load with "
        "keep_bodies=True)"
    )
    assert render(verdict, "zh-CN") == (
        "这些工具看起来出自 Vercel AI SDK 7.0.173，选项 strict 为 true；或 LiteLLM 1.110.2，选项 strict 为 true"
        "（并列：仅凭这些工具无法区分）（未比较描述和键顺序：请用 keep_bodies=True 加载）"
    )
