/// Every editor's set-up in a few lines, for `fmplay lsp --help` (the long form, with file
/// paths and what is tested, is editors/README.md and the README in each editors/<name>/).
enum EditorSetupHelp {
    static let text = """
    EDITOR SET-UP (replace <repo> with this repository; `fmplay` must be on PATH)
      Neovim 0.7+  init.lua: vim.opt.runtimepath:append("<repo>/editors/neovim")
                             require("fmplay").setup({ settings = { evaluate = "onSave" } })
                   :FmplayRun :FmplayRunAll :FmplayCancel :FmplayHover; results as virtual text
      Emacs        init.el:  (add-to-list 'load-path "<repo>/editors/emacs")
                             (require 'fmplay-mode) (add-hook 'fmplay-mode-hook #'eglot-ensure)
                   C-c C-c run block, C-c C-a run all, C-c C-k cancel; results as overlays
                   (Emacs 28: apt-get install elpa-eglot; lsp-mode: use #'lsp-deferred)
      VS Code      cd <repo>/editors/vscode && npm install && npx vsce package,
                   then code --install-extension fmplay-0.1.0.vsix
      Vim          vim-lsp: set runtimepath+=<repo>/editors/vim
                   coc.nvim: merge <repo>/editors/vim/coc-settings.json into :CocConfig
                   ALE: source <repo>/editors/vim/ale-fmplay.vim
      Helix        append <repo>/editors/helix/languages.toml to ~/.config/helix/languages.toml;
                   copy <repo>/grammars/tree-sitter/*.scm to ~/.config/helix/runtime/queries/fmplay/
      Zed          zed: install dev extension -> <repo>/editors/zed
      Any client   command `fmplay lsp` over stdio, language id `fmplay`, files *.fmplay;
                   results also arrive as the `fmplay/results` notification
    """
}
