#!/usr/bin/env python3
"""How often the default model calls a tool on its own (toolCallingMode .allowed).

Runs Benchmarks/tool-calling/allowed.fmplay (seed-style prompts from the WWDC26
agentic talk, one tool attached each, the default mode .allowed) with
`fmplay run --format json --seed N --no-cache` for N = 1..SEEDS (the default
random sampling, seeded) and counts the blocks whose transcript has a tool call.

Usage: allowed_tool_rate.py [--fmplay PATH] [--seeds 5] [--model GGUF]
Prints one line per prompt and the overall rate.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmplay", default=str(ROOT / ".build/debug/fmplay"))
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N")
    parser.add_argument("--model", help="a GGUF model (default: the default model)")
    parser.add_argument("--file", default=str(ROOT / "Benchmarks/tool-calling/allowed.fmplay"))
    arguments = parser.parse_args()

    per_block: dict[str, list[str]] = {}
    errors = []
    started = time.monotonic()
    for seed in range(1, arguments.seeds + 1):
        command = [arguments.fmplay, "run", arguments.file, "--format", "json", "--seed", str(seed), "--no-cache"]
        if arguments.model:
            command += ["--model", arguments.model]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"fmplay run failed (exit {run.returncode}):\n{run.stderr}", file=sys.stderr)
            return 2
        report = json.loads(run.stdout)
        for file_result in report["files"]:
            for block in file_result["blocks"]:
                name = block.get("name") or f"line {block.get('line')}"
                printed = [r["text"] for r in block["results"] if r["kind"] == "print"]
                outcome = next((p for p in printed if p.startswith("called") or p == "answered"), None)
                if outcome is None:
                    errors.append(f"{name} seed {seed}: {block.get('error') or 'no outcome printed'}")
                    outcome = "error"
                per_block.setdefault(name, []).append(outcome)
    total = called = 0
    for name, outcomes in per_block.items():
        calls = sum(o.startswith("called") for o in outcomes)
        valid = sum(o != "error" for o in outcomes)
        total += valid
        called += calls
        print(f"{name:30} {calls}/{valid} called a tool  {outcomes}")
    for error in errors:
        print("ERROR", error)
    rate = 100.0 * called / total if total else 0.0
    print(f"{len(per_block)} prompts x {arguments.seeds} seeds: the model called a tool in {called}/{total} "
          f"requests under .allowed ({rate:.1f}%); {time.monotonic() - started:.0f} s; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
