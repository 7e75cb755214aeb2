/// Every editor's set-up in a few lines, for `fmplay lsp --help` (the long form, with file
/// paths and what is tested, is editors/README.md and the README in each editors/<name>/).
/// Lines stay under 78 characters: the help output wraps longer ones.
enum EditorSetupHelp {
    static let text = """
    EDITOR SET-UP (<repo> is this repository; one page per editor in
      <repo>/editors/README.md). First, in <repo>: `make build` (the default
      model and the build), then export PATH="$PWD/.build/debug:$PATH"
      Neovim 0.7+, in init.lua:
        vim.opt.runtimepath:append("<repo>/editors/neovim")
        require("fmplay").setup({})
        :FmplayRun :FmplayRunAll :FmplayCancel :FmplayHover
      Emacs, in init.el (Emacs 28 on Debian: apt-get install elpa-eglot):
        (add-to-list 'load-path "<repo>/editors/emacs")
        (require 'fmplay-mode)
        (add-hook 'fmplay-mode-hook #'eglot-ensure) ; or #'lsp-deferred
        C-c C-c run block, C-c C-a run all, C-c C-k cancel
      VS Code: in <repo>/editors/vscode, npm install && npx vsce package,
        then code --install-extension fmplay-0.1.0.vsix
      Vim with vim-lsp: set runtimepath+=<repo>/editors/vim
        coc.nvim: merge <repo>/editors/vim/coc-settings.json (:CocConfig)
        ALE: source <repo>/editors/vim/ale-fmplay.vim (see editors/vim/ale.md)
      Helix: append <repo>/editors/helix/languages.toml to
        ~/.config/helix/languages.toml, and copy
        <repo>/grammars/tree-sitter/*.scm to
        ~/.config/helix/runtime/queries/fmplay/
      Zed: "zed: install dev extension", then choose <repo>/editors/zed
      Others: `fmplay lsp` over stdio, language id `fmplay`, files *.fmplay
    """
}
