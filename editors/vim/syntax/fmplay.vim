" Vim syntax for fmplay prompt files: Swift's syntax plus the fmplay-specific names.
" Shared by Vim and Neovim (editors/neovim/syntax/fmplay.vim sources this file).
if exists('b:current_syntax')
  finish
endif

runtime! syntax/swift.vim
unlet! b:current_syntax

syntax match fmplayPlayground /#Playground\>/
syntax match fmplayAttribute /@\(Generable\|Guide\)\>/
syntax match fmplayGuide /\.\zs\(anyOf\|constant\|pattern\|minimum\|maximum\|range\|count\|minimumCount\|maximumCount\|element\)\ze\s*(/
syntax match fmplaySession /\.\zs\(respond\|streamResponse\)\>/
syntax keyword fmplayFramework LanguageModelSession SystemLanguageModel GenerationOptions Instructions Prompt Tool GeneratedContent GenerationSchema DynamicGenerationSchema

highlight default link fmplayPlayground PreProc
highlight default link fmplayAttribute PreProc
highlight default link fmplayGuide Function
highlight default link fmplaySession Function
highlight default link fmplayFramework Type

let b:current_syntax = 'fmplay'
