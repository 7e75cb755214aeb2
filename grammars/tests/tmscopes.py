"""Tokenize .fmplay files with the TextMate grammar and render their scopes.

The tokenizer is babi's (PyPI `babi`): a line-based TextMate engine over
Oniguruma (`onigurumacffi`), the regex engine VS Code's vscode-textmate uses.

Usage: python3 grammars/tests/tmscopes.py FILE.fmplay   (prints the scope listing)
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile

GRAMMAR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                       "fmplay.tmLanguage.json")
SCOPE = "source.fmplay"

try:
    from babi.highlight import Grammars, highlight_line
except ImportError as error:  # pragma: no cover - environment problem, not a test result
    raise SystemExit(
        f"{error}: the grammar tests need the TextMate tokenizer from PyPI; "
        "run `make setup` or `python3 -m pip install babi`") from error


def load_compiler(grammar_path: str = GRAMMAR):
    """babi finds grammars by file name `<scopeName>.json`; stage a copy under that name."""
    directory = tempfile.mkdtemp(prefix="fmplay-grammar-")
    shutil.copy(grammar_path, os.path.join(directory, SCOPE + ".json"))
    grammars = Grammars(directory)
    compiler = grammars.compiler_for_scope(SCOPE)
    shutil.rmtree(directory)
    return compiler


def tokenize(compiler, text: str):
    """Yield (line_number, line_text, [(start, end, scopes)]) with adjacent equal scopes merged."""
    state = compiler.root_state
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for index, line in enumerate(lines):
        state, regions = highlight_line(compiler, state, line + "\n", first_line=index == 0)
        merged: list[list] = []
        for region in regions:
            start, end = region.start, min(region.end, len(line))
            if start >= end:
                continue
            if merged and merged[-1][2] == region.scope and merged[-1][1] == start:
                merged[-1][1] = end
            else:
                merged.append([start, end, region.scope])
        yield index + 1, line, [(s, e, scope) for s, e, scope in merged]


def render(compiler, text: str) -> str:
    """One block per source line: the line, then each non-blank token with its scopes."""
    out = []
    for number, line, tokens in tokenize(compiler, text):
        out.append(f"{number}: {line}")
        for start, end, scopes in tokens:
            piece = line[start:end]
            if not piece.strip():
                continue
            out.append(f"    {piece.strip()!r} {' '.join(scopes)}")
    return "\n".join(out) + "\n"


def scopes_of(compiler, text: str, needle: str, occurrence: int = 1):
    """The scopes of the token(s) covering the `occurrence`-th `needle` in `text`."""
    # An identifier-like needle matches whole words only ("n" is not the n in "Line").
    pattern = re.escape(needle)
    if re.fullmatch(r"\w+", needle):
        pattern = rf"\b{pattern}\b"
    matches = list(re.finditer(pattern, text))
    if len(matches) < occurrence:
        raise AssertionError(f"{needle!r} occurs {len(matches)} times, wanted occurrence {occurrence}")
    offset = matches[occurrence - 1].start()
    line_start = text.rfind("\n", 0, offset) + 1
    line_number = text.count("\n", 0, offset) + 1
    column = offset - line_start
    for number, _line, tokens in tokenize(compiler, text):
        if number != line_number:
            continue
        found = [scopes for start, end, scopes in tokens if start < column + len(needle) and end > column]
        if len({tuple(s) for s in found}) != 1:
            raise AssertionError(f"{needle!r} spans several tokens: {found}")
        return found[0]
    raise AssertionError(f"{needle!r} not tokenized")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: tmscopes.py FILE.fmplay")
    with open(sys.argv[1], encoding="utf-8") as handle:
        sys.stdout.write(render(load_compiler(), handle.read()))
