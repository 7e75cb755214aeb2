" fmplay with ALE (https://github.com/dense-analysis/ale): diagnostics, quick fixes
" (:ALECodeAction), hover (:ALEHover, plain text: ALE asks the server for `plaintext`) and
" completion from `fmplay lsp`. ALE has no code lenses or inlay hints, so this file adds
" :FmplayRun, :FmplayRunAll and :FmplayCancel and draws each result after its call from
" the server's `fmplay/results` notification (a text property on Vim 9.0.0067+, else the
" echo area).
call ale#linter#Define('fmplay', {
      \ 'name': 'fmplay',
      \ 'lsp': 'stdio',
      \ 'executable': 'fmplay',
      \ 'command': '%e lsp',
      \ 'project_root': {buffer -> fnamemodify(bufname(buffer), ':p:h')},
      \ 'initialization_options': get(g:, 'fmplay_settings', {}),
      \ })

" The last `fmplay/results` params per buffer number.
let g:fmplay_ale_results = get(g:, 'fmplay_ale_results', {})

function! s:uri(buffer) abort
  return ale#path#ToFileURI(fnamemodify(bufname(a:buffer), ':p'))
endfunction

function! s:show_results(connection, message) abort
  if get(a:message, 'method', '') !=# 'fmplay/results'
    return
  endif
  let l:params = a:message.params
  let l:buffer = bufnr(ale#path#FromFileURI(l:params.uri))
  if l:buffer < 0
    return
  endif
  let g:fmplay_ale_results[l:buffer] = l:params
  let l:inline = has('textprop') && has('patch-9.0.0067')
  if l:inline
    if empty(prop_type_get('fmplay_result', {'bufnr': l:buffer}))
      call prop_type_add('fmplay_result', {'bufnr': l:buffer, 'highlight': 'Comment'})
    endif
    call prop_remove({'type': 'fmplay_result', 'bufnr': l:buffer, 'all': 1})
  endif
  for l:result in get(l:params, 'results', [])
    if empty(get(l:result, 'hint', '')) || !has_key(l:result, 'range')
      continue
    endif
    let l:line = l:result.range.end.line + 1
    if l:inline
      call prop_add(l:line, 0, {'type': 'fmplay_result', 'bufnr': l:buffer, 'text': '  ' . l:result.hint, 'text_align': 'after'})
    elseif l:buffer == bufnr('%')
      echo 'fmplay line ' . l:line . ': ' . l:result.hint
    endif
  endfor
endfunction

" Sends a request to the buffer's fmplay server (starting it if needed) and listens for
" `fmplay/results` on its connection.
function! s:request(buffer, method, params, ...) abort
  let l:linter = filter(ale#linter#Get('fmplay'), {_, v -> v.name is# 'fmplay'})[0]
  let l:Handler = a:0 ? a:1 : v:null
  call ale#lsp_linter#StartLSP(a:buffer, l:linter, {linter, details -> s:send(details.connection_id, a:method, a:params, l:Handler)})
endfunction

let s:handlers = {}

function! s:on_message(connection, message) abort
  call s:show_results(a:connection, a:message)
  let l:id = get(a:message, 'id', -1)
  if has_key(a:message, 'method') || !has_key(s:handlers, l:id)
    return
  endif
  let l:Handler = remove(s:handlers, l:id)
  if has_key(a:message, 'error')
    echohl ErrorMsg | echomsg 'fmplay: ' . a:message.error.message | echohl None
  else
    call l:Handler(get(a:message, 'result', v:null))
  endif
endfunction

function! s:send(connection, method, params, Handler) abort
  call ale#lsp#RegisterCallback(a:connection, function('s:on_message'))
  let l:id = ale#lsp#Send(a:connection, [0, a:method, a:params])
  let s:handlers[l:id] = a:Handler is v:null ? {_ -> 0} : a:Handler
endfunction

" Runs the server command of the code lens (`fmplay.run`, `fmplay.cancel`) of the
" #Playground block at or above the cursor, with the lens's own arguments.
function! s:lens_command(command, fallback) abort
  let l:buffer = bufnr('%')
  let l:line = line('.') - 1
  call s:request(l:buffer, 'textDocument/codeLens', {'textDocument': {'uri': s:uri(l:buffer)}},
        \ {lenses -> s:run_lens(l:buffer, lenses is v:null ? [] : lenses, l:line, a:command, a:fallback)})
endfunction

function! s:run_lens(buffer, lenses, line, command, fallback) abort
  let l:best = {}
  for l:lens in a:lenses
    let l:start = l:lens.range.start.line
    if get(get(l:lens, 'command', {}), 'command', '') ==# a:command && l:start <= a:line
          \ && (empty(l:best) || l:start > l:best.range.start.line)
      let l:best = l:lens
    endif
  endfor
  if !empty(l:best)
    call s:request(a:buffer, 'workspace/executeCommand', {'command': a:command, 'arguments': get(l:best.command, 'arguments', [])})
  elseif a:fallback
    call s:request(a:buffer, 'workspace/executeCommand', {'command': a:command, 'arguments': [{'uri': s:uri(a:buffer)}]})
  else
    echomsg 'fmplay: no #Playground block at or above the cursor'
  endif
endfunction

function! s:setup_buffer() abort
  " Completion: <C-x><C-o> (as you type too when the vimrc sets g:ale_completion_enabled = 1).
  setlocal omnifunc=ale#completion#OmniFunc
  command! -buffer FmplayRun call s:lens_command('fmplay.run', 0)
  command! -buffer FmplayCancel call s:lens_command('fmplay.cancel', 1)
  command! -buffer FmplayRunAll call s:request(bufnr('%'), 'workspace/executeCommand', {'command': 'fmplay.runAll', 'arguments': [{'uri': s:uri(bufnr('%'))}]})
endfunction

augroup fmplay_ale
  autocmd!
  autocmd FileType fmplay call s:setup_buffer()
augroup END
if &filetype ==# 'fmplay'
  call s:setup_buffer()
endif
