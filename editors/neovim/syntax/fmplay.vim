" The Vim syntax file is shared: load it from the sibling editors/vim directory.
execute 'source' fnameescape(expand('<sfile>:p:h:h:h') . '/vim/syntax/fmplay.vim')
