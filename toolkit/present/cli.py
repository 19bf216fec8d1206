"""The ``agent-contract`` command. Imports stay inside commands so start-up is quick.

Only bad input is an error of the command (``toolkit.errors.InputError``: one line on stderr, exit 2);
anything else is a bug in the toolkit and keeps its traceback. The choices the options offer (modes,
APIs, formats, versions) are imported from their one definition, never restated here. Works without
the ``notebooks`` extra; only the figure of ``verify --format html`` needs it (the report then says so).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from toolkit.errors import InputError
from toolkit.knowledge import dsh_runtime, pi_ai, pi_ai_tools
from toolkit.knowledge.dsh_tools import SCHEMAS as DSH_TOOL_SCHEMAS
from toolkit.knowledge.messages import LANGUAGES, Message, counted, render
from toolkit.knowledge.messages import text as message
from toolkit.knowledge.messages.surface import surface
from toolkit.sources import registry
from toolkit.sources.detect import FORMATS as CAPTURE_FORMATS

__all__ = ["REPORT_FORMATS", "build_parser", "main"]

#: ``verify --format``: the renderers of ``toolkit.present.report``
REPORT_FORMATS = ("text", "markdown", "json", "html")

#: the capture formats that are an agent's own session log (``--session``), not an HTTP capture
SESSION_FORMATS = ("dsh-session", "codex-rollout")
#: what each input option of ``verify`` takes: its noun, and the kinds (``toolkit.sources.kinds``, the
#: registry's format names) it reads. A file of a kind another option takes is refused, naming that option.
ROLES: dict[str, tuple[str, frozenset[str]]] = {
    "--settings": ("a DSH settings file", frozenset({"dsh-settings"})),
    "--gateway-config": ("a LiteLLM proxy config", frozenset({"litellm-config"})),
    "--capture": ("an HTTP capture", frozenset(CAPTURE_FORMATS) - frozenset(SESSION_FORMATS)),
    "--session": ("a DSH session log", frozenset(SESSION_FORMATS)),
    "--experiment": ("a folder written by `agent-contract experiment`", frozenset({"experiment"})),
}
#: where the commands that read captures send a file of another kind
_ELSEWHERE = {
    "dsh-settings": "`agent-contract config` or `agent-contract verify --settings`",
    "litellm-config": "`agent-contract verify --gateway-config`",
    "experiment": "`agent-contract verify --experiment`",
}
#: the options that take each layer's evidence: what a layer that was not checked names beside its needs
LAYER_OPTIONS = {
    "config": "--settings, --gateway-config",
    "serialization": "--capture",
    "capability": "--capture, --session",
    "execution": "--session, or --capture with --mode or --settings",
}


def _expect(path: str, option: str) -> None:
    """Refuse ``path`` given to ``option`` when it is positively a file of another kind, in one line that
    names what it is and which option takes it; a file of no kind the toolkit names is left to the
    option's reader, whose own error says more."""
    from toolkit.sources.kinds import kind_of

    kind = kind_of(path)
    noun, takes = ROLES[option]
    goes = next((o for o, (_, t) in ROLES.items() if kind.name in t), None)
    if kind.name in takes or goes is None:
        return
    raise InputError(f"{path} is {kind.noun}, not {noun}; pass it with {goes}")


def _expect_capture(path: str | Path) -> None:
    """A capture argument (``summary``, ``ingest``, ``attribute``, ``experiment``) that is a file of another
    kind: refused, naming the command that takes it."""
    from toolkit.sources.kinds import kind_of

    kind = kind_of(path)
    if kind.name in _ELSEWHERE:
        raise InputError(f"{path} is {kind.noun}, not a capture; give it to {_ELSEWHERE[kind.name]}")


def _once(paths: list[str], lang: str) -> list[str]:
    """Each file once (``load.distinct_paths``), saying on stderr which were given more than once."""
    from toolkit.capture.load import distinct_paths

    kept, repeated = distinct_paths(paths)
    for p in repeated:
        note = f"{p}: {message('input.repeated', lang)}"
        print(message("cli.note_plain", lang, note=note), file=sys.stderr)
    return [str(p) for p in kept]


def _summary(args) -> int:
    import pandas as pd

    from toolkit.capture import find_captures, load_captures

    for path in args.paths:
        _expect_capture(path)
    paths, skipped = find_captures(args.paths, format=args.format)
    cap = load_captures(paths, format=args.format, redact=not args.no_redact, progress=args.progress)
    summary = cap.summary()
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 500):
        print(summary.to_string(index=False))
        totals = summary[["entries", "read", "lost", "exchanges", "events", "calls", "problems"]].sum()
        counts = ", ".join(f"{k} {v}" for k, v in totals.items())  # the frames' names, verbatim
        print("\n" + message(counted("cli.summary.totals", len(summary)), "en", n=len(summary), counts=counts))
        if len(cap.exchanges):
            table = _exchange_table(cap)
            shown = table if args.all or len(table) <= MAX_ROWS else table[~table["source"].isin(_busiest(cap))]
            print(
                f"\nexchanges ({len(shown)} of {len(table)}{'' if len(shown) == len(table) else '; --all lists every one'}):"
            )
            print(shown.to_string(index=False, max_colwidth=60))
        if len(cap.problems):
            probs = cap.problems[["source", "location", "kind", "message"]]
            print(f"\nproblems ({min(len(probs), MAX_ROWS) if not args.all else len(probs)} of {len(probs)}):")
            print((probs if args.all else probs.head(MAX_ROWS)).to_string(index=False, max_colwidth=100))
        if skipped:
            print("\n" + message(counted("cli.summary.skipped", len(skipped)), "en", n=len(skipped)))
            print("\n".join("  " + s for s in skipped))
    if not summary["entries"].sum():  # nothing read is nothing checked: never "reconciles"
        print("\n" + message("cli.inconclusive.summary", _lang(args)))
        return _inconclusive()
    return 0 if summary["reconciles"].all() else 1


def _inconclusive() -> int:
    """The exit code of a command that could check nothing: ``verify``'s, from its one definition."""
    from toolkit.present.report import EXIT_CODES

    return EXIT_CODES["inconclusive"]


MAX_ROWS = 40


def _busiest(cap) -> list[str]:
    """Sources to leave out of the per-exchange table so that it fits in MAX_ROWS."""
    counts = cap.exchanges["source"].astype(str).value_counts()
    out, total = [], len(cap.exchanges)
    for source, n in counts.items():
        if total <= MAX_ROWS:
            break
        out.append(source)
        total -= n
    return out


def _exchange_table(cap):
    """One line per exchange: what was asked (tools and their strict state) and what came back."""
    tools = cap.tools.assign(t=cap.tools["name"].astype(str) + " strict=" + cap.tools["strict_state"].astype(str))
    tools = tools.groupby("exchange_id")["t"].agg(", ".join)
    calls = cap.calls.assign(
        c=cap.calls["name"].astype(str).where(cap.calls["complete"], cap.calls["name"].astype(str) + " (cut)")
    )
    calls = calls.groupby("exchange_id")["c"].agg(", ".join)
    ex = cap.exchanges.set_index("exchange_id")
    table = ex[["source", "location", "api", "model", "status", "terminal"]].copy()
    table["tools"] = tools.reindex(table.index).fillna("")
    table["calls"] = calls.reindex(table.index).fillna("")
    table["error"] = ex["error_code"].fillna("")
    return table


def _lang(args) -> str:
    """The CLI's language for this command (``--lang``, ``AGENT_CONTRACT_LANG``, the locale); a bad
    ``AGENT_CONTRACT_LANG`` is bad input, said in one line."""
    from toolkit.present import i18n

    try:
        return i18n.cli_language(getattr(args, "lang", None))
    except ValueError as exc:
        raise InputError(str(exc)) from None


#: ``config``: the columns of ``config.models`` it prints, and those holding toolkit sentences (sources)
_CONFIG_COLUMNS = (
    "route",
    "id",
    "api",
    "input",
    "input_source",
    "supports_strict_mode",
    "strict_mode_source",
    "tool_strict",
)
_SOURCES = ("input_source", "strict_mode_source")


def _config(args) -> int:
    import pandas as pd

    from toolkit.layers.config import load_settings, suggest_fix

    lang = _lang(args)
    settings = load_settings(args.settings)
    if args.diff:
        print(suggest_fix(args.settings), end="")
        return 0
    # the findings frame holds plain text: its toolkit sentences, by their English text
    said = {str(m): m for f in settings._findings for m in (f.message, f.fix) if m is not None}
    options = ["display.width", 200, "display.max_colwidth", 120, "display.max_columns", 30]
    if lang != "en":  # a Chinese heading or source is two columns wide on a terminal
        options += ["display.unicode.east_asian_width", True]
    with pd.option_context(*options):
        table = settings.models[list(_CONFIG_COLUMNS)]
        if lang != "en":
            table = table.assign(**{c: table[c].map(lambda v: render(v, lang)) for c in _SOURCES})
            table.columns = [message(f"cli.config.col.{c}", lang) for c in _CONFIG_COLUMNS]
        print(table.to_string(index=False))
        dm, dp = settings.default_model, settings.default_preset
        defaults = message(
            "cli.config.defaults",
            lang,
            route=dm.get("route"),
            model=dm.get("model"),
            model_source=dm.get("source"),
            mode=dp.get("sandbox_mode"),
            approval=dp.get("approval"),
            mode_source=dp.get("source"),
        )
        print("\n" + defaults)
        if len(settings.findings):
            n = len(settings.findings)
            print("\n" + message(counted("cli.config.findings", n), lang, n=n))
            for f in settings.findings.itertuples(index=False):
                where = message("cli.config.line", lang, line=f.line) if not pd.isna(f.line) else None
                line = message(
                    "cli.config.finding",
                    lang,
                    severity=message(f"severity.{f.severity}", lang),
                    layer=message(f"layer.{f.layer}", lang),
                    where=where or message("cli.config.file", lang),
                    path=f.yaml_path,
                    message=said.get(f.message, f.message),
                )
                print("\n" + line)
                if not pd.isna(f.dsh_message):
                    print(message("cli.config.dsh_says", lang, dsh_text=f.dsh_message))
                for entry, text in f.dsh_messages:  # the same cause, as DSH words it at each entry point
                    print(message("cli.config.dsh_says_at", lang, entry=entry, dsh_text=text))
                if not pd.isna(f.fix):
                    print(message("cli.config.fix", lang, fix=said.get(f.fix, f.fix)))
            command = "agent-contract config --diff " + str(args.settings)
            print("\n" + message("cli.config.diff_hint", lang, command=command))
    if (settings.findings["severity"] == "error").any():
        return 1
    if settings.routes.empty:  # no route resolved is nothing checked (verify's config layer: not checked)
        print("\n" + message("cli.inconclusive.config", lang, source=settings.source))
        return _inconclusive()
    return 0


def _verify(args) -> int:
    from toolkit.analysis.verify import verify
    from toolkit.capture import load_captures
    from toolkit.knowledge.dsh_settings import PI_AI_FOR_DSH
    from toolkit.layers.config import load_settings
    from toolkit.present import report

    lang = _lang(args)  # --lang, AGENT_CONTRACT_LANG, then the locale
    for option, given in (
        ("--settings", [args.settings] if args.settings else []),
        ("--gateway-config", [args.gateway_config] if args.gateway_config else []),
        ("--capture", args.capture),
        ("--session", args.session),
        ("--experiment", [args.experiment] if args.experiment else []),
    ):
        for path in given:
            _expect(path, option)
    captures, sessions = _once(args.capture, lang), _once(args.session, lang)
    # a DSH release that was run (PI_AI_FOR_DSH) also fixes the pi-ai its settings are resolved with
    loads = {"dsh": args.dsh} if args.dsh in PI_AI_FOR_DSH else {}
    settings = load_settings(args.settings, **loads) if args.settings else None
    gateway = None
    if args.gateway_config:
        from toolkit.layers.config import load_gateway_config

        gateway = load_gateway_config(args.gateway_config)
    capture = load_captures([*captures, *sessions]) if (captures or sessions) else None
    result = verify(settings, capture, mode=args.mode, dsh=args.dsh, gateway_config=gateway)
    from toolkit.analysis.provenance import table

    mode = Message("cli.verify.mode", mode=result.mode, source=result.mode_source) if result.mode else None
    prov = table(settings, captures=captures, sessions=sessions) if (captures or sessions) else None
    inputs = report.Inputs(
        args.settings, captures, sessions, mode, args.dsh, prov, args.gateway_config, options=LAYER_OPTIONS
    )
    experiment = None
    if args.experiment:
        from toolkit.experiment.run import load as load_experiment

        experiment = load_experiment(Path(args.experiment))
    if args.format == "json":
        import json

        text = json.dumps(report.to_json(result, inputs), indent=2, ensure_ascii=False) + "\n"
        if experiment is not None:  # the JSON report's schema has no place for it (REPORT_VERSION)
            print(message("cli.note", lang, note=message("experiment.not_in_json", lang)), file=sys.stderr)
    elif args.format == "markdown":
        text = report.to_markdown(result, inputs, experiment=experiment, lang=lang, detail=args.detail)
    elif args.format == "html":
        text = report.to_html(result, inputs, capture, experiment=experiment, lang=lang)
        if not report.figure_available() and (
            experiment is not None or (capture is not None and len(capture.exchanges))
        ):
            note = message("report.figure_missing", lang, extra=report.EXTRA)
            print(message("cli.note", lang, note=note), file=sys.stderr)
    else:
        text = report.to_text(result, inputs, lang=lang, detail=args.detail)
        if experiment is not None:
            text += message("report.text.experiment", lang, sentence=report.experiment_sentence(experiment, lang=lang))
    if args.out:
        out = Path(args.out)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"{out}: cannot write the report: {exc.strerror or exc}") from None
        print(message(f"cli.verify.wrote_{result.overall}", lang, out=out), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return report.exit_code(result)


def _ingest(args) -> int:
    """Stream each capture into a partitioned Parquet dataset (``toolkit.capture.dataset``); Ctrl-C
    leaves the files read so far valid and the interrupted one marked ``complete: false`` (exit 130)."""
    from toolkit.capture import find_captures
    from toolkit.capture.dataset import ingest_many

    lang = _lang(args)
    for path in args.paths:
        _expect_capture(path)
    paths, skipped = find_captures(args.paths, format=args.format)
    for line in skipped:
        print(message("cli.ingest.skipped", lang, line=line), file=sys.stderr)

    def done(entry: dict) -> None:
        rows = ", ".join(f"{n} {k}" for k, n in entry["rows"].items() if n)  # the frames' names, verbatim
        seconds = f"{entry['seconds']:.1f}"
        print(
            message(
                counted("cli.ingest.done", entry["exchanges"]),
                lang,
                source=entry["source"],
                exchanges=entry["exchanges"],
                seconds=seconds,
                rows=rows,
            )
        )

    options = {"format": args.format, "progress": args.progress, "redact": not args.no_redact}
    if args.chunk:
        options["chunk"] = args.chunk
    entries = ingest_many(paths, Path(args.out), jobs=args.jobs or None, on_done=done, **options)
    print(message(counted("cli.ingest.wrote", len(entries)), lang, n=len(entries), out=args.out), file=sys.stderr)
    return 0


def _variants(args) -> int:
    import pandas as pd

    from toolkit.knowledge.dsh_tools import schema_for
    from toolkit.layers.serialization import convert_tools, strict_state, variants

    definition = {"name": args.tool, "parameters": schema_for(args.tool)}
    table = variants(definition).drop(columns="schema")
    for col in ("required", "optional", "nullable"):
        table[col] = table[col].map(", ".join)
    with pd.option_context("display.width", 250, "display.max_colwidth", 120, "display.max_columns", 20):
        print(f"How DSH's {args.tool} tool can reach a model:\n")
        print(table.to_string(index=False))
        if args.api:
            print(f"\nWhat pi-ai {args.pi_ai} sends on {args.api}:")
            for compat in (None, True, False):
                sent = convert_tools(
                    [definition],
                    api=args.api,
                    compat=None if compat is None else {"supportsStrictMode": compat},
                    pi_ai=args.pi_ai,
                )[0]
                label = "unset" if compat is None else str(compat).lower()
                print(f"  compat.supportsStrictMode {label:5}: strict {strict_state(sent)}")
    return 0


def _attribute(args) -> int:
    """Which client library sent a capture's tools: exit 0 when a profile reproduces them, 1 when none does."""
    import pandas as pd

    from toolkit.capture import load_capture
    from toolkit.layers.attribution import attribute_capture

    lang = _lang(args)
    _expect_capture(args.capture)
    capture = load_capture(args.capture, keep_bodies=True, format=args.format)
    if capture.tools.empty and args.exchange is None:
        print(message("cli.inconclusive.attribute", lang, capture=args.capture))
        return _inconclusive()
    table = attribute_capture(capture, args.exchange)
    print(render(table.attrs["verdict"], lang))
    shown = table if args.all else table[table["match"].fillna(False).astype(bool)]
    if shown.empty:
        shown = table.head(3)
        print("\n" + message("cli.attribute.closest", lang))
    with pd.option_context("display.width", 250, "display.max_colwidth", 100, "display.max_columns", 20):
        print()
        print(shown[["rank", "name", "version", "api", "options", "exact", "tools"]].to_string(index=False))
    return 0 if table["match"].fillna(False).any() else 1


def _experiment(args) -> int:
    """Replay one captured request as variants (``toolkit.experiment.run``); the data files come from
    the run, the Markdown, HTML and figure from ``toolkit.present`` (experiment sits below present).

    The plan (the variants' changes, the endpoint and whether it is this machine, the requests and the
    body sizes) is printed before anything is sent and, on a terminal, confirmed unless ``--yes``; without
    a terminal and without ``--yes`` nothing is sent. Exit 0 when the run measured something, 1 when the
    endpoint stopped it (its error text on stderr) or the plan was declined, 3 (``report.EXIT_CODES``)
    when nothing could be judged to compare, 2 for bad input, 130 on Ctrl-C (the record kept)."""
    import pandas as pd

    from toolkit.experiment.run import Interrupted
    from toolkit.experiment.run import run as run_experiment
    from toolkit.experiment.send import Limits

    lang = _lang(args)
    _expect_capture(args.capture)
    limits = Limits(rate=args.rate, timeout=args.timeout, retries=args.retries, max_requests=args.max_requests)
    names = [n.strip() for n in args.variants.split(",") if n.strip()]
    if args.endpoint is None and not args.dry_run:
        print(message("cli.experiment.no_endpoint", lang), file=sys.stderr)
    options = ["display.width", 250, "display.max_colwidth", 70, "display.max_columns", 20]
    if lang != "en":  # a Chinese heading is two columns wide on a terminal
        options += ["display.unicode.east_asian_width", True]

    def confirm(plan: dict, built: list) -> bool:
        with pd.option_context(*options):
            _experiment_head(plan, built, lang)
        _experiment_plan(plan, lang)
        sys.stdout.flush()
        if args.yes:
            return True
        if not sys.stdin.isatty():
            raise InputError(
                "--yes: standard input is not a terminal, so the plan above cannot be confirmed; nothing was sent "
                "(pass --yes to send without asking)"
            )
        print(message("cli.experiment.ask", lang, n=plan["requests"], host=plan["host"]), end="", file=sys.stderr)
        sys.stderr.flush()
        try:
            answer = input()
        except EOFError:
            answer = ""
        return answer.strip().lower() in ("y", "yes", "是")

    try:
        result = run_experiment(
            args.capture,
            exchange=args.exchange,
            endpoint=args.endpoint,
            variants=names,
            samples=args.samples,
            api_key_env=args.api_key_env,
            out=Path(args.out) if args.out else None,
            replace=args.replace,
            dry_run=args.dry_run,
            allow_images=args.allow_images,
            limits=limits,
            mode=args.mode,
            dsh=args.dsh,
            progress=args.progress,
            confirm=confirm,
            notice=lambda note: print(message("cli.note_plain", lang, note=render(note, lang)), file=sys.stderr),
        )
    except Interrupted as exc:
        print(message("cli.experiment.interrupted", lang, out=exc.result.out), file=sys.stderr)
        raise
    m = result.manifest
    if m.get("declined"):
        print(message("cli.experiment.declined", lang), file=sys.stderr)
        return 1
    with pd.option_context(*options):
        if result.dry_run:
            _experiment_head({**m, "requests": m["counts"]["planned"]}, result.variants, lang)
            n = m["counts"]["planned"]
            where = m["endpoint"] or message("cli.experiment.nowhere", lang)
            print("\n" + message("cli.experiment.dry_run", lang, n=n, where=where))
            if n > args.max_requests:
                print(message("cli.experiment.too_many", lang, max=args.max_requests))
            for name, at in m["images"].items():
                print(message("cli.experiment.image", lang, variant=name, at=at))
            return 0
        cols = [
            "variant",
            "samples",
            "answered",
            "errors",
            "calls",
            "judged",
            "accepted",
            "refused",
            "filled_empty",
            "top_rule",
        ]
        table = result.summary[cols].copy()
        for what in ("accepted", "refused"):
            rate, low, high = (result.summary[f"{what}_{k}"] for k in ("rate", "low", "high"))
            table[f"{what} %"] = [
                "" if pd.isna(r) else f"{100 * r:.0f} ({100 * lo:.0f}-{100 * hi:.0f})"
                for r, lo, hi in zip(rate, low, high)
            ]
        print("\n" + _headed(table, lang).to_string(index=False))
        if result.comparison:
            print("\n" + str(render(result.comparison.get("sentence", ""), lang)))
    if result.out is not None:
        _experiment_reports(result, lang)
        print(message("cli.wrote", lang, out=result.out), file=sys.stderr)
    if m.get("verdict") == "stopped":
        stop = m["stopped"]
        why = render(stop["why"], lang)
        print(message("cli.experiment.stopped", lang, n=stop["after"], planned=m["counts"]["planned"], why=why))
        return 1
    if m.get("verdict") == "inconclusive":
        print(message("cli.experiment.inconclusive", lang, why=_nothing_judged(result, lang)))
        return _inconclusive()
    return 0


def _nothing_judged(result, lang: str) -> str:
    """Why each variant without a judged call has none, in one line."""
    from toolkit.experiment.judge import nothing_judged

    reasons = []
    for v in result.variants:
        why = nothing_judged(result.answers, v.name)
        if why is not None:
            reasons.append(f"{v.name}: {render(why, lang)}")
    return "; ".join(reasons) or "?"


def _experiment_head(plan: dict, built: list, lang: str) -> None:
    """The capture, exchange and mode, and what each variant changes (printed before anything is sent)."""
    mode = plan.get("mode") or message("cli.experiment.mode_unknown", lang)
    print(
        message(
            "cli.experiment.head", lang, capture=plan["capture"], exchange=plan["exchange"], api=plan["api"], mode=mode
        )
    )
    for v in built:
        key = "cli.experiment.changes_same" if v.same_as_captured else "cli.experiment.changes"
        print("\n" + message(key, lang, variant=v.name, n=len(v.changes)))
        if len(v.changes):
            print(_headed(v.changes.drop(columns="variant"), lang).to_string(index=False))


def _experiment_plan(plan: dict, lang: str) -> None:
    """Where the requests go and how many, before they go: the endpoint (credentials redacted), whether
    its host is this machine, each body's size, the key's variable, the limits."""
    print("\n" + message("cli.experiment.plan", lang, n=plan["requests"], endpoint=plan["endpoint"]))
    sizes = ", ".join(f"{name} {size:,} B" for name, size in plan["body_bytes"].items())
    print(
        message(
            "cli.experiment.plan_runs",
            lang,
            samples=plan["samples"],
            variants=len(plan["variants"]),
            sizes=sizes,
        )
    )
    where = "cli.experiment.plan_loopback" if plan["loopback"] else "cli.experiment.plan_remote"
    print(message(where, lang, host=plan["host"]))
    key = plan.get("api_key_env")
    print(message("cli.experiment.plan_key", lang, var=key) if key else message("cli.experiment.plan_no_key", lang))
    print(
        message(
            "cli.experiment.plan_limits",
            lang,
            max=plan["max_requests"],
            rate=f"{plan['rate']:g}",
            timeout=f"{plan['timeout']:g}",
            retries=plan["retries"],
        )
    )


#: the heading of each column ``experiment`` prints, by its key in ``toolkit.knowledge.messages``
_EXPERIMENT_HEADS = {
    "variant": "experiment.col.variant",
    "tool": "experiment.col.tool",
    "path": "experiment.col.path",
    "kind": "experiment.col.kind",
    "before": "experiment.col.before",
    "after": "experiment.col.after",
    "samples": "cli.experiment.col.samples",
    "answered": "experiment.col.answered",
    "errors": "experiment.col.errors",
    "calls": "experiment.col.calls",
    "judged": "experiment.col.judged",
    "accepted": "experiment.col.accepted",
    "refused": "experiment.col.refused",
    "filled_empty": "cli.experiment.col.filled_empty",
    "top_rule": "cli.experiment.col.top_rule",
}


def _headed(table, lang: str):
    """``table`` with its headings in ``lang`` (English: the column names as they are); cells verbatim."""
    if lang == "en":
        return table

    def head(col: str) -> str:
        if col.endswith(" %"):
            what = col[: -len(" %")]
            return message("cli.experiment.col.rate", lang, what=message(_EXPERIMENT_HEADS[what], lang))
        return message(_EXPERIMENT_HEADS[col], lang) if col in _EXPERIMENT_HEADS else col

    return table.set_axis([head(c) for c in table.columns], axis=1)


def _experiment_reports(result, lang: str = "en") -> None:
    """The Markdown and HTML sections (``experiment`` + .md/.html) and refusals.png beside the run's data files."""
    from toolkit.present import report

    out = result.out
    (out / "experiment").with_suffix(".md").write_text(report.experiment_markdown(result, lang=lang), encoding="utf-8")
    (out / "experiment").with_suffix(".html").write_text(report.experiment_html(result, lang=lang), encoding="utf-8")
    if not report.figure_available():
        note = message("report.figure_missing", lang, extra=report.EXTRA)
        print(message("cli.note", lang, note=note), file=sys.stderr)
        return
    import matplotlib.pyplot as plt

    from toolkit.present import plots

    fig = plots.experiment_rates(result.summary, lang=lang)
    fig.savefig(out / "refusals.png", dpi=100, metadata={"Software": None})
    plt.close(fig)


def _formats(args) -> int:
    """Every capture format, in detection order, from the one registry."""
    width = max(len(f.name) for f in registry.FORMATS)
    for f in registry.FORMATS:
        print(f"{f.name:{width}}  {f.what}")
        print(f"{'':{width}}  written by: {f.written_by}; example: {f.example}")
    return 0


def _dsh_version(text: str) -> str:
    """``--dsh``: any DSH version the runtime model can order (unknown releases are modelled by order)."""
    try:
        dsh_runtime.version_order(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a DSH version ({exc})") from None
    return text


def _lang_option(parser: argparse.ArgumentParser, what: str, after: str = "") -> None:
    """``--lang`` on a command whose human output is the toolkit's own words (its help stays English)."""
    parser.add_argument(
        "--lang",
        choices=list(LANGUAGES),
        help=f"{what} (default: AGENT_CONTRACT_LANG, else zh-CN for a zh* locale, else en){after}",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-contract", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="read captures and print what each holds, with problems")
    s.add_argument("paths", nargs="+", help="capture files, or folders to read every file in")
    s.add_argument(
        "--format",
        choices=list(CAPTURE_FORMATS),
        help="force a capture format (default: detected; see `agent-contract formats`)",
    )
    s.add_argument("--no-redact", action="store_true", help="show secrets as captured (off by default)")
    s.add_argument(
        "--progress", action="store_true", default=None, help="show progress even when stderr is not a terminal"
    )
    s.add_argument("--all", action="store_true", help="list every exchange and problem, not the first 40")
    s.set_defaults(func=_summary)
    f = sub.add_parser("formats", help="list the capture formats the toolkit reads (detected from content)")
    f.set_defaults(func=_formats)
    c = sub.add_parser("config", help="resolve a DSH settings.yaml: effective values, their sources, findings")
    c.add_argument("settings", help="path to settings.yaml (credential files are refused)")
    c.add_argument("--diff", action="store_true", help="print the minimal fix as a unified diff")
    _lang_option(c, "the language of the toolkit's own words; values, keys and DSH's texts stay verbatim")
    c.set_defaults(func=_config)

    v = sub.add_parser("verify", help="the four-layer verdict of a settings file and its captures")
    v.add_argument("--settings", help="DSH settings.yaml")
    v.add_argument(
        "--gateway-config",
        metavar="PATH",
        help="the LiteLLM proxy config.yaml in front of the route: a second source for configuration and capability",
    )
    v.add_argument(
        "--capture",
        action="append",
        default=[],
        metavar="FILE",
        help="HTTP capture (HAR, JSONL, SSE, .mitm); repeatable",
    )
    v.add_argument("--session", action="append", default=[], metavar="FILE", help="DSH session log; repeatable")
    v.add_argument(
        "--mode",
        choices=list(dsh_runtime.MODES),
        help="the sandbox mode HTTP captures ran in (default: the settings' permission preset)",
    )
    v.add_argument(
        "--dsh",
        default=dsh_runtime.DEFAULT_VERSION,
        type=_dsh_version,
        help=f"the DSH version to model (known: {', '.join(dsh_runtime.VERSIONS)}; default {dsh_runtime.DEFAULT_VERSION})",
    )
    v.add_argument(
        "--format", choices=list(REPORT_FORMATS), default="text", help="html needs the notebooks extra for its figure"
    )
    v.add_argument("--out", help="write the report here instead of standard output")
    v.add_argument(
        "--detail",
        action="store_true",
        help="text and Markdown: list the provenance's every field and answer, not one line per answer "
        "(HTML always holds both, the full listing collapsed)",
    )
    v.add_argument(
        "--experiment",
        metavar="DIR",
        help="a folder written by `agent-contract experiment`: its section joins the report",
    )
    _lang_option(v, "the report's language", "; the JSON report is always the same")
    v.set_defaults(func=_verify, usage=v)

    i = sub.add_parser(
        "ingest",
        help="stream captures into a Parquet dataset (frame/source=/day= partitions, manifest.json)",
    )
    i.add_argument("paths", nargs="+", help="capture files, or folders to read every capture in")
    i.add_argument("--out", required=True, help="the dataset folder (re-ingesting a file replaces its rows)")
    i.add_argument(
        "--format",
        choices=list(CAPTURE_FORMATS),
        help="force a capture format (default: detected; see `agent-contract formats`)",
    )
    i.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="processes: N files at once, or one large JSONL log in N line ranges (default: the CPU count)",
    )
    i.add_argument("--chunk", type=int, metavar="EXCHANGES", help="exchanges per row group (default 1000)")
    i.add_argument("--no-redact", action="store_true", help="keep secrets as captured (off by default)")
    i.add_argument(
        "--progress", action="store_true", default=None, help="show progress even when stderr is not a terminal"
    )
    _lang_option(i, "the language of the progress lines")
    i.set_defaults(func=_ingest)

    a = sub.add_parser("attribute", help="which client library, version and options sent a capture's tools")
    a.add_argument("capture", help="a capture file (HAR, JSONL, .mitm, cassette, …)")
    a.add_argument("--exchange", help="the exchange id (default: the first exchange that sent tools)")
    a.add_argument("--format", choices=list(CAPTURE_FORMATS), help="force a capture format (default: detected)")
    a.add_argument("--all", action="store_true", help="list every profile tried, not only the matches")
    _lang_option(a, "the language of the verdict line; the table's values stay verbatim")
    a.set_defaults(func=_attribute)

    w = sub.add_parser("variants", help="the strict variants of a DSH tool and what each forces a model to send")
    w.add_argument("--tool", default="bash", choices=list(DSH_TOOL_SCHEMAS), help="the DSH tool")
    w.add_argument(
        "--api",
        choices=list(pi_ai_tools.TOOL_APIS),
        help="also show what pi-ai sends on this api for each compat setting",
    )
    w.add_argument("--pi-ai", default=pi_ai.DEFAULT_VERSION, choices=list(pi_ai.VERSIONS), dest="pi_ai")
    w.set_defaults(func=_variants)

    x = sub.add_parser(
        "experiment",
        help="replay one captured request as variants of the contract and measure what the model does",
    )
    x.add_argument("capture", help="the capture holding the request (HAR, JSONL, .mitm, cassette, ...)")
    x.add_argument("--exchange", help="the exchange id to replay (default: the first exchange that sent tools)")
    x.add_argument("--endpoint", help="the URL to send to; without it nothing is sent (a dry run)")
    x.add_argument(
        "--variants",
        default="strict-absent,strict-false",
        help="comma-separated variant names (default: strict-absent,strict-false; an unknown name lists them all)",
    )
    x.add_argument("--samples", type=int, default=5, help="requests per variant (default 5)")
    x.add_argument("--api-key-env", metavar="VAR", help="the environment variable holding the key (never a file)")
    x.add_argument("--out", metavar="DIR", help="write the exchanges, tables, report and figure here (empty or new)")
    x.add_argument(
        "--replace", action="store_true", help="replace the experiment already in --out (a folder of its files only)"
    )
    x.add_argument("--yes", action="store_true", help="send without asking (the plan is printed all the same)")
    x.add_argument("--dry-run", action="store_true", help="show the variants and their changes; send nothing")
    x.add_argument("--max-requests", type=int, default=50, help="most requests the run may send, retries included")
    x.add_argument("--rate", type=float, default=1.0, help="requests per second (default 1)")
    x.add_argument("--timeout", type=float, default=60.0, help="seconds per request (default 60)")
    x.add_argument("--retries", type=int, default=3, help="retries of a 429 per request (default 3)")
    x.add_argument("--allow-images", action="store_true", help="send requests that carry an image")
    x.add_argument(
        "--mode",
        choices=list(dsh_runtime.MODES),
        help="the session's sandbox mode, to judge calls and prune schemas (default: the capture's DSH session)",
    )
    x.add_argument("--dsh", default=dsh_runtime.DEFAULT_VERSION, type=_dsh_version, help="the DSH version to judge by")
    x.add_argument(
        "--progress", action="store_true", default=None, help="show progress even when stderr is not a terminal"
    )
    _lang_option(
        x, "the language of the summary and of the Markdown and HTML sections; the data files are always the same"
    )
    x.set_defaults(func=_experiment)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "verify" and not (args.settings or args.gateway_config or args.capture or args.session):
            args.usage.error("nothing to verify: give --settings, --capture, --session or --gateway-config")
    except SystemExit as exc:  # argparse has printed the usage error
        return 2 if exc.code else 0
    try:
        with surface("cli"):  # every hint inside names the CLI's options (--mode), not the Python API's (mode=)
            return args.func(args)
    except InputError as exc:  # CaptureError, SettingsError, RuleError, ...: bad input, said in one line
        print(f"agent-contract: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(message("cli.interrupted", _lang(args) if hasattr(args, "lang") else "en"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as other tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
