"""The ``agent-contract`` command. Imports stay inside commands so start-up is quick."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def _summary(args) -> int:
    import pandas as pd

    from .capture import load_captures

    paths = []
    for p in args.paths:
        p = Path(p)
        paths.extend(sorted(x for x in p.rglob("*") if x.is_file() and not x.name.startswith((".", "README"))) if p.is_dir() else [p])
    cap = load_captures(paths, format=args.format, redact=not args.no_redact, progress=args.progress)
    summary = cap.summary()
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 500):
        print(summary.to_string(index=False))
        totals = summary[["entries", "read", "lost", "exchanges", "events", "calls", "problems"]].sum()
        print(f"\n{len(summary)} captures: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
        if len(cap.exchanges):
            print("\nexchanges:")
            print(_exchange_table(cap).to_string(index=False, max_colwidth=60))
        if len(cap.problems):
            print("\nproblems:")
            print(cap.problems[["source", "location", "kind", "message"]].to_string(index=False, max_colwidth=100))
    return 0 if summary["reconciles"].all() else 1


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="agent-contract", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="read captures and print what each holds, with problems")
    s.add_argument("paths", nargs="+", help="capture files, or folders to read every file in")
    s.add_argument("--format", help="force a format (har, jsonl, sse, dsh-session, mitm)")
    s.add_argument("--no-redact", action="store_true", help="show secrets as captured (off by default)")
    s.add_argument("--progress", action="store_true", default=None, help="show progress even when stderr is not a terminal")
    s.set_defaults(func=_summary)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import CaptureError

    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CaptureError, ValueError) as exc:
        print(f"agent-contract: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("agent-contract: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
