#!/usr/bin/env bash
# Engine speed against llama.cpp, side by side in one run (issue 20): both models,
# 1 and 2 threads, idle and with a CPU-bound neighbour process; fmplay bench and
# llama.cpp (through llama-cpp-python, timed as llama-bench does) alternate round by
# round, and every pair's ratio is printed. Options: see
#   Benchmarks/llamacpp_side_by_side.py --help
# e.g. --models smollm2 --threads-list 2 --loads loaded --rounds 3 --markdown table.md
# Needs `make setup` (models), llama-cpp-python==0.3.36 (pip) and a built fmplay
# (FMPLAY=path, else the debug build: its engine targets are optimized anyway).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${FMPLAY:-}" ]; then
    swift build --product fmplay >&2
    FMPLAY="$(swift build --show-bin-path)/fmplay"
fi
exec "${PYTHON:-python3}" Benchmarks/llamacpp_side_by_side.py --fmplay "$FMPLAY" "$@"
