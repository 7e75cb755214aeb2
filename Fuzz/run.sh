#!/bin/sh
# Builds the GGUF reader with libFuzzer and AddressSanitizer and fuzzes it
# for a bounded time (default 60 s), starting from a corpus of small valid
# files written by the tests' GGUFWriter fixture and the real model's header.
#
#   Fuzz/run.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${1:-60}
OUT=.build/fuzz
mkdir -p "$OUT/corpus"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name GGUF \
    Sources/GGUF/*.swift Fuzz/GGUFFuzzer.swift -o "$OUT/gguf-fuzzer"
if [ -z "$(ls -A "$OUT/corpus")" ]; then
    swiftc -parse-as-library -O -module-name GGUF Sources/GGUF/*.swift Fuzz/SeedCorpus.swift -o "$OUT/seed-corpus"
    "$OUT/seed-corpus" "$OUT/corpus"
fi
exec "$OUT/gguf-fuzzer" -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=10 "$OUT/corpus"
