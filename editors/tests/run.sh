#!/bin/sh
# Editor tests, run by `make test-editors` (part of `make test`):
#   1. manifest checks of the VS Code extension and the other editors' configuration;
#   2. Neovim and Emacs plugin tests against the scripted server (editors/tests/scripted_lsp.py),
#      and their READMEs followed literally in a clean HOME (editors/tests/readme_check.py);
#   3. Neovim and Emacs end-to-end tests against the real `fmplay lsp` and the default model.
# Usage: editors/tests/run.sh FMPLAY_BINARY
# Each editor run is bounded by `timeout`; the script ends with "editors: N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
FMPLAY=${1:-.build/debug/fmplay}
# Absolute, because the editors start the server from the project root they choose.
[ -e "$FMPLAY" ] && FMPLAY="$(cd "$(dirname "$FMPLAY")" && pwd)/$(basename "$FMPLAY")"
PYTHON=${PYTHON:-python3}
STEP_TIMEOUT=${FMPLAY_EDITOR_TEST_TIMEOUT:-300}
passed=0
failed=0
failures=""

run() { # run NAME COMMAND...
  name=$1; shift
  log=$(mktemp)
  if timeout "$STEP_TIMEOUT" "$@" >"$log" 2>&1; then
    passed=$((passed + 1)); echo "ok   $name: $(grep -a -E 'PASS|OK|Ran' "$log" | tr '\n' ' ')"
  else
    failed=$((failed + 1)); failures="$failures $name"
    echo "FAIL $name (exit $?):"; sed 's/^/    /' "$log" | tail -40
  fi
  rm -f "$log"
}

nvim_test() { # nvim_test NAME SERVER_CMD FILE SETTINGS EXPECT
  run "$1" env FMPLAY_TEST_CMD="$2" FMPLAY_TEST_FILE="$3" FMPLAY_TEST_SETTINGS="$4" FMPLAY_TEST_EXPECT="$5" \
    FMPLAY_TEST_TIMEOUT="$((STEP_TIMEOUT - 20))" \
    nvim --headless -u NONE -i NONE --cmd "set rtp+=$ROOT/editors/neovim" -c "luafile $ROOT/editors/neovim/tests/e2e.lua"
}

emacs_test() { # emacs_test NAME SERVER_CMD FILE SETTINGS EXPECT
  run "$1" env FMPLAY_TEST_CMD="$2" FMPLAY_TEST_FILE="$3" FMPLAY_TEST_SETTINGS="$4" FMPLAY_TEST_EXPECT="$5" \
    FMPLAY_TEST_TIMEOUT="$((STEP_TIMEOUT - 20))" \
    emacs --batch -l "$ROOT/editors/emacs/fmplay-mode.el" -l "$ROOT/editors/emacs/tests/e2e.el"
}

run "manifests" env FMPLAY_BINARY="$FMPLAY" "$PYTHON" -m unittest discover -s editors/tests -p 'test_*.py'

# Every path handed to an editor is absolute, and every file an editor opens is a copy in a
# fresh directory outside the repository (no `.git` above it): the editors then pick that
# directory as the project root and start the server there, as for a user's own files.
SCRIPTED="$PYTHON $ROOT/editors/tests/scripted_lsp.py"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fmplay-editor-tests.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
copy() { # copy FILE NAME: a copy of FILE in its own directory under $WORK; prints its path
  mkdir -p "$WORK/$2" && cp "$1" "$WORK/$2/" && echo "$WORK/$2/$(basename "$1")"
}
FIXTURE=$(copy grammars/tests/fixtures/playground.fmplay scripted)
nvim_test "neovim plugin (scripted server)" "$SCRIPTED" "$FIXTURE" '{}' 'scripted: Suggest a trip'
emacs_test "emacs plugin (scripted server)" "$SCRIPTED" "$FIXTURE" '{}' 'scripted: Suggest a trip'
# The Neovim, Emacs and Vim+ALE READMEs followed literally in a clean HOME (in a terminal).
run "READMEs in a clean HOME (scripted server)" "$PYTHON" editors/tests/readme_check.py neovim emacs emacs-lsp-mode ale

# End to end: the real server, evaluating with the default model. Manual evaluation so the
# plugin's run command is what starts it; few tokens to stay quick.
E2E_FILE=${FMPLAY_E2E_FILE:-Examples/trip-titles.fmplay}
E2E_SETTINGS='{"evaluate":"manual","maxTokens":12,"seed":1}'
if "$FMPLAY" lsp --help >/dev/null 2>&1; then
  nvim_test "neovim end-to-end (fmplay lsp, default model)" "$FMPLAY lsp" "$E2E_FILE" "$E2E_SETTINGS" "→"
  emacs_test "emacs end-to-end (fmplay lsp, default model)" "$FMPLAY lsp" "$E2E_FILE" "$E2E_SETTINGS" "→"
else
  failed=$((failed + 1)); failures="$failures end-to-end"
  echo "FAIL end-to-end: \`$FMPLAY lsp --help\` does not run (build fmplay first: swift build --product fmplay)"
fi

echo "editors: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
