#!/usr/bin/env python3
"""A scripted stand-in for `fmplay lsp`, used only by the editor plugin tests.

It speaks the part of the fmplay protocol the editor plugins rely on (issue 5), with no
model behind it, so the plugins' own behaviour (commands, code lenses, rendering of
`fmplay/results`) is tested fast and deterministically. The end-to-end tests run the real
`fmplay lsp` instead.

Protocol it implements:
  * initialize / initialized / shutdown / exit; full text sync;
  * didOpen / didChange / didSave -> publishDiagnostics (a warning on each `-> ToolOutput`);
  * textDocument/codeLens: one `fmplay.run` lens per `#Playground` line, arguments
    [{"uri": ..., "line": <0-based line of #Playground>, "block": <index>}];
  * workspace/executeCommand fmplay.run / fmplay.runAll / fmplay.cancel / fmplay.clearCache;
    a run answers null, then sends `fmplay/results` {uri, version, results: [...]}, where each
    result has `range` (the call) and `hint` ("→ \"scripted: <prompt>\""), and `blocks` lists
    each block's `name`, `line` and `status`;
  * textDocument/hover: the last result's full value, as `markdown` when the client's
    hover contentFormat lists it first, else `plaintext` (as `fmplay lsp` does);
  * fmplay.openReport [{"uri"}]: writes a small HTML page naming the document's last results
    next to $SCRIPTED_LSP_LOG (else in the temporary directory) and answers its path; before any
    run it fails as `fmplay lsp` does (-32803, "run a block first").
Every request and notification it receives is appended as one JSON line to $SCRIPTED_LSP_LOG
when that is set, so tests can assert what the client sent.
"""
from __future__ import annotations

import html
import json
import os
import re
import sys
import tempfile

COMMANDS = ["fmplay.run", "fmplay.runAll", "fmplay.cancel", "fmplay.clearCache", "fmplay.openReport"]
documents: dict[str, dict] = {}
hover_format = "plaintext"
log_path = os.environ.get("SCRIPTED_LSP_LOG")


def read_message():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.decode("ascii").strip()
        if not line:
            break
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    body = sys.stdin.buffer.read(int(headers["content-length"]))
    return json.loads(body)


def send(message):
    body = json.dumps(message).encode("utf-8")
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def notify(method, params):
    send({"jsonrpc": "2.0", "method": method, "params": params})


def publish_diagnostics(uri):
    doc = documents[uri]
    diagnostics = []
    for number, line in enumerate(doc["text"].split("\n")):
        column = line.find("-> ToolOutput")
        if column >= 0:
            diagnostics.append({
                "range": {"start": {"line": number, "character": column},
                          "end": {"line": number, "character": column + len("-> ToolOutput")}},
                "severity": 2, "source": "fmplay",
                "message": "ToolOutput is the beta form; return a String or a Generable value"})
    notify("textDocument/publishDiagnostics", {"uri": uri, "version": doc["version"], "diagnostics": diagnostics})


def playground_lines(text):
    return [n for n, line in enumerate(text.split("\n")) if re.match(r"\s*#Playground\b", line)]


def results_for_block(text, start_line):
    """One result per respond/streamResponse call inside the block starting at start_line."""
    lines = text.split("\n")
    starts = playground_lines(text)
    later = [n for n in starts if n > start_line]
    end_line = later[0] if later else len(lines)
    results = []
    for number in range(start_line, end_line):
        match = re.search(r"\.(respond|streamResponse)\(\s*(?:to:\s*)?\"([^\"]*)\"", lines[number])
        if match:
            value = f"scripted: {match.group(2)}"
            results.append({
                "range": {"start": {"line": number, "character": match.start(1)},
                          "end": {"line": number, "character": len(lines[number])}},
                "hint": f"→ \"{value}\"", "value": value, "status": "done"})
    return results


def handle(message):
    method, params, ident = message.get("method"), message.get("params") or {}, message.get("id")
    if log_path:
        with open(log_path, "a", encoding="utf-8") as handle_:
            handle_.write(json.dumps({"method": method, "params": params}) + "\n")
    result = None
    global hover_format
    if method == "initialize":
        offers = params.get("capabilities", {}).get("textDocument", {}).get("hover", {}).get("contentFormat") or []
        hover_format = next((f for f in offers if f in ("markdown", "plaintext")), "plaintext")
        result = {"capabilities": {
            "textDocumentSync": {"openClose": True, "change": 1, "save": {"includeText": False}},
            "codeLensProvider": {"resolveProvider": False}, "hoverProvider": True,
            "executeCommandProvider": {"commands": COMMANDS}},
            "serverInfo": {"name": "scripted-fmplay-lsp"}}
    elif method == "shutdown":
        result = None
    elif method == "exit":
        sys.exit(0)
    elif method == "textDocument/didOpen":
        item = params["textDocument"]
        documents[item["uri"]] = {"text": item["text"], "version": item.get("version", 0), "results": []}
        publish_diagnostics(item["uri"])
    elif method == "textDocument/didChange":
        doc = documents[params["textDocument"]["uri"]]
        doc["text"] = params["contentChanges"][-1]["text"]
        doc["version"] = params["textDocument"].get("version", doc["version"])
        publish_diagnostics(params["textDocument"]["uri"])
    elif method == "textDocument/codeLens":
        uri = params["textDocument"]["uri"]
        result = [{"range": {"start": {"line": n, "character": 0}, "end": {"line": n, "character": 11}},
                   "command": {"title": "▶ Run", "command": "fmplay.run", "arguments": [{"uri": uri, "line": n, "block": i}]}}
                  for i, n in enumerate(playground_lines(documents[uri]["text"]))]
    elif method == "textDocument/hover":
        doc = documents[params["textDocument"]["uri"]]
        value = doc["results"][-1]["value"] if doc["results"] else "no result yet"
        result = {"contents": {"kind": hover_format, "value": value}}
    elif method == "workspace/executeCommand":
        command, arguments = params["command"], params.get("arguments") or []
        if command not in COMMANDS:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32602, "message": f"unknown command {command}"}})
            return
        if command == "fmplay.openReport":
            doc = documents.get(arguments[0]["uri"]) if arguments and isinstance(arguments[0], dict) else None
            if not doc or not doc["results"]:
                send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32803, "message": "fmplay.openReport: no finished results yet; run a block first"}})
                return
            path = os.path.join(os.path.dirname(log_path) if log_path else tempfile.gettempdir(), "scripted-report.html")
            with open(path, "w", encoding="utf-8") as page:
                page.write("<!DOCTYPE html><title>scripted report</title>"
                           + "".join(f"<p>{html.escape(r['value'])}</p>" for r in doc["results"]))
            send({"jsonrpc": "2.0", "id": ident, "result": path})
            return
        send({"jsonrpc": "2.0", "id": ident, "result": None})
        if command in ("fmplay.run", "fmplay.runAll"):
            uri = arguments[0]["uri"]
            doc = documents[uri]
            lines = [arguments[0]["line"]] if command == "fmplay.run" else playground_lines(doc["text"])
            doc["results"] = [r for line in lines for r in results_for_block(doc["text"], line)]
            blocks = [{"name": f"block {i + 1}", "line": line, "status": "done" if line in lines else "idle"}
                      for i, line in enumerate(playground_lines(doc["text"]))]
            for block in blocks:
                if block["status"] == "done":
                    block["summary"] = f"✓ {len(doc['results'])} results"
            notify("fmplay/results", {"uri": uri, "version": doc["version"], "results": doc["results"], "blocks": blocks})
        return
    if ident is not None:
        send({"jsonrpc": "2.0", "id": ident, "result": result})


def main():
    while True:
        message = read_message()
        if message is None:
            return
        handle(message)


if __name__ == "__main__":
    main()
