"""The experiment's frames, declared once: what each variant changed, what was sent when, what came
back and how DSH would judge it, and the per-variant summary with its intervals."""

from __future__ import annotations

from toolkit.analysis.hops import KINDS
from toolkit.capture.frames import declare, fixed
from toolkit.layers.execution import NOT_JUDGED

__all__ = ["ANSWERS", "ANSWER_UNFINISHED", "CHANGES", "PLAN", "SUMMARY", "VARIANTS", "VERDICTS"]

#: The variants ``variants.build`` makes: each changes one part of the captured request, nothing else.
VARIANTS = ("as-captured", "strict-absent", "strict-false", "strict-true", "prune-schema", "no-images")

#: What DSH (the execution layer, in the session's mode) would do with a call.
VERDICTS = ("accepted", "refused", "not judged")
#: Why a call is not judged, besides the execution layer's ``NOT_JUDGED``: its answer did not finish
#: (cut or failed), so DSH would have run none of its calls, whatever their arguments say.
ANSWER_UNFINISHED = "answer-unfinished"

#: One row per change a variant makes to the captured request, in ``hops.diff``'s vocabulary.
CHANGES = declare(
    "experiment.changes",
    {
        "variant": "string",
        "tool": "string",
        "path": "string",
        "kind": fixed(*KINDS),
        "before": "string",
        "after": "string",
    },
)

#: One row per request the experiment sends (or would send): which variant, which sample.
PLAN = declare(
    "experiment.plan",
    {
        "variant": "string",
        "sample": "Int64",  # 1..N
        "exchange_id": "string",  # the experiment's own capture (exchanges.jsonl); null before it is sent
        "attempts": "Int64",  # 429 retries included
        "status": "Int64",  # of the last attempt; null when none came back (timeout, refused connection)
        "error": "string",  # why no answer came back
    },
)

#: One row per call the model made in an answer, plus one row for an answer without a call.
ANSWERS = declare(
    "experiment.answers",
    {
        "variant": "string",
        "sample": "Int64",
        "exchange_id": "string",
        "status": "Int64",
        "terminal": "string",
        "error": "string",  # triage's reading of an error answer, verbatim where the provider sent text
        "call_id": "string",  # null: the answer made no call
        "tool": "string",
        "filled": object,  # tuple: optional fields (per the variant's advertised schema) the model filled
        "empty_filled": object,  # tuple: those filled with "", null, [] or {}
        "arguments": object,  # dict as the model sent it (redacted)
        "verdict": fixed(*VERDICTS),
        "rule": "string",  # DSH's refusal text, verbatim; null when accepted or not judged
        "not_judged": fixed(*NOT_JUDGED, ANSWER_UNFINISHED),  # why the verdict is "not judged"; else null
    },
)

#: One row per variant; every rate (over judged calls) with its 95% Wilson interval.
SUMMARY = declare(
    "experiment.summary",
    {
        "variant": "string",
        "samples": "Int64",  # requests planned
        "answered": "Int64",  # requests that got an HTTP answer
        "errors": "Int64",  # answers that were errors (status >= 400 or a failed terminal)
        "calls": "Int64",  # every call the model made
        "judged": "Int64",  # of them accepted or refused: the rates' denominator
        "accepted": "Int64",
        "refused": "Int64",
        "filled_empty": "Int64",  # calls with an optional field filled empty
        "accepted_rate": "Float64",
        "accepted_low": "Float64",
        "accepted_high": "Float64",
        "refused_rate": "Float64",
        "refused_low": "Float64",
        "refused_high": "Float64",
        "top_rule": "string",  # the most frequent refusal text
    },
)
