" fmplay with ALE (https://github.com/dense-analysis/ale): diagnostics, hover and completion
" from `fmplay lsp`. ALE has no code lenses or inlay hints, so results are not shown inline;
" use `fmplay run` in a terminal, or vim-lsp / coc.nvim for inline results.
call ale#linter#Define('fmplay', {
      \ 'name': 'fmplay',
      \ 'lsp': 'stdio',
      \ 'executable': 'fmplay',
      \ 'command': '%e lsp',
      \ 'project_root': {buffer -> fnamemodify(bufname(buffer), ':p:h')},
      \ 'initialization_options': get(g:, 'fmplay_settings', {}),
      \ })
