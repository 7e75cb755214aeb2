#!/usr/bin/env python3
"""Benchmark what evaluation isolation and background analysis cost and buy in `fmplay lsp` (issue 17).

Measures, over stdio as an editor drives the server:
  * first-hint latency: didSave to the first streamed result (`fmplay/results` with a result) on a
    block whose prompt prefix is cached by earlier runs (target <= 300 ms), `--samples` times, with
    evaluation in the supervised worker (default) and, for comparison, in the server process
    (`fmplay lsp --in-process`);
  * cancel latency: `fmplay.cancel` of a busy block to the server's answer and to the first result of
    the next block (the worker is free again);
  * another document's diagnostics latency while a large document (3.9 MB: analysed off the loop;
    5 MB: refused with FM002) is being analysed (target <= 100 ms), against the same without it.

Usage: python3 Benchmarks/isolation_bench.py [--fmplay .build/debug/fmplay] [--samples 10] [--json]
Set FMPLAY_BACKEND=scripted to measure without a model (the first-hint numbers are then the
protocol and process overhead only) or FMPLAY_MODEL to choose the model.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_bench import Client, first_block_finished, percentile  # noqa: E402


def summary(values):
    if not values:
        return None
    return {"p50": percentile(values, 0.5), "p95": percentile(values, 0.95), "min": min(values),
            "max": max(values), "mean": statistics.fmean(values), "n": len(values)}


def start(fmplay, in_process, cache):
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = cache
    command = [fmplay, "lsp"] + (["--in-process"] if in_process else [])
    client = Client(command, env)
    client.request("initialize", {"capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                                  "initializationOptions": {"evaluate": "manual"}})
    client.notify("initialized", {})
    return client


def stop(client):
    client.request("shutdown", None)
    client.notify("exit", None)
    client.process.wait(timeout=30)


def first_hint(client, samples, max_tokens):
    """didSave -> first streamed result, with the prompt prefix cached (the prompt's end changes each time)."""
    uri = "file:///bench/first-hint.fmplay"
    lines = [
        "import FoundationModels", "import Playgrounds", "",
        '#Playground("save") {',
        '    let session = LanguageModelSession(instructions: "Answer briefly, in one short sentence.")',
        '    let response = try await session.respond(to: "Name a color. 0")',
        "}", "",
    ]
    prompt_line = 5
    client.notify("workspace/didChangeConfiguration", {"settings": {"evaluate": "onSave", "maxTokens": max_tokens}})
    mark = client.mark()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "fmplay", "version": 1,
                                                            "text": "\n".join(lines)}})

    finished = first_block_finished(uri)

    _, done = client.wait(finished, timeout=600, since=mark)
    if done["params"]["blocks"][0]["status"] == "failed":
        return None, done["params"]["blocks"][0].get("summary", "failed")
    timings = []
    digit_column = lines[prompt_line].index("0\")")
    for sample in range(samples):
        # A different last character each time: a new result (no result-cache hit), the same cached prefix.
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": sample + 2},
            "contentChanges": [{"range": {"start": {"line": prompt_line, "character": digit_column},
                                          "end": {"line": prompt_line, "character": digit_column + 1}},
                                "text": str((sample + 1) % 10)}]})
        mark = client.mark()
        sent = time.perf_counter()
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        stamp, message = client.wait(lambda m: m.get("method") == "fmplay/results" and m["params"]["uri"] == uri
                                     and (m["params"]["results"] or finished(m)), timeout=600, since=mark)
        if message["params"]["results"]:
            timings.append((stamp - sent) * 1000)
        client.wait(finished, timeout=600, since=mark)
    client.notify("workspace/didChangeConfiguration", {"settings": {"evaluate": "manual"}})
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    return timings, None


def cancel_latency(client, samples):
    """fmplay.cancel of a busy block -> answer, and -> first result of the next block."""
    uri = "file:///bench/cancel.fmplay"
    text = "\n".join([
        "#Playground {",
        '    print("busy")',
        "    var total = 0",
        "    for i in 0..<1_000_000_000 { total = total + i % 7 }",
        "    print(total)",
        "}",
        "",
        "#Playground {",
        '    print("next")',
        "}",
        "",
    ])
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "fmplay", "version": 1, "text": text}})
    answers, nexts = [], []

    def has_result(word):
        return lambda m: (m.get("method") == "fmplay/results" and m["params"]["uri"] == uri
                          and any(word in (r.get("hint") or "") for r in m["params"]["results"]))

    for _ in range(samples):
        mark = client.mark()
        client.request("workspace/executeCommand", {"command": "fmplay.run", "arguments": [{"uri": uri, "line": 0}]})
        client.wait(has_result("busy"), timeout=120, since=mark)
        time.sleep(0.3)  # inside the loop
        sent = time.perf_counter()
        answered, _ = client.request("workspace/executeCommand", {"command": "fmplay.cancel", "arguments": [{"uri": uri, "line": 0}]})
        mark = client.mark()
        client.request("workspace/executeCommand", {"command": "fmplay.run", "arguments": [{"uri": uri, "line": 7}]})
        stamp, _ = client.wait(has_result("next"), timeout=120, since=mark)
        answers.append((answered - sent) * 1000)
        nexts.append((stamp - sent) * 1000)
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    return answers, nexts


def other_document_latency(client, big_bytes, samples):
    """Open (or edit) a large document, then at once a small one: the small one's diagnostics latency."""
    line = 'let constant = "' + "x" * 80 + '"\n'
    big_text = line * (big_bytes // len(line) + 1)
    big_uri = f"file:///bench/big-{big_bytes}.fmplay"
    small_uri = "file:///bench/small.fmplay"
    small_text = "#Playground {\n    print(1)\n}\n"
    timings = []
    version = 1
    client.notify("textDocument/didOpen", {"textDocument": {"uri": small_uri, "languageId": "fmplay", "version": 1, "text": small_text}})
    client.notify("textDocument/didOpen", {"textDocument": {"uri": big_uri, "languageId": "fmplay", "version": 1, "text": big_text}})
    for sample in range(samples):
        version += 1
        big_mark = client.mark()
        # Replace the large text (a new analysis starts), then edit the small document right away.
        client.notify("textDocument/didChange", {"textDocument": {"uri": big_uri, "version": version},
                                                 "contentChanges": [{"text": big_text + f"// {sample}\n"}]})
        mark = client.mark()
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {"textDocument": {"uri": small_uri, "version": version},
                                                 "contentChanges": [{"text": small_text + f"// {sample}\n"}]})
        stamp, _ = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                               and m["params"]["uri"] == small_uri and m["params"].get("version") == version,
                               timeout=600, since=mark)
        timings.append((stamp - sent) * 1000)
        # Let the large analysis finish before the next sample (its own diagnostics).
        client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == big_uri and m["params"].get("version") == version, timeout=600, since=big_mark)
    client.notify("textDocument/didClose", {"textDocument": {"uri": big_uri}})
    client.notify("textDocument/didClose", {"textDocument": {"uri": small_uri}})
    return timings


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fmplay", default=".build/debug/fmplay")
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--skip", action="append", default=[], choices=["first-hint", "cancel", "large"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"backend": os.environ.get("FMPLAY_BACKEND", "embedded"), "load_average_start": os.getloadavg()[0]}

    with tempfile.TemporaryDirectory(prefix="fmplay-isolation-bench-") as cache:
        if "first-hint" not in args.skip:
            for mode, in_process in (("in_process", True), ("worker", False)):
                client = start(args.fmplay, in_process, cache)
                timings, problem = first_hint(client, args.samples, args.max_tokens)
                results[f"first_hint_ms_{mode}"] = summary(timings) if timings else {"skipped": problem}
                stop(client)
        client = start(args.fmplay, False, cache)
        if "cancel" not in args.skip:
            answers, nexts = cancel_latency(client, max(3, args.samples // 2))
            results["cancel_answer_ms"] = summary(answers)
            results["cancel_to_next_result_ms"] = summary(nexts)
        if "large" not in args.skip:
            results["small_diagnostics_ms_alone"] = summary(other_document_latency(client, 0, args.samples))
            results["small_diagnostics_ms_with_3_9MB"] = summary(other_document_latency(client, 3_900_000, max(3, args.samples // 2)))
            results["small_diagnostics_ms_with_5MB"] = summary(other_document_latency(client, 5 << 20, max(3, args.samples // 2)))
        stop(client)
    results["load_average_end"] = os.getloadavg()[0]

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for key, value in results.items():
        if isinstance(value, dict) and "p50" in value:
            print(f"{key}: p50 {value['p50']:.1f}, p95 {value['p95']:.1f}, min {value['min']:.1f}, max {value['max']:.1f} (n={value['n']})")
        else:
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
