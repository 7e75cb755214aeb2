#!/usr/bin/env python3
"""`fmplay report` at scale: a run document with 1,000 evaluation samples per model (two models,
so 2,000 sample rows, 2,000 matrix cells, the failing ones listed), written by `fmplay report`,
then opened in Debian's headless Chromium.

Targets (issue 16): the page opens in under 1 s and stays under 5 MB.
Measured: the file size; the time from navigation start to the end of the page's script (the
whole document parsed, filters wired), read from the `data-ready` attribute the script sets; and the
wall-clock time of `chromium --headless --dump-dom` for this page next to an empty page (browser
start-up is the difference's baseline). Each is the median of --repeat loads.

Usage: python3 Benchmarks/report-bench.py [--fmplay PATH] [--samples 1000] [--repeat 5]
"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Tests", "ReportBrowser"))
import report_browser as rb  # noqa: E402

WORDS = ("the trip to kyoto starts with a walk through the old temples and ends with dinner by the river "
         "weather sunny rain tomorrow museum train station hotel breakfast <b>bold</b> \"quoted\" & more").split()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def document(samples, models, seed=1):
    rng = random.Random(seed)
    runs = []
    for model in models:
        rows = []
        for i in range(samples):
            passed = rng.random() < 0.8
            rows.append({
                "index": i, "prompt": "Suggest a title for: " + sentence(rng, 16), "expected": sentence(rng, 4),
                "response": sentence(rng, 40), "responseText": sentence(rng, 40),
                "metrics": [{"name": "Exact", "value": "passing" if passed else "failing"},
                            {"name": "Length", "value": "scoring", "score": round(rng.random(), 3)}],
                "failed": not passed,
            })
        evaluation = {"evaluation": "TitleEvaluation", "info": {}, "passRate": None, "metrics": [], "summary": [],
                      "samples": rows, "errors": {"inferenceFailureCount": 0, "evaluatorFailureCount": 0,
                                                  "failingEvaluatorTypes": [], "metricsNotFound": []}}
        responses = []
        for i in range(20):
            responses.append({"line": 10 + i, "column": 5, "endLine": 10 + i, "endColumn": 40, "iteration": 0, "kind": "response",
                              "type": None, "content": sentence(rng, 60), "text": sentence(rng, 60),
                              "usage": {"promptTokens": 300, "cachedTokens": 0, "responseTokens": 80},
                              "timeToFirstToken": 0.2, "tokensPerSecond": 90.0, "snapshots": 0, "toolCalls": [],
                              "renderedPrompt": "<|im_start|>system\n" + sentence(rng, 150) + "<|im_end|>",
                              "stopReason": "end of turn"})
        block = {"name": "Titles", "displayName": "Titles", "line": 1, "status": "ok", "cached": False, "duration": 120.0,
                 "results": responses + [{"line": 60, "column": 5, "endLine": 60, "endColumn": 30, "iteration": 0,
                                          "kind": "evaluation", "type": None, "content": None, "text": "TitleEvaluation",
                                          "evaluation": evaluation}]}
        runs.append({"model": model, "seed": "42", "files": [{"path": "Examples/trip-titles.fmplay", "blocks": [block]}]})
    return {"runs": runs}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fmplay")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    fmplay = args.fmplay or rb.fmplay_binary()
    directory = tempfile.mkdtemp(prefix="fmplay-report-bench-")
    source = os.path.join(directory, "run.json")
    with open(source, "w") as f:
        json.dump(document(args.samples, ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"]), f)
    page = os.path.join(directory, "report.html")
    subprocess.run([fmplay, "report", source, "-o", page], check=True)
    empty = os.path.join(directory, "empty.html")
    with open(empty, "w") as f:
        f.write("<!DOCTYPE html><html><body></body></html>")
    ready, wall, empty_wall = [], [], []
    for _ in range(args.repeat):
        load = rb.PageLoad(page)
        match = re.search(r'data-ready="(\d+)"', load.dom)
        if not match or load.console_messages() or load.remote_urls():
            sys.exit("the page did not load cleanly: %s %s" % (load.console_messages(), load.remote_urls()))
        ready.append(int(match.group(1)))
        wall.append(load.seconds)
        empty_wall.append(rb.PageLoad(empty).seconds)
    size = os.path.getsize(page)
    rows = load.dom.count('class="failure failing-sample"')
    print(f"samples: {args.samples} per model x 2 models; failing samples listed: {rows}")
    print(f"size: {size / 1e6:.2f} MB (target < 5 MB) {'OK' if size < 5e6 else 'OVER'}")
    print(f"page ready (navigation start to end of script, median of {args.repeat}): {statistics.median(ready)} ms "
          f"(target < 1000 ms) {'OK' if statistics.median(ready) < 1000 else 'OVER'}")
    print(f"chromium --dump-dom wall clock: {statistics.median(wall):.2f} s for the report, "
          f"{statistics.median(empty_wall):.2f} s for an empty page (browser start-up)")


if __name__ == "__main__":
    main()
