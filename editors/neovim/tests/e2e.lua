-- Headless test of the Neovim plugin, what a user does, step by step:
--   nvim --headless -u NONE -i NONE --cmd "set rtp+=<repo>/editors/neovim" -c "luafile <repo>/editors/neovim/tests/e2e.lua"
-- Environment:
--   FMPLAY_TEST_CMD      server command, words separated by spaces (default: "fmplay lsp")
--   FMPLAY_TEST_FILE     the .fmplay file to open (required)
--   FMPLAY_TEST_SETTINGS JSON object sent as the server settings (default: {})
--   FMPLAY_TEST_EXPECT   text the result must contain (optional)
--   FMPLAY_TEST_REJECT   text it must not contain (default "✗", the server's failure mark)
--   FMPLAY_TEST_TIMEOUT  seconds to wait for each step (default: 60)
--   FMPLAY_TEST_STEPS    comma-separated steps (default: lens,run,hover); in this order:
--     diagnostics  publishDiagnostics arrives and the file's error is shown
--     quickfix     vim.lsp.buf.code_action() on the error applies the server's fix; the error goes
--     lens         the code lenses of the first buffer opened appear (and no error was reported)
--     completion   the omnifunc (<C-x><C-o>) after `GenerationOptions(` offers `temperature:`
--     run          :FmplayRun in the first #Playground block shows the final result as virtual
--                  text on the call's line
--     stream       (with run) a partial result (`⋯`) was shown before the final one
--     hover        hover on the call answers in the format Neovim asked for (Markdown first),
--                  and :FmplayHover shows the output in a floating window
--     report       (after run) :FmplayReport opens the HTML page the server wrote (the test's
--                  `open_report` receives the path): a page with the first result's text
--     keep         typing inside the block keeps the result shown until it is replaced
--     cancel       :FmplayRun, then :FmplayCancel while it runs: the block ends cancelled
-- Exits 0 when every step passed.
local function env(name, default)
  local value = os.getenv(name)
  if value == nil or value == "" then
    return default
  end
  return value
end

local passed = {}

local function finish(ok, message)
  io.stdout:write((ok and "nvim e2e: PASS " or "nvim e2e: FAIL ") .. message .. "\n")
  io.stdout:flush()
  vim.cmd(ok and "qall!" or "cquit! 1")
end

-- Error-level notifications (the plugin's and the LSP client's) fail the test.
local errors = {}
local notify = vim.notify
vim.notify = function(message, level, opts)
  if level == vim.log.levels.ERROR then
    table.insert(errors, message)
  end
  return notify(message, level, opts)
end

local function main()
  local file = env("FMPLAY_TEST_FILE")
  if not file then
    return finish(false, "FMPLAY_TEST_FILE is not set")
  end
  local timeout = tonumber(env("FMPLAY_TEST_TIMEOUT", "60")) * 1000
  local cmd = vim.split(env("FMPLAY_TEST_CMD", "fmplay lsp"), " ", { trimempty = true })
  local settings = vim.fn.json_decode(env("FMPLAY_TEST_SETTINGS", "{}"))
  local expect = env("FMPLAY_TEST_EXPECT")
  local reject = env("FMPLAY_TEST_REJECT", "✗")
  local steps = {}
  for _, step in ipairs(vim.split(env("FMPLAY_TEST_STEPS", "lens,run,hover"), ",", { trimempty = true })) do
    steps[step] = true
  end

  local fmplay = require("fmplay")
  local opened_report
  fmplay.setup({ cmd = cmd, settings = settings, virtual_text = true,
    open_report = function(path) opened_report = path end })

  local diagnostics_seen = false
  local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
  vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
    diagnostics_seen = true
    return publish(err, result, ctx, config)
  end

  vim.cmd("edit " .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].filetype ~= "fmplay" then
    return finish(false, "filetype is '" .. vim.bo[bufnr].filetype .. "', not fmplay")
  end
  if not vim.wait(timeout, function() return diagnostics_seen end, 50) then
    return finish(false, "no publishDiagnostics within the timeout (server: " .. table.concat(cmd, " ") .. ")")
  end
  local client = vim.lsp.get_client_by_id(fmplay.client_id)
  local function lines()
    return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  end
  local function find_line(pattern)
    for number, line in ipairs(lines()) do
      if line:find(pattern) then
        return number, line
      end
    end
  end
  local function errors_shown()
    return vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
  end

  if steps.diagnostics then
    if not vim.wait(timeout, function() return #errors_shown() > 0 end, 50) then
      return finish(false, "diagnostics: no error shown for " .. file)
    end
    local first = errors_shown()[1]
    table.insert(passed, string.format("diagnostics (line %d: %s)", first.lnum + 1, first.message))
  end

  if steps.quickfix then
    local first = errors_shown()[1]
    vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
    -- The user picks the first action of the menu.
    local offered
    vim.ui.select = function(items, opts, on_choice)
      offered = items
      on_choice(items[1], 1)
    end
    local before = vim.api.nvim_buf_get_lines(bufnr, first.lnum, first.lnum + 1, false)[1]
    vim.lsp.buf.code_action()
    if not vim.wait(timeout, function() return offered ~= nil and #errors_shown() == 0 end, 50) then
      return finish(false, "quickfix: the error is still shown; actions offered: " .. vim.inspect(offered))
    end
    local after = vim.api.nvim_buf_get_lines(bufnr, first.lnum, first.lnum + 1, false)[1]
    table.insert(passed, string.format("quickfix (`%s` -> `%s`)", vim.trim(before), vim.trim(after)))
  end

  local playground = find_line("^%s*#Playground")
  if not playground then
    return finish(false, file .. " has no #Playground block")
  end

  if steps.lens then
    local function lens_titles()
      local titles = {}
      for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
        if lens.command then
          table.insert(titles, lens.command.title)
        end
      end
      return titles
    end
    if not vim.wait(timeout, function() return #lens_titles() > 0 end, 50) then
      return finish(false, "lens: no code lenses in the first buffer; errors: " .. table.concat(errors, " | "))
    end
    table.insert(passed, "lens (" .. table.concat(lens_titles(), ", ") .. ")")
  end

  if steps.completion then
    local number, line = find_line("GenerationOptions%(%)")
    if not number then
      return finish(false, "completion: no `GenerationOptions()` in " .. file)
    end
    if vim.bo[bufnr].omnifunc ~= "v:lua.vim.lsp.omnifunc" then
      return finish(false, "completion: omnifunc is '" .. vim.bo[bufnr].omnifunc .. "'")
    end
    -- The cursor right after `(`, then what <C-x><C-o> does: the omnifunc is asked for the start,
    -- then for the matches, which it hands to complete() when the server answers (if the
    -- editor is still in Insert mode). A headless test cannot hold Insert mode while it waits,
    -- so mode() says "i" and the matches are taken where complete() would show them.
    local column = line:find("GenerationOptions%(%)") + #"GenerationOptions("
    vim.api.nvim_win_set_cursor(0, { number, column - 1 })
    local complete, mode = vim.fn.complete, vim.fn.mode
    local words = {}
    vim.fn.mode = function() return "i" end
    vim.fn.complete = function(start, matches)
      for _, item in ipairs(matches) do
        table.insert(words, type(item) == "table" and item.word or item)
      end
    end
    vim.lsp.omnifunc(1, "")
    vim.lsp.omnifunc(0, "")
    local function offered()
      for _, word in ipairs(words) do
        if vim.startswith(word, "temperature") then
          return true
        end
      end
      return false
    end
    local ok = vim.wait(timeout, offered, 50)
    vim.fn.complete, vim.fn.mode = complete, mode
    if not ok then
      return finish(false, "completion: `temperature:` not offered after `GenerationOptions(`; offered: " .. vim.inspect(words))
    end
    table.insert(passed, "completion (" .. table.concat(words, " "):sub(1, 60) .. ")")
  end

  -- The status of the block on 1-based line `line` (default: the first block's).
  local function block_status(line)
    local payload = fmplay.results[bufnr]
    for _, block in ipairs(payload and payload.blocks or {}) do
      if block.line == (line or playground) - 1 then
        return block.status, block.summary
      end
    end
  end

  if steps.run then
    vim.api.nvim_win_set_cursor(0, { playground + 1, 0 })
    fmplay.results[bufnr] = nil
    vim.cmd("FmplayRun")
    local shown, failed, streamed
    local ok = vim.wait(timeout, function()
      local status, summary = block_status()
      if status == "failed" then
        failed = summary or "failed"
        return true
      end
      for _, mark in ipairs(fmplay.virtual_texts(bufnr)) do
        if mark.line >= playground - 1 and mark.text:find("⋯", 1, true) then
          streamed = streamed or mark.text
        end
      end
      -- Wait for the finished output, not a streaming snapshot.
      if status ~= "done" then
        return false
      end
      for _, mark in ipairs(fmplay.virtual_texts(bufnr)) do
        if mark.line >= playground - 1 and mark.text ~= "" and (not expect or mark.text:find(expect, 1, true)) then
          shown = mark
          return true
        end
        if mark.text:find(reject, 1, true) then
          shown = mark
          return true
        end
      end
      return false
    end, 20)
    if failed then
      return finish(false, "run: the block failed: " .. failed)
    end
    if not ok then
      return finish(false, "run: no result shown as virtual text; results: " .. vim.inspect(fmplay.results[bufnr]))
    end
    if shown.text:find(reject, 1, true) then
      return finish(false, string.format("run: line %d shows a failure: %s", shown.line + 1, shown.text))
    end
    if not shown.text:match("%w") then
      return finish(false, string.format("run: line %d shows no output text: %s", shown.line + 1, shown.text))
    end
    if steps.stream and not streamed then
      return finish(false, "run: no streamed (partial, `⋯`) result was shown before the final one")
    end
    table.insert(passed, string.format("run (line %d shows %s%s)", shown.line + 1, shown.text,
      streamed and ("; streamed " .. streamed) or ""))
  end

  if steps.hover then
    local results = fmplay.results[bufnr] and fmplay.results[bufnr].results or {}
    if #results == 0 then
      return finish(false, "hover: no result to hover (run first)")
    end
    local call = results[1].range.start
    vim.api.nvim_win_set_cursor(0, { call.line + 1, call.character })
    local asked = client.config.capabilities.textDocument.hover.contentFormat[1]
    local answers = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", vim.lsp.util.make_position_params(), timeout)
    local answer = answers and answers[client.id] and answers[client.id].result
    if not answer or type(answer.contents) ~= "table" or answer.contents.kind ~= asked then
      return finish(false, "hover: Neovim asked for " .. asked .. ", the server answered " .. vim.inspect(answer))
    end
    vim.cmd("FmplayHover")
    local hover
    vim.wait(timeout, function()
      for _, win in ipairs(vim.api.nvim_list_wins()) do
        if vim.api.nvim_win_get_config(win).relative ~= "" then
          hover = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false), " ")
          return vim.trim(hover) ~= ""
        end
      end
      return false
    end, 50)
    if not hover or vim.trim(hover) == "" then
      return finish(false, "hover: FmplayHover showed no floating window with the output")
    end
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(win).relative ~= "" then
        vim.api.nvim_win_close(win, true)
      end
    end
    table.insert(passed, string.format("hover (%s: %s)", answer.contents.kind, hover:sub(1, 60)))
  end

  if steps.report then
    local results = fmplay.results[bufnr] and fmplay.results[bufnr].results or {}
    if #results == 0 then
      return finish(false, "report: no result to report (run first)")
    end
    vim.cmd("FmplayReport")
    if not vim.wait(timeout, function() return opened_report ~= nil end, 50) then
      return finish(false, "report: :FmplayReport opened nothing; errors: " .. table.concat(errors, " | "))
    end
    local handle = io.open(opened_report, "r")
    local page = handle and handle:read("*a") or ""
    if handle then
      handle:close()
    end
    local word = tostring(results[1].value or ""):match("%w+")
    if not page:find("<!DOCTYPE html>", 1, true) or not word or not page:find(word, 1, true) then
      return finish(false, "report: " .. opened_report .. " is not the report of the result " .. vim.inspect(results[1].value))
    end
    table.insert(passed, string.format("report (%s, %d bytes, has %q)", opened_report, #page, word))
  end

  if steps.keep then
    -- Type inside the block, as a user does: a comment line after the #Playground line. The
    -- server answers the edit with a payload in which the block has no result yet.
    local payloads = 0
    vim.api.nvim_create_autocmd("User", { pattern = "FmplayResults", callback = function() payloads = payloads + 1 end })
    vim.api.nvim_buf_set_lines(bufnr, playground, playground, false, { "    // a note" })
    vim.wait(5000, function() return payloads > 0 end, 20)
    local shown = fmplay.virtual_texts(bufnr)
    if payloads == 0 or #shown == 0 then
      return finish(false, "keep: after typing in the block " ..
        (payloads == 0 and "the server sent no fmplay/results" or "the result disappeared"))
    end
    table.insert(passed, string.format("keep (after the edit line %d still shows %s)", shown[1].line + 1, shown[1].text))
  end

  if steps.cancel then
    -- The long block: the first one can finish before its running status reaches the client.
    local long = find_line('^%s*#Playground%("Long"%)')
    if not long then
      return finish(false, 'cancel: no #Playground("Long") block in ' .. file)
    end
    vim.api.nvim_win_set_cursor(0, { long + 1, 0 })
    vim.cmd("FmplayRun")
    if not vim.wait(timeout, function() return block_status(long) == "running" end, 10) then
      return finish(false, "cancel: the block never ran; status " .. tostring(block_status(long)))
    end
    vim.cmd("FmplayCancel")
    if not vim.wait(timeout, function() return block_status(long) == "cancelled" end, 20) then
      return finish(false, "cancel: the block did not end cancelled; status " .. tostring(block_status(long)))
    end
    table.insert(passed, "cancel (" .. select(2, block_status(long)) .. ")")
  end

  if #errors > 0 then
    return finish(false, "errors were reported: " .. table.concat(errors, " | "))
  end
  finish(true, table.concat(passed, "; ") .. "; status: " .. fmplay.statusline(bufnr))
end

local ok, err = pcall(main)
if not ok then
  finish(false, tostring(err))
end
