autocmd BufRead,BufNewFile *.fmplay setfiletype fmplay
