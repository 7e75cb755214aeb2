#!/usr/bin/env python3
"""Regenerates Tests/EngineTests/TokenizerPreTokenizerGolden.swift: llama.cpp's
token ids for tricky strings under the llama-bpe, qwen2, gpt-2 and default
pre-tokenizers (SmolLM2's vocabulary and merges with tokenizer.ggml.pre changed).

  PRETOKENIZER_VARIANTS_DIR=$DIR swift test --filter TokenizerPreTokenizerTests   # writes the variant GGUFs
  pip install llama-cpp-python==0.3.36   # outside the repository
  python3 scripts/tokenizer-reference.py $DIR > $DIR/ref.json
Then paste ref.json into the Swift file (one pre-tokenizer per line)."""
import json
import sys

import llama_cpp

from_dir = sys.argv[1]
TEXTS = [
    "Hello world", " Hello  world  ", "I'M SURE YOU'LL SEE THEY'VE DONE IT", "it's 'S 'll 'Ll x'RE",
    "1234567 89 0", "x²³ ٣٤٥ ½ 12345678901", "a\n\n b", "  \n  x", "a\r\nb\r\n\r\n", "\t\tindent\ttabs",
    "trailing   ", "!!\n\nx", "foo!!!bar...baz???", "$+<=>^~| a$b", "emoji 😀👍🏽 ok", "你好，世界！ 日本語",
    "snake_case kebab-case CamelCase", "  leading", "a  b   c    d", "line1\nline2\n\n\nline3",
    "price: $1,234.56 (approx.)", "Ünïcödé façade", "\u00a0nbsp\u2003em", "tab\t\nnl", "x\n\n\n\n",
    "don't can't won't", "{\"a\": [1, 2]}", "https://a.b/c?d=e&f", "---\n***\n", "...", "",
]
out = {}
for pre in ["llama-bpe", "qwen2", "gpt-2", "default"]:
    model = llama_cpp.Llama(model_path=f"{from_dir}/vocab-{pre}.gguf", vocab_only=True, verbose=False)
    out[pre] = [{"text": t, "ids": model.tokenize(t.encode(), add_bos=False, special=True)} for t in TEXTS]
json.dump(out, sys.stdout, ensure_ascii=False)
