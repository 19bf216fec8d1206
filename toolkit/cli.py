"""The ``agent-contract`` command. Imports stay inside commands so start-up is quick."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _summary(args) -> int:
    import pandas as pd

    from .capture import find_captures, load_captures

    paths, skipped = find_captures(args.paths, format=args.format)
    cap = load_captures(paths, format=args.format, redact=not args.no_redact, progress=args.progress)
    summary = cap.summary()
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 500):
        print(summary.to_string(index=False))
        totals = summary[["entries", "read", "lost", "exchanges", "events", "calls", "problems"]].sum()
        print(f"\n{len(summary)} captures: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
        if len(cap.exchanges):
            table = _exchange_table(cap)
            shown = table if args.all or len(table) <= MAX_ROWS else table[~table["source"].isin(_busiest(cap))]
            print(f"\nexchanges ({len(shown)} of {len(table)}{'' if len(shown) == len(table) else '; --all lists every one'}):")
            print(shown.to_string(index=False, max_colwidth=60))
        if len(cap.problems):
            probs = cap.problems[["source", "location", "kind", "message"]]
            print(f"\nproblems ({min(len(probs), MAX_ROWS) if not args.all else len(probs)} of {len(probs)}):")
            print((probs if args.all else probs.head(MAX_ROWS)).to_string(index=False, max_colwidth=100))
        if skipped:
            print(f"\nskipped {len(skipped)} files that are not captures:")
            print("\n".join("  " + s for s in skipped))
    return 0 if summary["reconciles"].all() else 1


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
    calls = cap.calls.assign(c=cap.calls["name"].astype(str).where(cap.calls["complete"], cap.calls["name"].astype(str) + " (cut)"))
    calls = calls.groupby("exchange_id")["c"].agg(", ".join)
    ex = cap.exchanges.set_index("exchange_id")
    table = ex[["source", "location", "api", "model", "status", "terminal"]].copy()
    table["tools"] = tools.reindex(table.index).fillna("")
    table["calls"] = calls.reindex(table.index).fillna("")
    table["error"] = ex["error_code"].fillna("")
    return table


def _config(args) -> int:
    import pandas as pd

    from .config import load_settings, suggest_fix

    settings = load_settings(args.settings)
    if args.diff:
        print(suggest_fix(args.settings), end="")
        return 0
    with pd.option_context("display.width", 200, "display.max_colwidth", 120, "display.max_columns", 30):
        cols = ["route", "id", "api", "input", "input_source", "supports_strict_mode", "strict_mode_source", "tool_strict"]
        print(settings.models[cols].to_string(index=False))
        dm, dp = settings.default_model, settings.default_preset
        print(f"\nnew agents use {dm.get('route')}/{dm.get('model')} ({dm.get('source')}); sessions start in "
              f"{dp.get('sandbox_mode')} with approval {dp.get('approval')} ({dp.get('source')})")
        if len(settings.findings):
            print(f"\n{len(settings.findings)} findings:")
            for f in settings.findings.itertuples(index=False):
                where = f"line {f.line}" if not pd.isna(f.line) else "file"
                print(f"\n{f.severity} [{f.layer}] {where} ({f.yaml_path}): {f.message}")
                if not pd.isna(f.dsh_message):
                    print(f"    DSH says: {f.dsh_message}")
                if not pd.isna(f.fix):
                    print(f"    fix: {f.fix}")
            print("\nthe minimal fix as a diff: agent-contract config --diff " + str(args.settings))
    return 1 if (settings.findings["severity"] == "error").any() else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-contract", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="read captures and print what each holds, with problems")
    s.add_argument("paths", nargs="+", help="capture files, or folders to read every file in")
    s.add_argument("--format", help="force a format (har, jsonl, sse, dsh-session, mitm)")
    s.add_argument("--no-redact", action="store_true", help="show secrets as captured (off by default)")
    s.add_argument("--progress", action="store_true", default=None, help="show progress even when stderr is not a terminal")
    s.add_argument("--all", action="store_true", help="list every exchange and problem, not the first 40")
    s.set_defaults(func=_summary)
    c = sub.add_parser("config", help="resolve a DSH settings.yaml: effective values, their sources, findings")
    c.add_argument("settings", help="path to settings.yaml (credential files are refused)")
    c.add_argument("--diff", action="store_true", help="print the minimal fix as a unified diff")
    c.set_defaults(func=_config)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import CaptureError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CaptureError, ValueError) as exc:  # SettingsError is a ValueError
        print(f"agent-contract: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("agent-contract: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
