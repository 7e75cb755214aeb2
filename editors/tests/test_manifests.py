"""Checks of the editor packages that need no editor: the VS Code manifest against the
grammar, its TypeScript source and the language server's commands and settings; the Helix,
coc.nvim and Zed configuration; the Vim snippets; the Neovim commands; the Emacs mode's
byte-compilation.

Run: python3 -m unittest discover -s editors/tests -p 'test_*.py'
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EDITORS = os.path.join(ROOT, "editors")
VSCODE = os.path.join(EDITORS, "vscode")
SERVER_SOURCES = os.path.join(ROOT, "Sources", "LanguageServer")
try:
    import tree_sitter
    import tree_sitter_swift
    # One Language for the whole process: freeing and re-creating it corrupts memory in
    # py-tree-sitter 0.26 (seen as a segfault in a later, unrelated test).
    SWIFT = tree_sitter.Language(tree_sitter_swift.language())
except ImportError:
    SWIFT = None
SERVER_COMMANDS = ["fmplay.run", "fmplay.runAll", "fmplay.cancel", "fmplay.clearCache", "fmplay.openReport"]


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def server_source() -> str:
    return "\n".join(read(path) for path in glob.glob(os.path.join(SERVER_SOURCES, "**", "*.swift"), recursive=True))


def ts_record(source: str, name: str) -> dict[str, str]:
    """The string-to-string entries of `export const NAME: Record<string, string> = {...}`."""
    match = re.search(rf"const {name}: Record<string, string> = \{{(.*?)\n\}};", source, re.S)
    if not match:
        raise AssertionError(f"extension.ts has no {name} table")
    return dict(re.findall(r'"?([\w.]+)"?:\s*"([\w.]+)"', match.group(1)))


class VSCodeExtension(unittest.TestCase):
    manifest = json.loads(read(os.path.join(VSCODE, "package.json")))
    source = read(os.path.join(VSCODE, "src", "extension.ts"))

    def test_language_and_grammar(self):
        contributes = self.manifest["contributes"]
        language = contributes["languages"][0]
        self.assertEqual("fmplay", language["id"])
        self.assertEqual([".fmplay"], language["extensions"])
        json.loads(read(os.path.join(VSCODE, language["configuration"])))
        grammar = contributes["grammars"][0]
        self.assertEqual("fmplay", grammar["language"])
        path = os.path.join(VSCODE, grammar["path"])
        self.assertTrue(os.path.exists(path), f"grammar {grammar['path']} does not exist")
        self.assertEqual(grammar["scopeName"], json.loads(read(path))["scopeName"])
        self.assertEqual(os.path.realpath(os.path.join(ROOT, "grammars", "fmplay.tmLanguage.json")),
                         os.path.realpath(path), "the extension must ship the grammar of grammars/")
        self.assertIn("onLanguage:fmplay", self.manifest["activationEvents"])

    def test_entry_point_matches_tsconfig(self):
        tsconfig = json.loads(read(os.path.join(VSCODE, "tsconfig.json")))["compilerOptions"]
        self.assertEqual(f"./{tsconfig['outDir']}/extension.js", self.manifest["main"])
        self.assertTrue(os.path.exists(os.path.join(VSCODE, tsconfig["rootDir"], "extension.ts")))
        self.assertIn("vscode-languageclient", self.manifest["dependencies"])
        self.assertIn('from "vscode-languageclient/node"', self.source)
        self.assertIn('args: ["lsp"]', self.source)

    def test_extension_type_checks(self):
        """`tsc` (Debian's node-typescript, installed by `make setup`) checks src/ against the
        API declarations in types/ (tsconfig.check.json); no npm packages are needed."""
        tsc = shutil.which("tsc")
        self.assertIsNotNone(tsc, "tsc is not installed: run `make setup` (Debian package node-typescript)")
        check = subprocess.run([tsc, "-p", os.path.join(VSCODE, "tsconfig.check.json")],
                               capture_output=True, text=True, timeout=180)
        self.assertEqual(0, check.returncode, f"the extension does not type-check:\n{check.stdout}{check.stderr}")

    def test_every_contributed_command_is_implemented_and_maps_to_a_server_command(self):
        contributed = [c["command"] for c in self.manifest["contributes"]["commands"]]
        titles = {c["title"] for c in self.manifest["contributes"]["commands"]}
        self.assertEqual({"Run Block", "Run File", "Cancel", "Clear Cache", "Open Report"}, titles)
        mapping = ts_record(self.source, "SERVER_COMMANDS")
        self.assertEqual(sorted(contributed), sorted(mapping))
        self.assertEqual(sorted(SERVER_COMMANDS), sorted(mapping.values()))
        for command in contributed:
            self.assertIn(f'registerCommand("{command}"', self.source, f"{command} is never registered")
            self.assertNotIn(command, SERVER_COMMANDS, "client ids must differ from the server's "
                             "(vscode-languageclient registers the server's own commands)")
        for menu in self.manifest["contributes"]["menus"].values():
            for item in menu:
                self.assertIn(item["command"], contributed)
        for binding in self.manifest["contributes"]["keybindings"]:
            self.assertIn(binding["command"], contributed)
        self.assertIn(self.source.split('statusItem.command = "')[1].split('"')[0], contributed)

    def test_settings_map_to_server_keys(self):
        properties = self.manifest["contributes"]["configuration"]["properties"]
        client_only = {"fmplay.server.path", "fmplay.trace.server"}
        mapping = ts_record(self.source, "SERVER_SETTINGS")
        self.assertEqual(sorted(k.removeprefix("fmplay.") for k in properties if k not in client_only),
                         sorted(mapping))
        self.assertEqual(["onChange", "onSave", "manual"].sort(), properties["fmplay.evaluate"]["enum"].sort())

    def test_server_knows_the_commands_and_settings(self):
        source = server_source()
        if "fmplay.runAll" not in source:
            self.skipTest("the language server (Sources/LanguageServer) does not define its commands yet")
        for command in SERVER_COMMANDS:
            self.assertIn(f'"{command}"', source, f"the server does not implement {command}")
        for key in ts_record(self.source, "SERVER_SETTINGS").values():
            self.assertIn(f'"{key}"', source, f"the server does not read the setting {key}")


class OtherEditors(unittest.TestCase):
    def test_helix_languages_toml(self):
        config = tomllib.loads(read(os.path.join(EDITORS, "helix", "languages.toml")))
        language = config["language"][0]
        self.assertEqual("fmplay", language["name"])
        self.assertEqual(["fmplay"], language["file-types"])
        self.assertEqual("swift", language["grammar"])
        self.assertEqual(["fmplay"], language["language-servers"])
        server = config["language-server"]["fmplay"]
        self.assertEqual(("fmplay", ["lsp"]), (server["command"], server["args"]))

    def test_coc_settings(self):
        server = json.loads(read(os.path.join(EDITORS, "vim", "coc-settings.json")))["languageserver"]["fmplay"]
        self.assertEqual(("fmplay", ["lsp"], ["fmplay"]), (server["command"], server["args"], server["filetypes"]))

    def test_zed_extension(self):
        extension = tomllib.loads(read(os.path.join(EDITORS, "zed", "extension.toml")))
        self.assertIn("fmplay", extension["language_servers"])
        self.assertRegex(extension["grammars"]["swift"]["commit"], r"^[0-9a-f]{40}$")
        language = tomllib.loads(read(os.path.join(EDITORS, "zed", "languages", "fmplay", "config.toml")))
        self.assertEqual(("fmplay", "swift", ["fmplay"]), (language["name"], language["grammar"], language["path_suffixes"]))
        self.assertIn('args: vec!["lsp".into()]', read(os.path.join(EDITORS, "zed", "src", "lib.rs")))

    def test_zed_queries_are_generated_from_grammars(self):
        def without_inherits(name):
            return "".join(line for line in read(os.path.join(ROOT, "grammars", "tree-sitter", name)).splitlines(True)
                           if not line.startswith("; inherits:"))
        zed = os.path.join(EDITORS, "zed", "languages", "fmplay")
        self.assertEqual(read(os.path.join(EDITORS, "zed", "swift-base.scm")) + without_inherits("highlights.scm"),
                         read(os.path.join(zed, "highlights.scm")), "run `make zed-queries`")
        self.assertEqual(without_inherits("injections.scm"), read(os.path.join(zed, "injections.scm")),
                         "run `make zed-queries`")
        if SWIFT is None:
            self.skipTest("tree-sitter-swift is not installed (make setup)")
        for name in ("highlights.scm", "injections.scm"):
            tree_sitter.Query(SWIFT, read(os.path.join(zed, name)))

    @unittest.skipUnless(shutil.which("vim"), "vim is not installed")
    def test_vim_snippets_parse(self):
        # Sourcing defines functions, commands and autocommands only; the plugin calls
        # (lsp#..., ale#...) run later, so any error here is a syntax error in our files.
        for name in ("plugin/fmplay-vim-lsp.vim", "ftdetect/fmplay.vim", "syntax/fmplay.vim"):
            path = os.path.join(EDITORS, "vim", name)
            result = subprocess.run(["vim", "-u", "NONE", "-i", "NONE", "-N", "-es", "-c", f"source {path}",
                                     "-c", "qall!"], capture_output=True, text=True, timeout=30)
            self.assertEqual(0, result.returncode, f"{name}: {result.stdout}{result.stderr}")
        result = subprocess.run(
            ["vim", "-u", "NONE", "-i", "NONE", "-N", "-es", "-c", f"source {os.path.join(EDITORS, 'vim', 'plugin', 'fmplay-vim-lsp.vim')}",
             "-c", "if exists(':FmplayRun') && exists(':FmplayRunAll') && exists(':FmplayCancel') && exists(':FmplayHover') | qall! | else | cquit | endif"],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(0, result.returncode, "vim-lsp snippet does not define the :Fmplay commands")


class LspHelp(unittest.TestCase):
    help_source = read(os.path.join(ROOT, "Sources", "FMPlayCommands", "EditorSetupHelp.swift"))

    def test_help_names_every_editor_and_existing_paths(self):
        for editor in ("Neovim", "Emacs", "VS Code", "Vim", "Helix", "Zed"):
            self.assertIn(editor, self.help_source)
        paths = re.findall(r"<repo>/([\w./*-]+)", self.help_source)
        self.assertGreater(len(paths), 6)
        for path in paths:
            path = path.rstrip(".,;)")
            self.assertTrue(glob.glob(os.path.join(ROOT, path)), f"fmplay lsp --help names {path}, which does not exist")

    def test_help_lines_fit_the_help_width(self):
        text = self.help_source.split('"""')[1]
        for line in text.splitlines():
            self.assertLessEqual(len(line.strip("\n")) - 4, 78, f"too long for --help (it wraps): {line!r}")

    def test_help_is_printed_by_fmplay_lsp(self):
        binary = os.environ.get("FMPLAY_BINARY")
        if not binary or not os.path.exists(binary):
            self.skipTest("FMPLAY_BINARY is not set to a built fmplay")
        result = subprocess.run([binary, "lsp", "--help"], capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            self.skipTest("this fmplay has no lsp subcommand yet")
        self.assertIn("EDITOR SET-UP", result.stdout,
                      "fmplay lsp --help must print the editor set-up: give the lsp command "
                      "`discussion: EditorSetupHelp.text` (Sources/FMPlayCommands/EditorSetupHelp.swift)")


class NeovimAndEmacs(unittest.TestCase):
    @unittest.skipUnless(shutil.which("nvim"), "nvim is not installed")
    def test_neovim_commands_and_filetype(self):
        check = ("lua require('fmplay').setup{cmd={'true'}} "
                 "for _, c in ipairs({'FmplayRun','FmplayRunAll','FmplayCancel','FmplayHover','FmplayClearCache','FmplayReport'}) do "
                 "if vim.fn.exists(':' .. c) ~= 2 then vim.cmd('cquit 3') end end")
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "a.fmplay")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("#Playground {\n}\n")
            result = subprocess.run(
                ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "--cmd", f"set rtp+={os.path.join(EDITORS, 'neovim')}",
                 "-c", check, "-c", f"edit {path}", "-c", "if &filetype !=# 'fmplay' | cquit 4 | endif", "-c", "qall!"],
                capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stdout + result.stderr)

    @unittest.skipUnless(shutil.which("emacs"), "emacs is not installed")
    def test_emacs_mode_byte_compiles_cleanly(self):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "fmplay-mode.el")
            shutil.copy(os.path.join(EDITORS, "emacs", "fmplay-mode.el"), source)
            result = subprocess.run(
                ["emacs", "--batch", "--eval", "(setq byte-compile-error-on-warn t)",
                 "-f", "batch-byte-compile", source], capture_output=True, text=True, timeout=120)
        self.assertEqual(0, result.returncode, result.stderr)

    @unittest.skipUnless(shutil.which("emacs"), "emacs is not installed")
    def test_emacs_mode_is_chosen_for_fmplay_files(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "a.fmplay")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("#Playground {\n}\n")
            result = subprocess.run(
                ["emacs", "--batch", "-l", os.path.join(EDITORS, "emacs", "fmplay-mode.el"), path, "--eval",
                 "(kill-emacs (if (and (eq major-mode 'fmplay-mode) (derived-mode-p 'prog-mode)"
                 " (commandp 'fmplay-run) (commandp 'fmplay-cancel) (commandp 'fmplay-run-all) (commandp 'fmplay-report)) 0 1))"],
                capture_output=True, text=True, timeout=60)
        self.assertEqual(0, result.returncode, result.stderr)


if __name__ == "__main__":
    unittest.main()
