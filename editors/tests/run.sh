#!/bin/sh
# Editor tests, run by `make test-editors` (part of `make test`):
#   1. manifest checks of the VS Code extension and the other editors' configuration;
#   2. Neovim and Emacs plugin tests against the scripted server (editors/tests/scripted_lsp.py),
#      and their READMEs followed literally in a clean HOME (editors/tests/readme_check.py);
#   3. Neovim, Emacs (eglot) and Vim (ALE) end-to-end tests against the real `fmplay lsp` and
#      the default model: diagnostics, quick fix, completion, run with a streamed result,
#      hover in the client's format, cancel (and code lenses, results kept while typing).
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

nvim_test() { # nvim_test NAME SERVER_CMD FILE SETTINGS EXPECT STEPS
  run "$1" env FMPLAY_TEST_CMD="$2" FMPLAY_TEST_FILE="$3" FMPLAY_TEST_SETTINGS="$4" FMPLAY_TEST_EXPECT="$5" \
    FMPLAY_TEST_STEPS="$6" \
    FMPLAY_TEST_TIMEOUT="$((STEP_TIMEOUT - 20))" \
    nvim --headless -u NONE -i NONE --cmd "set rtp+=$ROOT/editors/neovim" -c "luafile $ROOT/editors/neovim/tests/e2e.lua"
}

emacs_test() { # emacs_test NAME SERVER_CMD FILE SETTINGS EXPECT STEPS
  run "$1" env FMPLAY_TEST_CMD="$2" FMPLAY_TEST_FILE="$3" FMPLAY_TEST_SETTINGS="$4" FMPLAY_TEST_EXPECT="$5" \
    FMPLAY_TEST_STEPS="$6" \
    FMPLAY_TEST_TIMEOUT="$((STEP_TIMEOUT - 20))" \
    emacs --batch -l "$ROOT/editors/emacs/fmplay-mode.el" -l "$ROOT/editors/emacs/tests/e2e.el"
}

vim_test() { # vim_test NAME FILE SETTINGS STEPS: Vim with ALE in a pseudo-terminal, `fmplay` on PATH
  mkdir -p "$WORK/bin" && ln -sf "$FMPLAY" "$WORK/bin/fmplay"
  run "$1" env PATH="$WORK/bin:$PATH" TERM=xterm FMPLAY_TEST_SETTINGS="$3" FMPLAY_TEST_STEPS="$4" \
    FMPLAY_TEST_TIMEOUT="$((STEP_TIMEOUT - 20))" FMPLAY_TEST_OUTPUT="$WORK/vim-outcome.txt" \
    sh -c 'script -qec "stty cols 200 rows 50; vim -N -i NONE -u \"$0\" \"$1\"" /dev/null >/dev/null 2>&1;
           cat "$FMPLAY_TEST_OUTPUT" 2>/dev/null || echo "vim e2e: FAIL vim did not reach the test"
           grep -q "PASS" "$FMPLAY_TEST_OUTPUT" 2>/dev/null' "$ROOT/editors/vim/tests/e2e.vim" "$2"
}

run "manifests" env FMPLAY_BINARY="$FMPLAY" "$PYTHON" -m unittest discover -s editors/tests -p 'test_*.py'

# Every path handed to an editor is absolute, and every file an editor opens is a copy in a
# fresh directory outside the repository (no `.git` above it): the editors then pick that
# directory as the project root and start the server there, as for a user's own files.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fmplay-editor-tests.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The scripted server writes its report page (fmplay.openReport) under TMPDIR: here, $WORK.
SCRIPTED="env TMPDIR=$WORK $PYTHON $ROOT/editors/tests/scripted_lsp.py"
copy() { # copy FILE NAME: a copy of FILE in its own directory under $WORK; prints its path
  mkdir -p "$WORK/$2" && cp "$1" "$WORK/$2/" && echo "$WORK/$2/$(basename "$1")"
}
FIXTURE=$(copy grammars/tests/fixtures/playground.fmplay scripted)
nvim_test "neovim plugin (scripted server)" "$SCRIPTED" "$FIXTURE" '{}' 'scripted: Suggest a trip' lens,run,hover,report
emacs_test "emacs plugin (scripted server)" "$SCRIPTED" "$FIXTURE" '{}' 'scripted: Suggest a trip' run,hover,report
# The Neovim, Emacs and Vim+ALE READMEs followed literally in a clean HOME (in a terminal).
run "READMEs in a clean HOME (scripted server)" "$PYTHON" editors/tests/readme_check.py neovim emacs emacs-lsp-mode ale

# End to end: the real server and the default model, on a copy of editors/tests/fixtures/e2e.fmplay
# outside the repository, each editor doing what a user does (the steps are listed at the top
# of each test file). Manual evaluation so the run command is what starts it; few tokens.
E2E_SETTINGS='{"evaluate":"manual","maxTokens":12,"seed":1}'
if "$FMPLAY" lsp --help >/dev/null 2>&1; then
  nvim_test "neovim end-to-end (fmplay lsp, default model)" "$FMPLAY lsp" "$(copy editors/tests/fixtures/e2e.fmplay nvim)" \
    "$E2E_SETTINGS" "→" diagnostics,quickfix,lens,completion,run,stream,hover,report,keep,cancel
  emacs_test "emacs eglot end-to-end (fmplay lsp, default model)" "$FMPLAY lsp" "$(copy editors/tests/fixtures/e2e.fmplay emacs)" \
    "$E2E_SETTINGS" "→" diagnostics,quickfix,completion,run,stream,hover,report,keep,cancel
  vim_test "vim ALE end-to-end (fmplay lsp, default model)" "$(copy editors/tests/fixtures/e2e.fmplay vim)" \
    "$E2E_SETTINGS" diagnostics,quickfix,completion,run,stream,hover,cancel
else
  failed=$((failed + 1)); failures="$failures end-to-end"
  echo "FAIL end-to-end: \`$FMPLAY lsp --help\` does not run (build fmplay first: swift build --product fmplay)"
fi

echo "editors: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "failed:$failures"; exit 1; }
