" fmplay with vim-lsp (https://github.com/prabirshrestha/vim-lsp): registers `fmplay lsp`
" for the fmplay filetype and shows results from the fmplay/results notification as virtual
" text (Vim 9 text properties) or, on older Vims, in the echo area.
if exists('g:loaded_fmplay_vim_lsp')
  finish
endif
let g:loaded_fmplay_vim_lsp = 1

let g:fmplay_server_command = get(g:, 'fmplay_server_command', ['fmplay', 'lsp'])
let g:fmplay_settings = get(g:, 'fmplay_settings', {})

function! s:register() abort
  call lsp#register_server({
        \ 'name': 'fmplay',
        \ 'cmd': {server_info -> g:fmplay_server_command},
        \ 'allowlist': ['fmplay'],
        \ 'initialization_options': g:fmplay_settings,
        \ 'workspace_config': {'fmplay': g:fmplay_settings},
        \ })
endfunction

function! s:show_results(server, data) abort
  if !has_key(a:data, 'response') || get(a:data.response, 'method', '') !=# 'fmplay/results'
    return
  endif
  let l:params = a:data.response.params
  let l:bufnr = bufnr(lsp#utils#uri_to_path(l:params.uri))
  if l:bufnr < 0
    return
  endif
  if has('textprop') && exists('*prop_add') && has('patch-9.0.0067')
    if empty(prop_type_get('fmplay_result', {'bufnr': l:bufnr}))
      call prop_type_add('fmplay_result', {'bufnr': l:bufnr, 'highlight': 'Comment'})
    endif
    call prop_remove({'type': 'fmplay_result', 'bufnr': l:bufnr, 'all': 1})
  endif
  for l:result in get(l:params, 'results', [])
    let l:text = get(l:result, 'hint', '')
    if empty(l:text) || !has_key(l:result, 'range')
      continue
    endif
    let l:line = l:result.range.end.line + 1
    if has('textprop') && exists('*prop_add') && has('patch-9.0.0067')
      call prop_add(l:line, 0, {'type': 'fmplay_result', 'bufnr': l:bufnr, 'text': '  ' . l:text, 'text_align': 'after'})
    elseif l:bufnr == bufnr('%')
      echo 'fmplay line ' . l:line . ': ' . l:text
    endif
  endfor
endfunction

function! s:execute(command, arguments) abort
  call lsp#send_request('fmplay', {
        \ 'method': 'workspace/executeCommand',
        \ 'params': {'command': a:command, 'arguments': a:arguments},
        \ })
endfunction

function! s:document() abort
  return [{'uri': lsp#utils#get_buffer_uri()}]
endfunction

" Completion with <C-x><C-o> in fmplay buffers (vim-lsp's asyncomplete integration, if
" installed, completes as you type as well).
function! s:buffer_enabled() abort
  if &filetype ==# 'fmplay'
    setlocal omnifunc=lsp#complete
  endif
endfunction

augroup fmplay_vim_lsp
  autocmd!
  autocmd User lsp_setup call s:register()
  autocmd User lsp_buffer_enabled call s:buffer_enabled()
  autocmd User lsp_setup call lsp#callbag#pipe(lsp#stream(), lsp#callbag#forEach({data -> s:show_results('fmplay', data)}))
augroup END

" :FmplayRun runs the block whose code lens is at or above the cursor (vim-lsp's code lens
" picker); the others call the server commands directly.
command! FmplayRun LspCodeLens
command! FmplayRunAll call s:execute('fmplay.runAll', s:document())
command! FmplayCancel call s:execute('fmplay.cancel', s:document())
command! FmplayClearCache call s:execute('fmplay.clearCache', [])
command! FmplayHover LspHover
