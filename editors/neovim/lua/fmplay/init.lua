-- fmplay for Neovim: filetype, the `fmplay lsp` client, results as virtual text, code lenses
-- and the :Fmplay* commands. Works on Neovim 0.7 (Debian) and newer:
--   * vim.lsp.start where it exists (0.8+), vim.lsp.start_client + buf_attach_client on 0.7;
--   * native inlay hints where they exist (0.10+), else virtual text from `fmplay/results`.
local M = {}

local defaults = {
  cmd = { "fmplay", "lsp" },
  -- Sent as initializationOptions and as workspace/didChangeConfiguration {fmplay = ...}.
  -- Keys follow the server's configuration (see `fmplay lsp --help`).
  settings = {},
  -- "auto": native inlay hints when Neovim has them, else virtual text; true/false forces it.
  virtual_text = "auto",
  hint_highlight = "Comment",
  codelens = true,
  -- Set 'omnifunc' to the server's completion in fmplay buffers (<C-x><C-o>).
  omnifunc = true,
  on_attach = nil,
  -- :FmplayReport opens the page the server wrote with this function of its path; nil: `xdg-open`
  -- (`open` on macOS), or a message with the path when there is neither.
  open_report = nil,
}

M.config = vim.deepcopy(defaults)
M.namespace = vim.api.nvim_create_namespace("fmplay_results")
M.client_id = nil
M.results = {} -- bufnr -> last `fmplay/results` payload
M.status = {} -- bufnr -> short status for statuslines, e.g. "fmplay: running 1 of 3"

local function notify(message, level)
  vim.notify("fmplay: " .. message, level or vim.log.levels.INFO)
end

local function use_virtual_text()
  if M.config.virtual_text == "auto" then
    return not (vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable)
  end
  return M.config.virtual_text == true
end

-- The text a result shows next to its call. The server's short rendering (`hint`, at most
-- the configured hint length) is preferred; the others are fallbacks for older servers.
local function result_text(result)
  local text = result.hint or result.label or result.rendering or result.summary
  if type(text) ~= "string" then
    if result.value ~= nil then
      text = type(result.value) == "string" and result.value or vim.fn.json_encode(result.value)
    else
      return nil
    end
  end
  text = text:gsub("[\r\n]+", " ")
  if not vim.startswith(text, "→") then
    text = "→ " .. text
  end
  return text
end

local function result_line(result)
  local range = result.range or result.callRange or result.hintRange
  if range and range["end"] then
    return range["end"].line
  elseif result.position then
    return result.position.line
  elseif range and range.start then
    return range.start.line
  end
  return nil
end

M.marks = {} -- bufnr -> { extmark id -> name of the block whose result it shows }

-- Blocks whose shown results stay: the payload has no result for them yet (the block was
-- edited, or is queued or starting again) and they have not ended. Their extmarks move with
-- the text as the user types, until the block's next results or its end replace them.
local ended = { done = true, failed = true, cancelled = true, blocked = true }
local function kept_blocks(payload)
  local kept, answered = {}, {}
  for _, result in ipairs(payload and payload.results or {}) do
    if result.block then
      answered[result.block] = true
    end
  end
  for _, block in ipairs(payload and payload.blocks or {}) do
    if not answered[block.name] and not ended[block.status] then
      kept[block.name] = true
    end
  end
  return kept
end

-- Draw one document's results as end-of-line virtual text (one extmark per line; several
-- results on a line are joined).
function M.render(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  local payload = M.results[bufnr]
  local kept = use_virtual_text() and kept_blocks(payload) or {}
  local marks = {}
  for id, block in pairs(M.marks[bufnr] or {}) do
    if kept[block] then
      marks[id] = block
    else
      pcall(vim.api.nvim_buf_del_extmark, bufnr, M.namespace, id)
    end
  end
  M.marks[bufnr] = marks
  if not payload or not use_virtual_text() then
    return
  end
  local per_line, order, owner = {}, {}, {}
  for _, result in ipairs(payload.results or {}) do
    local line, text = result_line(result), result_text(result)
    if line and text then
      if not per_line[line] then
        per_line[line] = {}
        owner[line] = result.block or ""
        table.insert(order, line)
      end
      table.insert(per_line[line], text)
    end
  end
  local line_count = vim.api.nvim_buf_line_count(bufnr)
  for _, line in ipairs(order) do
    if line < line_count then
      local id = vim.api.nvim_buf_set_extmark(bufnr, M.namespace, line, 0, {
        virt_text = { { table.concat(per_line[line], "  "), M.config.hint_highlight } },
        virt_text_pos = "eol",
        hl_mode = "combine",
      })
      marks[id] = owner[line]
    end
  end
end

-- A short status of a `fmplay/results` payload, from its per-block statuses.
function M.summarize(payload)
  local counts, total = {}, 0
  for _, block in ipairs(payload.blocks or {}) do
    counts[block.status] = (counts[block.status] or 0) + 1
    total = total + 1
  end
  local active = (counts.running or 0) + (counts.queued or 0)
  if active > 0 then
    return string.format("fmplay: running %d of %d", active, total)
  elseif (counts.failed or 0) > 0 then
    return string.format("fmplay: %d failed", counts.failed)
  end
  return string.format("fmplay: %d results", #(payload.results or {}))
end

-- The status of a buffer for statuslines: `%{v:lua.require'fmplay'.statusline()}`.
function M.statusline(bufnr)
  return M.status[bufnr or vim.api.nvim_get_current_buf()] or ""
end

-- Virtual texts currently shown in a buffer, as {line = 0-based, text = ...} (for tests and
-- statuslines).
function M.virtual_texts(bufnr)
  local out = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, M.namespace, 0, -1, { details = true })) do
    local chunks = mark[4] and mark[4].virt_text or {}
    local text = {}
    for _, chunk in ipairs(chunks) do
      table.insert(text, chunk[1])
    end
    table.insert(out, { line = mark[2], text = table.concat(text) })
  end
  return out
end

-- Whether this plugin's server is attached to the buffer and has answered `initialize`.
local function server_ready(bufnr)
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == "fmplay" and c.initialized and c.server_capabilities and c.server_capabilities.codeLensProvider then
      return true
    end
  end
  return false
end

-- Code lenses are requested only once the server is ready: on Neovim 0.7, refreshing while
-- the client is still initializing reports "method textDocument/codeLens is not supported"
-- (an error at start-up, which stalls the screen for a second) and leaves the buffer marked
-- as refreshing for good, so its lenses would never appear.
local function refresh_codelens(bufnr)
  if M.config.codelens and vim.lsp.codelens and vim.api.nvim_get_current_buf() == bufnr and server_ready(bufnr) then
    pcall(vim.lsp.codelens.refresh)
  end
end

local function on_results(_, payload)
  if type(payload) ~= "table" or type(payload.uri) ~= "string" then
    return
  end
  local bufnr = vim.uri_to_bufnr(payload.uri)
  M.results[bufnr] = payload
  M.status[bufnr] = M.summarize(payload)
  -- Draw outside the RPC callback: buffers may not be changed from a fast event.
  vim.schedule(function()
    M.render(bufnr)
    refresh_codelens(bufnr)
    vim.api.nvim_exec_autocmds("User", { pattern = "FmplayResults", modeline = false })
  end)
end

local function client()
  if M.client_id then
    return vim.lsp.get_client_by_id(M.client_id)
  end
  return nil
end

local function root_dir(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  local found = vim.fn.finddir(".git", dir .. ";")
  if found ~= "" then
    return vim.fn.fnamemodify(found, ":p:h:h")
  end
  return dir
end

local function client_config(bufnr)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  return {
    name = "fmplay",
    cmd = M.config.cmd,
    root_dir = root_dir(bufnr),
    init_options = M.config.settings,
    settings = { fmplay = M.config.settings },
    capabilities = capabilities,
    handlers = { ["fmplay/results"] = on_results },
    on_init = function(c)
      c.notify("workspace/didChangeConfiguration", { settings = { fmplay = M.config.settings } })
    end,
    on_attach = function(c, attached)
      M.client_id = c.id
      -- Completion with <C-x><C-o> (and for completion plugins that use omnifunc).
      if M.config.omnifunc then
        vim.bo[attached].omnifunc = "v:lua.vim.lsp.omnifunc"
      end
      if not use_virtual_text() then
        pcall(vim.lsp.inlay_hint.enable, true, { bufnr = attached })
      end
      refresh_codelens(attached)
      if M.config.on_attach then
        M.config.on_attach(c, attached)
      end
    end,
  }
end

function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.fn.executable(M.config.cmd[1]) ~= 1 then
    notify("`" .. M.config.cmd[1] .. "` is not on PATH; set cmd in require('fmplay').setup{}", vim.log.levels.WARN)
    return
  end
  if vim.lsp.start then
    M.client_id = vim.lsp.start(client_config(bufnr), { bufnr = bufnr })
  else
    local existing = client()
    if not existing or existing.is_stopped() then
      M.client_id = vim.lsp.start_client(client_config(bufnr))
    end
    if M.client_id then
      vim.lsp.buf_attach_client(bufnr, M.client_id)
    end
  end
end

local function require_client()
  local c = client()
  if not c then
    notify("the fmplay language server is not running in this buffer", vim.log.levels.WARN)
  end
  return c
end

local function execute(command, arguments)
  local c = require_client()
  if not c then
    return
  end
  c.request("workspace/executeCommand", { command = command, arguments = arguments }, function(err)
    if err then
      notify(command .. ": " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end, vim.api.nvim_get_current_buf())
end

-- Find the server's code lens for `command` on the #Playground block around the cursor and
-- run it with the lens's own arguments, so the plugin never guesses the argument shape.
-- The block is the last lens starting at or above the cursor (lenses sit on `#Playground`).
local function lens_command(command, callback)
  local c = require_client()
  if not c then
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local cursor = vim.api.nvim_win_get_cursor(0)[1] - 1
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  c.request("textDocument/codeLens", params, function(err, lenses)
    if err then
      notify("codeLens: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local best
    for _, lens in ipairs(lenses or {}) do
      if lens.command and lens.command.command == command and lens.range.start.line <= cursor then
        if not best or lens.range.start.line > best.range.start.line then
          best = lens
        end
      end
    end
    callback(best and best.command or nil, bufnr)
  end, bufnr)
end

function M.run()
  lens_command("fmplay.run", function(command)
    if command then
      execute(command.command, command.arguments)
    else
      notify("no #Playground block at or above the cursor", vim.log.levels.WARN)
    end
  end)
end

function M.run_all()
  execute("fmplay.runAll", { { uri = vim.uri_from_bufnr(vim.api.nvim_get_current_buf()) } })
end

function M.cancel()
  lens_command("fmplay.cancel", function(command, bufnr)
    if command then
      execute(command.command, command.arguments)
    else
      execute("fmplay.cancel", { { uri = vim.uri_from_bufnr(bufnr) } })
    end
  end)
end

function M.clear_cache()
  execute("fmplay.clearCache", {})
end

function M.hover()
  vim.lsp.buf.hover()
end

local function open_report(path)
  if M.config.open_report then
    return M.config.open_report(path)
  end
  local opener = vim.fn.has("mac") == 1 and "open" or "xdg-open"
  if vim.fn.executable(opener) == 1 then
    vim.fn.jobstart({ opener, path }, { detach = true })
    notify("report: " .. path)
  else
    notify("report written to " .. path .. " (no " .. opener .. " to open it)")
  end
end

-- The server's fmplay.openReport writes the HTML report of the buffer's last results and
-- answers with the file's path, which this opens.
function M.report()
  local c = require_client()
  if not c then
    return
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local params = { command = "fmplay.openReport", arguments = { { uri = vim.uri_from_bufnr(bufnr) } } }
  c.request("workspace/executeCommand", params, function(err, result)
    if err then
      notify("fmplay.openReport: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    elseif type(result) ~= "string" then
      notify("fmplay.openReport: the server answered " .. vim.inspect(result) .. ", not a path", vim.log.levels.ERROR)
    else
      open_report(result)
    end
  end, bufnr)
end

local function define_commands()
  local command = vim.api.nvim_create_user_command
  command("FmplayRun", M.run, { desc = "fmplay: run the #Playground block at the cursor" })
  command("FmplayRunAll", M.run_all, { desc = "fmplay: run every #Playground block in the file" })
  command("FmplayCancel", M.cancel, { desc = "fmplay: cancel the running evaluation" })
  command("FmplayClearCache", M.clear_cache, { desc = "fmplay: clear the result cache" })
  command("FmplayHover", M.hover, { desc = "fmplay: full output, schema or token count under the cursor" })
  command("FmplayReport", M.report, { desc = "fmplay: open the HTML report of this file's last results" })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  define_commands()
  local group = vim.api.nvim_create_augroup("fmplay", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = "*.fmplay",
    callback = function(args)
      vim.bo[args.buf].filetype = "fmplay"
    end,
  })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "fmplay",
    callback = function(args)
      vim.bo[args.buf].commentstring = "// %s"
      M.attach(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
    group = group,
    pattern = "*.fmplay",
    callback = function(args)
      refresh_codelens(args.buf)
    end,
  })
  -- Buffers already open when setup runs.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.api.nvim_buf_get_name(bufnr):match("%.fmplay$") then
      vim.bo[bufnr].filetype = "fmplay"
    end
  end
end

return M
