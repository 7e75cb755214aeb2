#!/bin/sh
# Tokenizer speed: vocabulary load time and tokenization of a ~32 KB prompt,
# for the default model and (when assembled) Gemma 3 270M. Uses
# `fmplay tokenize --timings` from a release build. Targets: vocabulary load
# under 50 ms for SmolLM2's 49k tokens; a few ms for a long prompt.
#
#   Benchmarks/tokenizer.sh [REPS]
set -eu
cd "$(dirname "$0")/.."
REPS=${1:-3}
swift build -c release --product fmplay >/dev/null
FMPLAY=.build/release/fmplay
PROMPT=$(mktemp)
trap 'rm -f "$PROMPT"' EXIT
python3 - "$PROMPT" <<'PY'
import sys
unit = ("The quick brown fox jumps over the lazy dog. It's 2024-01-15T10:30:00Z; "
        "for (int i = 0; i < 10; ++i) { printf(\"%d\\n\", i); } {\"searchTerms\": [\"a\", \"b\"], \"n\": 4} "
        "Ünïcödé façade 你好，世界！\n")
open(sys.argv[1], "w").write(unit * (32000 // len(unit.encode())))
PY
for model in "" "${FMPLAY_GEMMA3_MODEL:-$HOME/.cache/fmplay/models/gemma-3-270m-q4_k_m.gguf}"; do
    if [ -n "$model" ] && [ ! -f "$model" ]; then continue; fi
    echo "model: ${model:-default (SmolLM2)}"
    i=0
    while [ "$i" -lt "$REPS" ]; do
        if [ -n "$model" ]; then
            "$FMPLAY" tokenize --timings --model "$model" --file "$PROMPT" >/dev/null
        else
            "$FMPLAY" tokenize --timings --file "$PROMPT" >/dev/null
        fi
        i=$((i + 1))
    done
done
