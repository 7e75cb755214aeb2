#!/usr/bin/env python3
"""Follow the Neovim, Emacs and Vim (vim-lsp, ALE) READMEs literally in a clean HOME.

For each editor the configuration block of its README is written, unchanged except for
`/path/to/fmplay` -> this repository, to the file the README names (~/.config/nvim/init.lua,
~/.emacs.d/init.el, ~/.vimrc). `fmplay` on PATH is a stand-in that runs the scripted server
(or, with --server, the given fmplay binary). The editor then starts as a user would start it
(Neovim and Vim in a pseudo-terminal, so their normal start-up runs; Emacs in a terminal too,
so `eglot-ensure` connects after the first command) and a timer checks: filetype, server
attached, the run command, and the result drawn after its call.

Usage: readme_check.py [--server FMPLAY] [--vim-lsp DIR] [neovim|emacs|emacs-lsp-mode|vim|ale ...]
Prints one line per editor and exits non-zero if any check failed.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDITORS = os.path.join(ROOT, "editors")
FIXTURE = os.path.join(ROOT, "grammars", "tests", "fixtures", "playground.fmplay")
TIMEOUT = 90
# Beyond filetype, client and a result shown: what each README's set-up must give a user.
EXPECTED = {
    "neovim": ("lens=true", "completion=v:lua.vim.lsp.omnifunc"),
    "emacs-lsp-mode": ("lens=true",),
    "ale": ("completion=ale#completion#OmniFunc",),
    "vim": ("completion=lsp#complete",),
}


def readme_block(page: str, language: str) -> str:
    """The first ```language block of editors/PAGE, with /path/to/fmplay -> this repository."""
    with open(os.path.join(EDITORS, page), encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(rf"```{language}\n(.*?)```", text, re.S)
    if not match:
        raise SystemExit(f"editors/{page} has no ```{language} block")
    return match.group(1).replace("/path/to/fmplay", ROOT)


def write(path: str, text: str, executable: bool = False) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    if executable:
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def environment(home: str, server: str | None) -> dict[str, str]:
    bin_dir = os.path.join(home, "bin")
    if server:
        os.makedirs(bin_dir, exist_ok=True)
        os.symlink(os.path.abspath(server), os.path.join(bin_dir, "fmplay"))
    else:
        write(os.path.join(bin_dir, "fmplay"),
              "#!/bin/sh\n[ \"$1\" = lsp ] && exec " + sys.executable + " "
              + os.path.join(EDITORS, "tests", "scripted_lsp.py") + "\nexit 2\n", executable=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "VIM", "EMACS"))}
    env.update(HOME=home, PATH=bin_dir + os.pathsep + env.get("PATH", ""), TERM="xterm")
    return env


def in_terminal(command: str, env: dict[str, str], cwd: str, keys: tuple[bytes, ...] = ()) -> None:
    """Run an interactive editor in a pseudo-terminal (util-linux `script`), typing each of
    `keys` 3 seconds after the previous one (the first after start-up has visited the file)."""
    process = subprocess.Popen(["script", "-qec", f"stty cols 200 rows 50; {command}", "/dev/null"],
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=env, cwd=cwd)
    try:
        for key in keys:
            time.sleep(3)
            process.stdin.write(key)
            process.stdin.flush()
        process.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def check_neovim(home: str, env: dict[str, str], work: str) -> str:
    write(os.path.join(home, ".config", "nvim", "init.lua"), readme_block("neovim/README.md", "lua"))
    result = os.path.join(work, "nvim-result.txt")
    write(os.path.join(work, "check.lua"), f"""
local out = {{}}
local function log(s) table.insert(out, s) vim.fn.writefile(out, {result!r}) end
log('filetype=' .. vim.bo.filetype)
local ok = vim.wait(20000, function() return #vim.lsp.get_active_clients() > 0 and vim.lsp.get_active_clients()[1].initialized end, 100)
log('client=' .. tostring(ok))
-- The code lenses of the first buffer opened (Neovim 0.7 lost them when a refresh ran
-- before the client was initialized, with an error message at start-up).
local lens = vim.wait(10000, function() return #vim.lsp.codelens.get(0) > 0 end, 100)
log('lens=' .. tostring(lens))
log('completion=' .. vim.bo.omnifunc)
vim.api.nvim_win_set_cursor(0, {{20, 0}})
vim.cmd('FmplayRun')
local shown = ''
vim.wait(20000, function()
  for _, m in ipairs(require('fmplay').virtual_texts(0)) do shown = m.text; return true end
  return false
end, 100)
log('shown=' .. shown)
local errors = {{}}
for _, line in ipairs(vim.split(vim.fn.execute('messages'), '\\n')) do
  if line:match('[Ee]rror') or line:match('not supported') or line:match('^E%d+') then table.insert(errors, line) end
end
log('errors=' .. table.concat(errors, ' | '))
vim.cmd('qall!')
""")
    in_terminal(f"nvim -c 'lua vim.defer_fn(function() vim.cmd(\"luafile {work}/check.lua\") end, 200)' p.fmplay",
                env, work)
    return read_result(result)


def check_emacs(home: str, env: dict[str, str], work: str, lsp_mode: bool = False) -> str:
    page = "emacs/lsp-mode.md" if lsp_mode else "emacs/README.md"
    write(os.path.join(home, ".emacs.d", "init.el"), readme_block(page, "elisp"))
    result = os.path.join(work, "emacs-result.txt")
    write(os.path.join(work, "check.el"), f"""
(defun readme-check--log (s) (write-region (concat s "\\n") nil {json.dumps(result)} t))
(defun readme-check--wait (seconds predicate)
  (let ((deadline (+ (float-time) seconds)) value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    value))
(defun readme-check--client ()
  (if (fboundp 'lsp-workspaces) (lsp-workspaces) (eglot-current-server)))
(defun readme-check ()
  (readme-check--log (format "filetype=%s" major-mode))
  (readme-check--log (format "client=%s" (if (readme-check--wait 20 #'readme-check--client) "true" "false")))
  (when (fboundp 'lsp-workspaces)
    ;; lsp-mode draws the server's code lenses (its own default, `lsp-lens-enable', is off).
    (readme-check--log (format "lens=%s" (if (readme-check--wait 20 (lambda () (bound-and-true-p lsp-lens--overlays))) "true" "false"))))
  (goto-char (point-min)) (forward-line 19)
  (fmplay-run)
  (readme-check--log (format "shown=%s" (or (cdar (readme-check--wait 20 #'fmplay-result-texts)) "")))
  (kill-emacs 0))
(run-with-timer {12 if lsp_mode else 6} nil #'readme-check)
""")
    # The key press (C-l, recenter) is the first command, after which `eglot-ensure' connects
    # and `lsp-deferred' starts; lsp-mode then asks for the project root: "i" imports it.
    in_terminal(f"emacs -nw -l {work}/check.el p.fmplay", env, work,
                keys=(b"\x0c", b"i") if lsp_mode else (b"\x0c",))
    return read_result(result)


def check_vim(home: str, env: dict[str, str], work: str, vim_lsp: str) -> str:
    write(os.path.join(home, ".vimrc"), readme_block("vim/vim-lsp.md", "vim"))
    shutil.copytree(vim_lsp, os.path.join(home, ".vim", "pack", "plugins", "start", "vim-lsp"))
    result = os.path.join(work, "vim-result.txt")
    write(os.path.join(work, "check.vim"), f"""
let s:out = []
function! s:log(msg) abort
  call add(s:out, a:msg)
  call writefile(s:out, {result!r})
endfunction
call s:log('filetype=' . &filetype)
let s:i = 0
while s:i < 200 && lsp#get_server_status('fmplay') !=# 'running'
  sleep 100m
  let s:i += 1
endwhile
call s:log('client=' . (lsp#get_server_status('fmplay') ==# 'running' ? 'true' : 'false'))
sleep 500m
call s:log('completion=' . &omnifunc)
FmplayRunAll
let s:i = 0
function! s:shown() abort
  return !empty(filter(prop_list(26), {{_, p -> p.type ==# 'fmplay_result'}}))
endfunction
while s:i < 200 && !s:shown()
  sleep 100m
  let s:i += 1
endwhile
call s:log('shown=' . (s:shown() ? 'text property after line 26' : ''))
qall!
""")
    in_terminal(f"vim -N -i NONE -c 'call timer_start(300, {{-> execute(\"source {work}/check.vim\")}})' p.fmplay",
                env, work)
    return read_result(result)


def check_ale(home: str, env: dict[str, str], work: str) -> str:
    write(os.path.join(home, ".vimrc"), readme_block("vim/ale.md", "vim"))
    with open(os.path.join(work, "p.fmplay"), "a", encoding="utf-8") as handle:
        handle.write("\nstruct Legacy: Tool {\n    func call(arguments: Arguments) async throws -> ToolOutput { }\n}\n")
    result = os.path.join(work, "ale-result.txt")
    write(os.path.join(work, "check.vim"), f"""
let s:out = []
function! s:log(msg) abort
  call add(s:out, a:msg)
  call writefile(s:out, {result!r})
endfunction
call s:log('filetype=' . &filetype)
let s:i = 0
while s:i < 200 && empty(ale#engine#GetLoclist(bufnr('%')))
  sleep 100m
  let s:i += 1
endwhile
let s:list = ale#engine#GetLoclist(bufnr('%'))
call s:log('client=' . (empty(s:list) ? 'false' : 'true'))
call s:log('completion=' . &omnifunc)
call s:log('shown=' . (empty(s:list) ? '' : s:list[0].lnum . ': ' . s:list[0].text))
qall!
""")
    in_terminal(f"vim -N -i NONE -c 'call timer_start(300, {{-> execute(\"source {work}/check.vim\")}})' p.fmplay",
                env, work)
    return read_result(result)


def read_result(path: str) -> str:
    if not os.path.exists(path):
        return "no result (the editor did not reach the check)"
    with open(path, encoding="utf-8") as handle:
        return " ".join(handle.read().split("\n")).strip()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", help="a real fmplay binary (default: a stand-in running the scripted server)")
    parser.add_argument("--vim-lsp", help="a vim-lsp checkout (the Vim check needs it)")
    parser.add_argument("editors", nargs="*", default=["neovim", "emacs"])
    args = parser.parse_args()
    failures = 0
    for editor in args.editors:
        with tempfile.TemporaryDirectory(prefix=f"fmplay-readme-{editor}-", ignore_cleanup_errors=True) as home:
            work = os.path.join(home, "work")
            os.makedirs(work)
            shutil.copy(FIXTURE, os.path.join(work, "p.fmplay"))
            env = environment(home, args.server)
            if editor == "neovim":
                outcome = check_neovim(home, env, work)
            elif editor == "emacs":
                outcome = check_emacs(home, env, work)
            elif editor == "emacs-lsp-mode":
                outcome = check_emacs(home, env, work, lsp_mode=True)
            elif editor == "ale":
                outcome = check_ale(home, env, work)
            elif editor == "vim":
                if not args.vim_lsp:
                    raise SystemExit("the vim check needs --vim-lsp DIR")
                outcome = check_vim(home, env, work, args.vim_lsp)
            else:
                raise SystemExit(f"unknown editor {editor}")
        ok = ("filetype=fmplay" in outcome and "client=true" in outcome and re.search(r"shown=\S", outcome)
              and all(part in outcome for part in EXPECTED.get(editor, ()))
              and not re.search(r"errors=\S", outcome))
        failures += 0 if ok else 1
        print(f"README {editor}: {'PASS' if ok else 'FAIL'} {outcome}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
