" Test of the ALE set-up (editors/vim/ale.md) in a real Vim, what a user does, step by step.
" editors/tests/run.sh starts Vim in a pseudo-terminal with this file as the vimrc:
"   vim -N -i NONE -u editors/vim/tests/e2e.vim FILE
" Environment: FMPLAY_TEST_SETTINGS (JSON server settings), FMPLAY_TEST_TIMEOUT (seconds per
" step), FMPLAY_TEST_OUTPUT (the file the outcome is written to), FMPLAY_TEST_STEPS
" (comma-separated, in this order):
"   diagnostics  ALE's location list shows the file's error
"   quickfix     :ALECodeAction on the error applies the server's fix (the user picks 1)
"   completion   the omnifunc (<C-x><C-o>) offers `temperature:` after `GenerationOptions(`
"   run          :FmplayRun in the first #Playground block shows the final result after the
"                call (a text property); `stream`: a partial result (`⋯`) was shown first
"   hover        :ALEHover on the call shows the output as plain text (what ALE asks for),
"                with no error
"   cancel       :FmplayRun, then :FmplayCancel while it runs: the block ends cancelled
" `fmplay` must be on PATH.
set nocompatible
let s:here = expand('<sfile>:p:h')
packadd! ale
execute 'set runtimepath+=' . fnameescape(fnamemodify(s:here, ':h'))
filetype plugin indent on
syntax on
execute 'autocmd FileType fmplay ++once source ' . fnameescape(fnamemodify(s:here, ':h') . '/ale-fmplay.vim')
let g:ale_linters = {'fmplay': ['fmplay']}
let g:fmplay_settings = json_decode(empty($FMPLAY_TEST_SETTINGS) ? '{}' : $FMPLAY_TEST_SETTINGS)

let s:timeout = str2nr(empty($FMPLAY_TEST_TIMEOUT) ? '60' : $FMPLAY_TEST_TIMEOUT) * 1000
let s:steps = split(empty($FMPLAY_TEST_STEPS) ? 'diagnostics,run' : $FMPLAY_TEST_STEPS, ',')
let s:passed = []

function! s:finish(ok, message) abort
  let l:line = 'vim e2e: ' . (a:ok ? 'PASS ' . join(s:passed + [a:message], '; ') : 'FAIL ' . a:message)
  call writefile([l:line], $FMPLAY_TEST_OUTPUT)
  execute a:ok ? 'qall!' : 'cquit!'
endfunction

" Waits (processing jobs and timers) until Condition() is true; returns whether it became true.
function! s:wait(Condition, ...) abort
  let l:limit = a:0 ? a:1 : s:timeout
  let l:start = reltime()
  while !a:Condition()
    if reltimefloat(reltime(l:start)) * 1000 > l:limit
      return 0
    endif
    sleep 20m
  endwhile
  return 1
endfunction

function! s:errors() abort
  return filter(copy(ale#engine#GetLoclist(bufnr('%'))), {_, item -> item.type ==# 'E'})
endfunction

function! s:payload() abort
  return get(g:fmplay_ale_results, bufnr('%'), {})
endfunction

function! s:status(line) abort
  for l:block in get(s:payload(), 'blocks', [])
    if l:block.line == a:line
      return [l:block.status, get(l:block, 'summary', '')]
    endif
  endfor
  return ['', '']
endfunction

function! s:shown() abort
  let l:texts = []
  if empty(prop_type_get('fmplay_result', {'bufnr': bufnr('%')}))
    return l:texts
  endif
  " Vim 9.0's prop_list() does not return a virtual text's text: the line of each property
  " drawn, with the hint the server sent for that line.
  let l:hints = {}
  for l:result in get(s:payload(), 'results', [])
    let l:hints[l:result.range.end.line + 1] = get(l:hints, l:result.range.end.line + 1, '') . l:result.hint
  endfor
  for l:prop in prop_list(1, {'end_lnum': line('$'), 'types': ['fmplay_result']})
    call add(l:texts, [l:prop.lnum, trim(get(l:prop, 'text', get(l:hints, l:prop.lnum, '')))])
  endfor
  return l:texts
endfunction

function! s:main() abort
  if &filetype !=# 'fmplay'
    return s:finish(0, 'filetype is ' . &filetype . ', not fmplay')
  endif
  let l:errors_before = len(split(execute('messages'), "\n"))

  if index(s:steps, 'diagnostics') >= 0
    if !s:wait({-> !empty(s:errors())})
      return s:finish(0, 'diagnostics: no error in ALE''s location list')
    endif
    let l:first = s:errors()[0]
    call add(s:passed, printf('diagnostics (line %d: %s)', l:first.lnum, l:first.text))
  endif

  if index(s:steps, 'quickfix') >= 0
    let l:first = s:errors()[0]
    let l:before = trim(getline(l:first.lnum))
    call cursor(l:first.lnum, l:first.col)
    " :ALECodeAction lists the actions and asks for a number: the user types 1.
    runtime autoload/ale/util.vim
    let s:asked = ''
    function! ale#util#Input(message, value, ...) abort
      let s:asked = a:message
      return '1'
    endfunction
    ALECodeAction
    if !s:wait({-> !empty(s:asked) && trim(getline(l:first.lnum)) !=# l:before})
      return s:finish(0, 'quickfix: the line was not changed; ALE asked: ' . s:asked)
    endif
    " Vim fires TextChanged when the script yields to the main loop; ALE lints on it.
    doautocmd <nomodeline> TextChanged
    if !s:wait({-> empty(s:errors())})
      return s:finish(0, 'quickfix: the error is still listed after the fix: ' . string(s:errors()))
    endif
    call add(s:passed, printf('quickfix (`%s` -> `%s`)', l:before, trim(getline(l:first.lnum))))
  endif

  if index(s:steps, 'completion') >= 0
    if &omnifunc !=# 'ale#completion#OmniFunc'
      return s:finish(0, 'completion: omnifunc is ''' . &omnifunc . '''')
    endif
    let l:line = search('GenerationOptions(', 'w')
    call cursor(l:line, stridx(getline(l:line), 'GenerationOptions(') + len('GenerationOptions(') + 1)
    " What <C-x><C-o> does: ask the omnifunc for the start (which sends the request), then for
    " the matches (ale#completion#OmniFunc waits for ALE's result; here the wait is bounded).
    " ALE keeps an answer only in Insert mode, which a test script cannot hold while it waits:
    " ale#util#Mode (ALE's wrapper of mode(), there for its own tests) says 'i' meanwhile.
    runtime autoload/ale/util.vim
    function! ale#util#Mode(...) abort
      return 'i'
    endfunction
    let l:start = call(&omnifunc, [1, ''])
    if !s:wait({-> ale#completion#GetCompletionResult() isnot v:null})
      return s:finish(0, 'completion: no answer; start ' . l:start . ', info ' . string(get(b:, 'ale_completion_info', {})))
    endif
    let l:items = call(&omnifunc, [0, ''])
    function! ale#util#Mode(...) abort
      return call('mode', a:000)
    endfunction
    let l:words = map(copy(l:items), {_, item -> type(item) == v:t_dict ? item.word : item})
    if empty(filter(copy(l:words), {_, word -> word =~# '^temperature'}))
      return s:finish(0, 'completion: `temperature:` not offered after `GenerationOptions(`; offered: ' . string(l:words))
    endif
    call add(s:passed, 'completion (' . join(l:words, ' ') . ')')
  endif

  " The first block, from the top (the cursor may be inside it or past it).
  call cursor(1, 1)
  let l:playground = search('^\s*#Playground', 'cW')
  if l:playground == 0
    return s:finish(0, 'the file has no #Playground block')
  endif

  if index(s:steps, 'run') >= 0
    call cursor(l:playground + 1, 1)
    let g:fmplay_ale_results = {}
    let s:streamed = ''
    FmplayRun
    function! s:run_done(playground) abort
      for [l:lnum, l:text] in s:shown()
        if l:text =~# '⋯' && empty(s:streamed)
          let s:streamed = l:text
        endif
      endfor
      return index(['done', 'failed'], s:status(a:playground - 1)[0]) >= 0
    endfunction
    if !s:wait({-> s:run_done(l:playground)})
      return s:finish(0, 'run: the block did not finish; results: ' . string(s:payload()))
    endif
    let [l:status, l:summary] = s:status(l:playground - 1)
    let l:shown = filter(s:shown(), {_, entry -> entry[0] > l:playground && entry[1] =~# '\w' && entry[1] !~# '✗'})
    if l:status !=# 'done' || empty(l:shown)
      return s:finish(0, 'run: ' . l:status . ' ' . l:summary . '; shown: ' . string(s:shown()))
    endif
    if index(s:steps, 'stream') >= 0 && empty(s:streamed)
      return s:finish(0, 'run: no streamed (partial, `⋯`) result was shown before the final one')
    endif
    call add(s:passed, printf('run (line %d shows %s%s; %s)', l:shown[0][0], l:shown[0][1],
          \ empty(s:streamed) ? '' : '; streamed ' . s:streamed, l:summary))
  endif

  if index(s:steps, 'hover') >= 0
    let l:start = get(s:payload(), 'results', [{}])[0].range.start
    call cursor(l:start.line + 1, l:start.character + 1)
    ALEHover
    function! s:preview() abort
      for l:window in range(1, winnr('$'))
        if getwinvar(l:window, '&previewwindow')
          return getbufline(winbufnr(l:window), 1, '$')
        endif
      endfor
      return []
    endfunction
    if !s:wait({-> !empty(s:preview())})
      return s:finish(0, 'hover: :ALEHover showed nothing; messages: ' . execute('messages'))
    endif
    let l:text = join(s:preview(), ' ')
    let l:new_errors = filter(split(execute('messages'), "\n")[l:errors_before :], {_, m -> m =~# '^E\d\+'})
    if l:text =~# '```\|\*\*' || !empty(l:new_errors)
      return s:finish(0, 'hover: not plain text, or errors: ' . l:text . ' ' . join(l:new_errors, ' | '))
    endif
    pclose
    call add(s:passed, 'hover (plaintext: ' . strcharpart(l:text, 0, 60) . ')')
  endif

  if index(s:steps, 'cancel') >= 0
    " The long block: the first one can finish before its running status reaches the client.
    let l:long = search('^\s*#Playground("Long")', 'w')
    if l:long == 0
      return s:finish(0, 'cancel: no #Playground("Long") block')
    endif
    call cursor(l:long + 1, 1)
    FmplayRun
    if !s:wait({-> s:status(l:long - 1)[0] ==# 'running'}, s:timeout)
      return s:finish(0, 'cancel: the block never ran; status ' . string(s:status(l:long - 1)))
    endif
    FmplayCancel
    if !s:wait({-> s:status(l:long - 1)[0] ==# 'cancelled'})
      return s:finish(0, 'cancel: the block did not end cancelled; status ' . string(s:status(l:long - 1)))
    endif
    call add(s:passed, 'cancel (' . s:status(l:long - 1)[1] . ')')
  endif

  call s:finish(1, 'done')
endfunction

function! s:start(...) abort
  try
    call s:main()
  catch
    call s:finish(0, v:exception . ' at ' . v:throwpoint)
  endtry
endfunction

autocmd VimEnter * call timer_start(300, function('s:start'))
