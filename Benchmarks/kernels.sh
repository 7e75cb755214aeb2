#!/bin/sh
# Kernel microbenchmark. Compiles Sources/Kernels with the package's release
# flags together with Benchmarks/KernelBench into one executable and runs it.
# Usage: Benchmarks/kernels.sh [--threads N] [--tokens N] [--q8|--q4k|--q5|--gemma] [--only SHAPE] [--no-matmul]
#                              [--row-major | --interleave-all] [--llamacpp] [--cold]
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/.build/kernel-bench"
mkdir -p "$out"
flags="-Ounchecked -wmo -enable-builtin-module"
[ "$(uname -m)" = x86_64 ] && flags="$flags -Xcc -march=x86-64-v3"
swiftc $flags -module-name KernelBench "$root"/Sources/Kernels/*.swift "$root"/Benchmarks/KernelBench/main.swift -o "$out/KernelBench"
exec "$out/KernelBench" "$@"
