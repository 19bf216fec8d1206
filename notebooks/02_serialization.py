# %% [markdown]
# # Layer 2: serialization
#
# **Question:** what did pi-ai really put on the wire for each tool, and what does each `strict` variant
# force the model to send?
#
# A tool's `strict` can be absent, `null`, `false` or `true`, and each means something different to the
# gateway in front of the model. Absent and `null` are not the same fact, and neither is `false`.

# %%
from pathlib import Path

import pandas as pd

import toolkit
from toolkit.knowledge.dsh_tools import BASH_DESCRIPTION, BASH_PARAMETERS
from toolkit.knowledge.pi_ai_tools import convert_responses_tools
from toolkit.layers.serialization import compare, convert_tools, validate_arguments, variants
from toolkit.present.widgets import StrictVariantComparer

pd.set_option("display.max_colwidth", 200)
DATA = Path("..") / "data"
bash = {"name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}

# %% [markdown]
# ## What was sent, before and after the fix
#
# The captures are the proof. Before the fix the route declared no strict support, and `strict` is absent
# from every tool; after `compat.supportsStrictMode: true`, it is `false`.

# %%
before = toolkit.load_capture(DATA / "before-fix" / "capture.har")
after = toolkit.load_capture(DATA / "after-fix" / "capture.har")
pd.DataFrame(
    {
        "before the fix": before.tools.groupby("name")["strict_state"].agg(lambda s: sorted(set(s.astype(str)))),
        "after the fix": after.tools.groupby("name")["strict_state"].agg(lambda s: sorted(set(s.astype(str)))),
    }
)

# %% [markdown]
# ## Why declaring strict support makes tools *less* strict
#
# pi-ai writes a `strict` key only when the route supports strict mode, and then writes `false` for an
# ordinary tool. Without support the key is simply left out, and OpenAI's Responses API reads a missing
# `strict` as strict: it "will normalize your schema into strict mode … To opt out … explicitly set
# `strict: false`". So `supportsStrictMode: true` is what makes the tools go out non-strict.

# %%
pd.DataFrame(
    [
        {
            "api": api,
            "compat.supportsStrictMode": str(c),
            "strict sent": toolkit.layers.serialization.strict_state(
                convert_tools([bash], api=api, compat=None if c is None else {"supportsStrictMode": c})[0]
            ),
        }
        for api in ("openai-responses", "openai-codex-responses", "openai-completions")
        for c in (None, True, False)
    ]
)

# %% [markdown]
# ## Why local defaults mislead
#
# Reading pi-ai's source, `convertResponsesTools` defaults `supportsStrictMode` to `true` (`?? true`).
# Called directly, with no options, it does write `strict`:

# %%
toolkit.layers.serialization.strict_state(convert_responses_tools([bash])[0])

# %% [markdown]
# But no provider calls it that way. The openai-responses provider passes its own resolved value, `false`
# unless compat says otherwise, so the local default never applies, and the captures above agree:

# %%
toolkit.layers.serialization.strict_state(convert_responses_tools([bash], {"supportsStrictMode": False})[0])

# %% [markdown]
# ## What each variant forces the model to send

# %%
variants(bash).drop(columns="schema")

# %% [markdown]
# Under a gateway's strict reading of an absent `strict`, every field is required and none may be `null`:
# the model must invent a value for `justification`, and `""` is the easiest. That value is valid for the
# schema, and DSH still refuses it:

# %%
filled = before.calls.iloc[0]["arguments"]
filled, validate_arguments(filled, BASH_PARAMETERS)

# %% [markdown]
# ## Did the gateway receive what pi-ai sent?
#
# `compare` names the variant a captured tool is, and lists every difference from what pi-ai would have
# produced. The lab's captures match exactly; a proxy that rewrote schemas would show up here.

# %%
sent = {
    "type": "function",
    "name": "bash",
    "description": BASH_DESCRIPTION,
    "parameters": before.tool_schemas.set_index("schema_hash").loc[before.tools.iloc[0]["schema_hash"], "schema"],
}
compare(sent, bash, api="openai-responses", compat=None)

# %% [markdown]
# ## Compare two choices
#
# Pick a tool, an API, the compat setting and a gateway behaviour on each side. Changes in `required`,
# nullability and `additionalProperties` are highlighted, with what the model must send under each; above
# them, the tool's strict verdict (accepted, or the first 400 with its path; must-fill; risky fills).

# %%
StrictVariantComparer(tool="bash")

# %% [markdown]
# ## Will this tool survive a strict reading?
#
# `strict_verdicts` runs OpenAI's strict rules on every tool a capture sent: whether a strict endpoint
# accepts it as sent (or the first 400, with its JSON path and OpenAI's text), the optional fields a strict
# reading makes the model fill, and what each strict transform makes of it. Here on the DSH run before the fix:

# %%
from toolkit.layers.strict import strict_verdict, strict_verdicts

dsh_before = toolkit.load_capture(DATA / "dsh-before-fix" / "capture.har")
strict_verdicts(dsh_before)[
    ["tool", "uses", "strict_state_sent", "openai_accepts", "first_rule", "first_path", "must_fill"]
]

# %% [markdown]
# For bash, the fills a forced model tends to send, and what DSH makes of each:

# %%
verdict = strict_verdict(bash)
verdict.first, pd.DataFrame(verdict.risky_fills)

# %% [markdown]
# ## The same tool through five adapters
#
# pi-ai is one client library among several that turn a tool definition into a `tools` array. The toolkit
# models four more from their real output (`toolkit.knowledge.adapters`): the Vercel AI SDK, the OpenAI
# Agents SDK, LiteLLM used as a client library, and Codex CLI, which sends its own tools rather than ones it
# is given. `convert_tools(..., adapter="name@version", options=…)` asks any of them what it would send.
# Here DSH's bash tool and a tool with a nested schema, on Responses and Chat, through every option of each
# library that takes a definition: what `strict` goes out, whether the parameters are changed, and every
# difference from the definition.

# %%
from toolkit.knowledge import adapters
from toolkit.layers.attribution import attribute_capture
from toolkit.layers.serialization import schema_changes, strict_state

issue = {
    "name": "create_issue",
    "description": "Open an issue with a title and labels.",
    "parameters": {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "labels": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "color": {"type": "string"}},
                    "required": ["name"],
                },
            },
        },
        "required": ["title"],
    },
}


def through_adapters(definition: dict) -> pd.DataFrame:
    rows = []
    for profile in adapters.available():
        if profile.own_tools:  # Codex: its own tools, not this definition
            continue
        for api in profile.apis:
            for settings in adapters.combinations(profile.id):
                sent = convert_tools([definition], adapter=profile.id, api=api, options=settings)[0]
                flat = sent.get("function", sent)
                changes = schema_changes(definition, {k: v for k, v in flat.items() if k != "type"})
                rows.append(
                    {
                        "adapter": profile.name,
                        "version": profile.default_version,
                        "api": f"{api} ({adapters.WIRE_API[(profile.id, api)]})",
                        "options": adapters.describe_options(profile.id, settings),
                        "strict sent": strict_state(sent),
                        "parameters changed?": flat.get("parameters") != definition["parameters"],
                        "differences from the definition": "; ".join(f"{p} {k}" for p, k, _, _ in changes) or "none",
                    }
                )
    return pd.DataFrame(rows)


through_adapters(bash)

# %% [markdown]
# The nested tool: only the Agents SDK's strict transform (`strict_json_schema` true, its default) rewrites
# the parameters, down into the nested items; pi-ai's transform applies only to a tool that asks for
# constrained sampling, and the others send the schema as given.

# %%
through_adapters(issue)

# %% [markdown]
# ## Which client sent these tools?
#
# `attribute` turns the question around: given a captured `tools` array, which adapter, version and options
# reproduce it exactly? Without the client's definitions (an unknown client's are not in the capture) each
# tool's own schema stands in for its definition. Ties are ties: a pass-through library sends what it was
# given, so it matches whatever it was given. On the pi-ai capture before the fix:

# %%
attribution = attribute_capture(toolkit.load_capture(DATA / "before-fix" / "capture.har", keep_bodies=True))
print(attribution.attrs["verdict"])
attribution[attribution["match"]][["adapter", "version", "api", "options", "exact", "tools"]]

# %% [markdown]
# And the closest profile of each library that does not match, with what it would have sent differently:

# %%
misses = attribution[~attribution["match"]].groupby("adapter", sort=False).head(1)
misses[["name", "version", "api", "options", "exact", "tools", "differences"]]

# %% [markdown]
# ## On your own setup
#
# * Load a capture and look at `capture.tools["strict_state"]` per endpoint: absent on a Responses route
#   means the gateway decides.
# * `compare(sent_tool, definition, api=…, compat=…)` on a tool from a capture behind your gateway shows
#   whether anything in between rewrote it.
