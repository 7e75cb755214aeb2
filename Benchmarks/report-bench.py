#!/usr/bin/env python3
"""`fmplay report` at scale: a run document with 1,000 evaluation samples per model (two models,
so 2,000 sample rows, 2,000 matrix cells, the failing ones listed), written by `fmplay report`,
then opened in Debian's headless Chromium.

Targets (issue 16): the page opens in under 1 s and stays under 5 MB.
"Opens" is measured from navigation start to the first frame after the load event: the whole page
parsed, its script run, styled, laid out and painted (two animation frames after `load`, read with
performance.now() by a probe the DevTools protocol adds before the page loads; the page itself is not
changed). Also shown: the end of the page's script (`data-ready`), the load event, Chromium's own
layout and style-recalculation totals, the DOM node count, and the time to open the largest response
(the evaluation with every sample) and see it. Each is the median of --repeat loads, each in a fresh
browser; the load average is printed with them. One `--dump-dom` load checks that the page made no
network request and logged nothing.

Usage: python3 Benchmarks/report-bench.py [--fmplay PATH] [--samples 1000] [--repeat 5] [--page FILE]"""
import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

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


# Runs in the page before its own script: marks the first frame after the load event.
PROBE = ("addEventListener('load',function(){requestAnimationFrame(function(){requestAnimationFrame(function(){"
         "window.__fmplayOpened=performance.now();});});});")

EXPAND = ("new Promise(function(done){var d=document.querySelector('details.kind-evaluation');var t=performance.now();"
          "d.open=true;requestAnimationFrame(function(){requestAnimationFrame(function(){"
          "done([performance.now()-t,d.querySelectorAll('table.samples tbody tr').length]);});});})")


def open_once(page):
    with rb.Browser() as browser:
        browser.call("Performance.enable", page=True)
        browser.open(page, before_load=PROBE)
        opened = None
        for _ in range(600):
            opened = browser.evaluate("window.__fmplayOpened||0")
            if opened:
                break
            time.sleep(0.02)
        facts = browser.evaluate("[Number(document.documentElement.getAttribute('data-ready')||-1),"
                                 "performance.timing.loadEventEnd-performance.timing.navigationStart]")
        metrics = {m["name"]: m["value"] for m in browser.call("Performance.getMetrics", page=True)["metrics"]}
        expand_ms, sample_rows = browser.evaluate(EXPAND)
    return {"open": opened, "ready": facts[0], "load": facts[1], "layout": metrics["LayoutDuration"] * 1000,
            "style": metrics["RecalcStyleDuration"] * 1000, "nodes": metrics["Nodes"], "expand": expand_ms, "sample_rows": sample_rows}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fmplay")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--page", help="measure this report page instead of writing one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fmplay-report-bench-") as directory:
        measure(args, directory)


def measure(args, directory):
    if args.page:
        page = args.page
    else:
        fmplay = args.fmplay or rb.fmplay_binary()
        source = os.path.join(directory, "run.json")
        with open(source, "w") as f:
            json.dump(document(args.samples, ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"]), f)
        page = os.path.join(directory, "report.html")
        subprocess.run([fmplay, "report", source, "-o", page], check=True)
    check = rb.PageLoad(page, budget_ms=30000)
    if "data-ready" not in check.dom or check.console_messages() or check.remote_urls():
        sys.exit("the page did not load cleanly: %s %s" % (check.console_messages(), check.remote_urls()))
    load_before = os.getloadavg()
    runs = [open_once(page) for _ in range(args.repeat)]
    load_after = os.getloadavg()

    def median(key):
        return statistics.median(r[key] for r in runs)
    size = os.path.getsize(page)
    listed = check.dom.count('class="failure failing-sample"')
    print(f"samples: {args.samples} per model x 2 models; failing samples listed: {listed}; DOM nodes: {median('nodes'):.0f}")
    print(f"load average: {load_before[0]:.2f} before, {load_after[0]:.2f} after ({os.cpu_count()} CPUs)")
    print(f"size: {size / 1e6:.2f} MB (target < 5 MB) {'OK' if size < 5e6 else 'OVER'}")
    print(f"opened (navigation start to the first frame after load, median of {args.repeat}): {median('open'):.0f} ms "
          f"(target < 1000 ms) {'OK' if median('open') < 1000 else 'OVER'}; each: {', '.join('%.0f' % r['open'] for r in runs)}")
    print(f"  page script done: {median('ready'):.0f} ms; load event end: {median('load'):.0f} ms; "
          f"layout {median('layout'):.0f} ms, style {median('style'):.0f} ms in all")
    print(f"  opening the evaluation's details ({runs[0]['sample_rows']} sample rows) to its next frame: {median('expand'):.0f} ms")


if __name__ == "__main__":
    main()
