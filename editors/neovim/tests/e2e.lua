-- Headless end-to-end test of the Neovim plugin:
--   nvim --headless -u NONE -i NONE --cmd "set rtp+=editors/neovim" -c "luafile editors/neovim/tests/e2e.lua"
-- Environment:
--   FMPLAY_TEST_CMD      server command, words separated by spaces (default: "fmplay lsp")
--   FMPLAY_TEST_FILE     the .fmplay file to open (required)
--   FMPLAY_TEST_SETTINGS JSON object sent as the server settings (default: {})
--   FMPLAY_TEST_EXPECT   text the virtual text must contain (optional)
--   FMPLAY_TEST_REJECT   text it must not contain (default "✗", the server's failure mark)
--   FMPLAY_TEST_TIMEOUT  seconds to wait for each step (default: 60)
-- Opens the file, waits for diagnostics, runs the first #Playground block with :FmplayRun and
-- asserts that the server's result for it is shown as virtual text, then that :FmplayHover on
-- the call opens a floating window with its output. Exits 0 on success.
local function env(name, default)
  local value = os.getenv(name)
  if value == nil or value == "" then
    return default
  end
  return value
end

local function finish(ok, message)
  io.stdout:write((ok and "nvim e2e: PASS " or "nvim e2e: FAIL ") .. message .. "\n")
  io.stdout:flush()
  vim.cmd(ok and "qall!" or "cquit! 1")
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

  local fmplay = require("fmplay")
  fmplay.setup({ cmd = cmd, settings = settings, virtual_text = true })

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

  local playground
  for number, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:match("^%s*#Playground") then
      playground = number
      break
    end
  end
  if not playground then
    return finish(false, file .. " has no #Playground block")
  end
  vim.api.nvim_win_set_cursor(0, { playground + 1, 0 })
  vim.cmd("FmplayRun")

  local shown, failed
  local ok = vim.wait(timeout, function()
    local payload = fmplay.results[bufnr]
    for _, block in ipairs(payload and payload.blocks or {}) do
      if block.line == playground - 1 and block.status == "failed" then
        failed = block.summary or "failed"
        return true
      end
    end
    if not payload or #(payload.results or {}) == 0 then
      return false
    end
    -- Wait for the finished output, not a streaming snapshot.
    for _, block in ipairs(payload.blocks or {}) do
      if block.line == playground - 1 and block.status ~= "done" then
        return false
      end
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
  end, 100)
  if failed then
    return finish(false, "the block failed: " .. failed)
  end
  if not ok then
    return finish(false, "no result shown as virtual text; results: " .. vim.inspect(fmplay.results[bufnr]))
  end
  if shown.text:find(reject, 1, true) then
    return finish(false, string.format("line %d shows a failure: %s", shown.line + 1, shown.text))
  end
  if not shown.text:match("%w") then
    return finish(false, string.format("line %d shows no output text: %s", shown.line + 1, shown.text))
  end
  local line_text = vim.api.nvim_buf_get_lines(bufnr, shown.line, shown.line + 1, false)[1]

  -- :FmplayHover on the call shows its full output in a floating window.
  local call = fmplay.results[bufnr].results[1].range.start
  vim.api.nvim_win_set_cursor(0, { call.line + 1, call.character })
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
    return finish(false, "FmplayHover showed no floating window with the output")
  end
  finish(true, string.format("line %d `%s` shows %s; status: %s; hover: %s", shown.line + 1, vim.trim(line_text),
    shown.text, fmplay.statusline(bufnr), hover:sub(1, 80)))
end

local ok, err = pcall(main)
if not ok then
  finish(false, tostring(err))
end
