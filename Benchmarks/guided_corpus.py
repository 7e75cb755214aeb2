#!/usr/bin/env python3
"""Structural validity of guided generation on the real default model.

Runs every prompt file of Benchmarks/guided-corpus/ (one @Generable type and
one `respond(to:generating:)` call each) through `fmplay run --format json
--seed N --no-cache` for N = 1..SEEDS (random sampling: the default top-k 40,
top-p 0.95, min-p 0.05, temperature 0.7, seeded), then checks every output
with python-jsonschema (an independent validator) against `fmplay schema FILE
--type T`, which carries every guide, plus declaration order of keys
(validate_guidance_corpus.py). A block that fails (decodingFailure, budget
cut, ...) counts as a failed output.

Usage: guided_corpus.py [--fmplay PATH] [--seeds 5] [--out DIR] [FILE...]
Prints one line per prompt file and the pass rate; exits 1 below 100%.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from validate_guidance_corpus import validate_folder  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fmplay", default=str(ROOT / ".build/debug/fmplay"),
                        help="the fmplay binary (engine targets are optimized in every configuration)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 1..N per prompt file")
    parser.add_argument("--out", help="keep schemas and outputs here (default: a temporary directory)")
    parser.add_argument("files", nargs="*", help="prompt files (default: every file in Benchmarks/guided-corpus)")
    arguments = parser.parse_args()

    files = [pathlib.Path(f) for f in arguments.files] or sorted((ROOT / "Benchmarks/guided-corpus").glob("*.fmplay"))
    out = pathlib.Path(arguments.out or tempfile.mkdtemp(prefix="guided-corpus-"))
    out.mkdir(parents=True, exist_ok=True)
    failures = []
    outputs = 0
    tokens = 0
    decode_seconds = 0.0
    per_file = {f.stem: {"passed": 0, "total": 0, "tokens": []} for f in files}
    started = time.monotonic()
    for seed in range(1, arguments.seeds + 1):
        run = subprocess.run([arguments.fmplay, "run", *map(str, files), "--format", "json", "--seed", str(seed), "--no-cache"],
                             capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"fmplay run failed (exit {run.returncode}):\n{run.stderr}", file=sys.stderr)
            return 2
        report = json.loads(run.stdout)
        for file_result in report["files"]:
            stem = pathlib.Path(file_result["path"]).stem
            folder = out / stem
            folder.mkdir(exist_ok=True)
            results = [r for block in file_result["blocks"] for r in block["results"] if r["kind"] in ("response", "error")]
            block_errors = [block.get("error") for block in file_result["blocks"] if block["status"] != "ok"]
            if file_result.get("error"):
                block_errors.append(file_result["error"])
            per_file[stem]["total"] += 1
            outputs += 1
            if block_errors or not results or results[0]["kind"] != "response" or not results[0].get("type"):
                detail = block_errors[0] if block_errors else (results[0]["text"] if results else "no model result")
                failures.append(f"FAIL {stem} seed {seed}: {detail}")
                continue
            result = results[0]
            schema_file = folder / "schema-fmplay.json"
            if not schema_file.exists():
                schema = subprocess.run([arguments.fmplay, "schema", file_result["path"], "--type", result["type"]],
                                        capture_output=True, text=True, check=True)
                schema_file.write_text(schema.stdout)
            (folder / f"output-{seed}.json").write_text(json.dumps(result["content"], ensure_ascii=False))
            usage = result.get("usage") or {}
            count = usage.get("responseTokens", 0)
            per_file[stem]["tokens"].append(count)
            if result.get("tokensPerSecond"):
                tokens += count
                decode_seconds += max(count - 1, 0) / result["tokensPerSecond"]
    for file in files:
        folder = out / file.stem
        checked, messages = validate_folder(folder) if folder.exists() else (0, [])
        failures += messages
        entry = per_file[file.stem]
        entry["passed"] = checked - len({m.split(" against ")[0] for m in messages})
        mean = sum(entry["tokens"]) / len(entry["tokens"]) if entry["tokens"] else 0
        print(f"{file.stem:28} {entry['passed']}/{entry['total']} valid, {mean:6.1f} response tokens on average")
    for message in failures:
        print(message)
    passed = sum(entry["passed"] for entry in per_file.values())
    rate = 100.0 * passed / outputs if outputs else 0.0
    print(f"{len(files)} schemas x {arguments.seeds} seeds: {passed}/{outputs} outputs valid ({rate:.1f}%), "
          f"checked with python-jsonschema against `fmplay schema`; "
          f"{tokens} response tokens at {tokens / decode_seconds if decode_seconds else 0:.1f} tokens/s; "
          f"{time.monotonic() - started:.0f} s; load {os.getloadavg()[0]:.1f}; outputs in {out}")
    return 0 if outputs and passed == outputs else 1


if __name__ == "__main__":
    sys.exit(main())
