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
link=""
if [ "$(uname -m)" = x86_64 ]; then
    # The AVX-512 kernel module, with its own flags (Package.swift, avx512Flags).
    swiftc -Ounchecked -wmo -enable-builtin-module -Xcc -march=x86-64-v4 -Xcc -mavx512vnni -parse-as-library \
        -module-name KernelsAVX512 -emit-library -static -emit-module -emit-module-path "$out/KernelsAVX512.swiftmodule" \
        "$root"/Sources/KernelsAVX512/*.swift -o "$out/libKernelsAVX512.a"
    link="-I $out -L $out -lKernelsAVX512"
fi
swiftc $flags $link -module-name KernelBench "$root"/Sources/Kernels/*.swift "$root"/Benchmarks/KernelBench/main.swift -o "$out/KernelBench"
exec "$out/KernelBench" "$@"
