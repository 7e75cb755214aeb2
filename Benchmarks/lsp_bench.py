#!/usr/bin/env python3
"""Benchmark `fmplay lsp` over stdio, the way an editor drives it.

Measures (issue 5 targets):
  * diagnostics latency after an incremental didChange on a 2,000-line file (p95 < 50 ms);
  * hover, completion and signature help latency (p95 < 20 ms);
  * time from didSave to the first streamed result (`fmplay/results` with a result) when the
    prompt prefix is cached (< 300 ms), when the server can evaluate (else reported as skipped);
  * resident memory over 10,000 edits (flat within 10%).

Usage: python3 Benchmarks/lsp_bench.py [--fmplay .build/release/fmplay] [--edits 10000]
Build first: swift build -c release --product fmplay. Prints one line per measurement and, with
--json, a JSON object. Set FMPLAY_BACKEND / FMPLAY_MODEL in the environment to choose the model.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def make_file(lines: int) -> str:
    """A deterministic prompt file of about `lines` lines: Generable types with guides, tools,
    constants and #Playground blocks."""
    parts = ["import FoundationModels", "import Playgrounds", ""]
    index = 0
    while len("\n".join(parts).split("\n")) < lines - 12:
        parts += [
            "@Generable",
            f"struct Item{index} {{",
            f'    @Guide(description: "The title of item {index}")',
            "    var title: String",
            "    @Guide(.range(1...10))",
            "    var rating: Int",
            "    @Guide(.count(3))",
            "    var tags: [String]",
            "}",
            "",
        ]
        if index % 10 == 0:
            parts += [
                f"struct Lookup{index}: Tool {{",
                f'    let name = "lookup{index}"',
                '    let description = "Looks a word up"',
                "    @Generable",
                "    struct Arguments {",
                "        var word: String",
                "    }",
                "    func call(arguments: Arguments) async throws -> String {",
                '        "Meaning of \\(arguments.word)"',
                "    }",
                "}",
                "",
            ]
        index += 1
    parts += [
        '#Playground("bench") {',
        '    let session = LanguageModelSession(instructions: "Answer briefly.")',
        '    let response = try await session.respond(to: "Name a color.")',
        "    print(response.content)",
        "}",
        "",
    ]
    return "\n".join(parts)


def first_block_finished(uri):
    """A predicate: `fmplay/results` for `uri` whose first block is done or failed."""
    def finished(message):
        if message.get("method") != "fmplay/results" or message["params"]["uri"] != uri:
            return False
        blocks = message["params"]["blocks"]
        return bool(blocks) and blocks[0]["status"] in ("done", "failed")
    return finished


class Client:
    def __init__(self, command, env):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.lock = threading.Condition()
        self.messages = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode("ascii", "replace").partition(":")
                headers[key.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            message = json.loads(body)
            with self.lock:
                self.messages.append((time.perf_counter(), message))
                self.lock.notify_all()

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        ident = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident and "method" not in m)

    def wait(self, predicate, timeout=60.0, since=0):
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                for index in range(since, len(self.messages)):
                    stamp, message = self.messages[index]
                    if predicate(message):
                        return stamp, message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("no matching message")
                self.lock.wait(remaining)

    def mark(self):
        with self.lock:
            return len(self.messages)

    def cpu_seconds(self):
        """User + system CPU time of the server so far (load-independent, unlike wall time)."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fmplay", default=".build/release/fmplay")
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--samples", type=int, default=200, help="hover/completion requests per kind")
    parser.add_argument("--diagnostic-samples", type=int, default=200, help="edits timed for diagnostics")
    parser.add_argument("--max-tokens", type=int, default=16, help="response tokens for the save measurement")
    parser.add_argument("--edits", type=int, default=10000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    text = make_file(args.lines)
    lines = text.split("\n")
    uri = "file:///bench/bench.fmplay"
    client = Client([args.fmplay, "lsp"], dict(os.environ))
    results = {"lines": len(lines)}

    client.request("initialize", {"capabilities": {"general": {"positionEncodings": ["utf-16"]}},
                                  "initializationOptions": {"evaluate": "manual"}})
    client.notify("initialized", {})
    mark = client.mark()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "fmplay", "version": 1, "text": text}})
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics", since=mark)

    # Diagnostics after an incremental edit: change one description string each time.
    target = next(i for i, line in enumerate(lines) if "The title of item" in line)
    column = lines[target].index("item") + 5
    version = 1
    latencies = []
    cpu_before = client.cpu_seconds()
    for sample in range(args.diagnostic_samples):
        version += 1
        mark = client.mark()
        sent = time.perf_counter()
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": target, "character": column},
                                          "end": {"line": target, "character": column + 1}}, "text": str(sample % 10)}]})
        stamp, _ = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                               and m["params"].get("version") == version, since=mark)
        latencies.append((stamp - sent) * 1000)
    results["diagnostics_ms"] = {"p50": percentile(latencies, 0.5), "p95": percentile(latencies, 0.95),
                                 "server_cpu_per_edit": (client.cpu_seconds() - cpu_before) * 1000 / args.diagnostic_samples}
    results["load_average"] = os.getloadavg()[0]

    # Hover (on a type name and on a prompt string) and completion (after `generating:` style contexts).
    type_line = next(i for i, line in enumerate(lines) if line.startswith("struct Item5 "))
    prompt_line = next(i for i, line in enumerate(lines) if "Name a color" in line)
    for name, method, position in [
        ("hover_ms", "textDocument/hover", {"line": type_line, "character": 9}),
        ("hover_prompt_ms", "textDocument/hover", {"line": prompt_line, "character": lines[prompt_line].index("Name") + 1}),
        ("completion_ms", "textDocument/completion", {"line": type_line + 4, "character": 11}),
        # Inside `session.respond(to: ...)`: the active overload and parameter from the surface table.
        ("signature_help_ms", "textDocument/signatureHelp", {"line": prompt_line, "character": lines[prompt_line].index("respond(") + len("respond(")}),
    ]:
        timings = []
        for _ in range(args.samples):
            sent = time.perf_counter()
            stamp, reply = client.request(method, {"textDocument": {"uri": uri}, "position": position})
            if not (reply or {}).get("result"):
                raise SystemExit(f"{method} at {position} answered nothing: {reply}")
            timings.append((stamp - sent) * 1000)
        results[name] = {"p50": percentile(timings, 0.5), "p95": percentile(timings, 0.95)}

    # First streamed result after didSave, with the prefix cached by a first run, on a small
    # document (one block), as when an author saves after editing the end of a prompt.
    small_uri = "file:///bench/save.fmplay"
    small_lines = [
        "import FoundationModels", "import Playgrounds", "",
        '#Playground("save") {',
        '    let session = LanguageModelSession(instructions: "Answer briefly.")',
        '    let response = try await session.respond(to: "Name a color.")',
        "}", "",
    ]
    prompt_line = 5
    client.notify("workspace/didChangeConfiguration", {"settings": {"evaluate": "onSave", "maxTokens": args.max_tokens}})
    mark = client.mark()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": small_uri, "languageId": "fmplay", "version": 1,
                                                            "text": "\n".join(small_lines)}})

    finished = first_block_finished(small_uri)

    try:
        client.wait(finished, timeout=600, since=mark)
        # Change the end of the prompt: the instructions and most of the prompt stay a cached prefix.
        end = small_lines[prompt_line].index("color.") + len("color")
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": small_uri, "version": 2},
            "contentChanges": [{"range": {"start": {"line": prompt_line, "character": end},
                                          "end": {"line": prompt_line, "character": end + 1}}, "text": "!"}]})
        mark = client.mark()
        sent = time.perf_counter()
        client.notify("textDocument/didSave", {"textDocument": {"uri": small_uri}})
        stamp, message = client.wait(lambda m: m.get("method") == "fmplay/results" and m["params"]["uri"] == small_uri
                                     and (m["params"]["results"] or finished(m)), timeout=600, since=mark)
        if message["params"]["results"]:
            results["first_hint_after_save_ms"] = (stamp - sent) * 1000
        else:
            results["first_hint_after_save_ms"] = None
            results["first_hint_note"] = message["params"]["blocks"][0].get("summary", "evaluation failed")
        client.wait(finished, timeout=600, since=mark)
    except TimeoutError:
        results["first_hint_after_save_ms"] = None
        results["first_hint_note"] = "no result within 600 s"
    client.notify("workspace/didChangeConfiguration", {"settings": {"evaluate": "manual"}})

    # Memory over many edits: type and delete a character, syncing every 500 edits.
    samples = []
    for edit in range(args.edits):
        version += 1
        inserting = edit % 2 == 0
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": target, "character": column},
                                          "end": {"line": target, "character": column + (0 if inserting else 1)}},
                                "text": "x" if inserting else ""}]})
        if (edit + 1) % 500 == 0 or edit + 1 == args.edits:
            client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
            samples.append(client.rss_kib())
    if not samples:  # --edits 0: one reading of the settled server
        client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        samples.append(client.rss_kib())
    warm = samples[min(1, len(samples) - 1)]
    results["rss_kib"] = {"after_1000_edits": warm, "final": samples[-1], "max": max(samples),
                          "growth_percent": (samples[-1] - warm) * 100.0 / warm}

    client.request("shutdown", None)
    client.notify("exit", None)
    results["exit_code"] = client.process.wait(timeout=30)

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"file: {results['lines']} lines")
        print(f"load average: {results['load_average']:.2f}")
        for key in ("diagnostics_ms", "hover_ms", "hover_prompt_ms", "completion_ms", "signature_help_ms"):
            print(f"{key[:-3]}: p50 {results[key]['p50']:.1f} ms, p95 {results[key]['p95']:.1f} ms")
        print(f"server CPU per didChange (analysis + publish): {results['diagnostics_ms']['server_cpu_per_edit']:.1f} ms")
        first = results["first_hint_after_save_ms"]
        print("first streamed result after didSave: " + (f"{first:.0f} ms" if first is not None else f"n/a ({results.get('first_hint_note')})"))
        rss = results["rss_kib"]
        print(f"RSS over {args.edits} edits: {rss['after_1000_edits']} KiB after 1000, {rss['final']} KiB at the end "
              f"({rss['growth_percent']:+.1f}%), max {rss['max']} KiB")
        print(f"exit code: {results['exit_code']}")


if __name__ == "__main__":
    sys.exit(main())
