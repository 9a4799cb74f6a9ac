-- Completion of session (and file) mentions where Neovim has no completion
-- that can take these items (0.7 to 0.10; on 0.11+ builtin.lua drives
-- vim.lsp.completion instead, unless `builtin_completion = false`).
--
-- The built-in LSP omnifunc of 0.7-0.10 keeps an item only when its word
-- starts with the typed "@query" and has no way to ask the server again as
-- the query grows. So this module asks the server itself (textDocument/completion), keeps the
-- server's order, and hands vim.fn.complete() items whose word is the whole
-- textEdit.newText, starting at the textEdit's own start, with equal=1 so
-- that Neovim's filter drops none of them as more is typed (each keystroke
-- asks the server again: it filters and ranks). Accepting inserts exactly
-- the canonical mention.
local M = {}

local NAME = "hydra_session"

-- State of the completion this module started.
local state = {
  seq = 0, -- request counter: answers to older requests are dropped
  active = false, -- keep asking as the query grows
  buf = nil,
  items = {}, -- the LSP items of the menu on screen, by index
  start = nil, -- byte column (0-based) where the menu's items start
  words = {}, -- the words of the menu's items (set: skip a re-ask on <C-n>)
  client = nil,
  saved_cot = nil, -- the user's 'completeopt' while ours is in force
}

local shared = require("hydra_session")._shared
local position = require("hydra_session.position")
local client_for = shared.client_for
local request = shared.request
M.client_for = client_for
M.request = request

local function has_popup()
  return vim.fn.has("nvim-0.10") == 1
end

-- Our 'completeopt' while our menu is up: a menu even for one item, never
-- the preview window (0.7 leaves it open and empty after accepting), the
-- first item selected but not inserted when the menu opened by itself.
local function use_our_completeopt(auto)
  if state.saved_cot == nil then
    state.saved_cot = vim.o.completeopt
  end
  local cot = "menu,menuone" .. (auto and ",noinsert" or "")
  if has_popup() and vim.o.completeopt:find("popup", 1, true) then
    cot = cot .. ",popup"
  end
  vim.o.completeopt = cot
end

local function restore_completeopt()
  if state.saved_cot ~= nil then
    vim.o.completeopt = state.saved_cot
    state.saved_cot = nil
  end
end

local function doc_text(item)
  local d = item.documentation
  if type(d) == "table" then
    d = d.value
  end
  if type(d) == "string" and d ~= "" then
    return d
  end
  return nil
end

--- The menu's kind of an item: session, over max, file or folder.
function M.kind_name(item)
  -- Deprecated: the server marks sessions that would exceed maxReferences.
  if type(item.tags) == "table" and vim.tbl_contains(item.tags, 1) then
    return "over max"
  end
  if item.kind == 17 or item.kind == 19 then -- File, Folder
    return item.kind == 19 and "folder" or "file"
  end
  return "session"
end

local function edit_range(item)
  local te = item.textEdit
  if type(te) ~= "table" then
    return nil
  end
  return te.range or te.insert, te.newText
end

--- The complete-items for the server's items (order kept), and the byte
--- column where they start; nil when there are none.
function M.to_complete_items(items, line, enc)
  local out, start = {}, nil
  for i, item in ipairs(items) do
    local range, text = edit_range(item)
    local word = text or item.insertText or item.label
    local col
    if range then
      col = position.byte(line, range.start.character, enc)
    end
    if start == nil then
      start = col
    end
    if col == start or col == nil then
      table.insert(out, {
        word = word,
        abbr = item.label,
        menu = type(item.detail) == "string" and item.detail or "",
        kind = M.kind_name(item),
        info = doc_text(item),
        icase = 1,
        equal = 1, -- Neovim's own filter keeps every item: the server filtered
        dup = 1,
        empty = 1,
        user_data = "hydra_session:" .. i,
      })
    end
  end
  if start == nil or #out == 0 then
    return nil
  end
  return out, start
end

local function items_of(result)
  if type(result) ~= "table" then
    return {}
  end
  return result.items or result
end

--- For the nvim-cmp and blink.cmp sources: asks the server at the cursor
--- and calls back with (items, line, start, col) — the items in the
--- server's order, the line, the byte column (0-based) where their edits
--- start and the cursor's — or with nil when there are none.
function M.request_items(bufnr, callback)
  local client = client_for(bufnr)
  if client == nil then
    return callback(nil)
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(0))
  local line = vim.api.nvim_get_current_line()
  local enc = client.offset_encoding or "utf-16"
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row - 1, character = position.character(line, col, enc) },
  }
  request(client, "textDocument/completion", params, function(err, result)
    local items = err and {} or items_of(result)
    local range = items[1] and edit_range(items[1])
    if range == nil then
      return callback(nil)
    end
    callback(items, line, position.byte(line, range.start.character, enc), col)
  end, bufnr)
end

--- For the nvim-cmp and blink.cmp sources: the item with the server's
--- preview (completionItem/resolve), or as it was when none comes.
function M.resolve(item, callback)
  local client = client_for(vim.api.nvim_get_current_buf())
  if client == nil then
    return callback(item)
  end
  request(client, "completionItem/resolve", item, function(err, resolved)
    callback(err == nil and resolved or item)
  end)
end

--- For the nvim-cmp and blink.cmp sources: the server's items, each with
--- the typed "@query" as its filterText so that the menu keeps them all in
--- the server's order; {} for none.
function M.typed_items(items, line, start, col)
  local out = {}
  if items == nil then
    return out
  end
  local typed = line:sub(start + 1, col)
  for _, item in ipairs(items) do
    local copy = vim.deepcopy(item)
    copy.filterText = typed
    table.insert(out, copy)
  end
  return out
end

--- Asks the server for the items at the cursor and shows them.
--- auto: opened by typing, not by <C-x><C-o> (then nothing is pre-inserted).
function M.trigger(auto)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if client == nil or vim.fn.mode() ~= "i" then
    return
  end
  state.seq = state.seq + 1
  local seq = state.seq
  local win = vim.api.nvim_get_current_win()
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local line = vim.api.nvim_get_current_line()
  local enc = client.offset_encoding or "utf-16"
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = row - 1, character = position.character(line, col, enc) },
    context = auto and { triggerKind = 2, triggerCharacter = "@" } or { triggerKind = 1 },
  }
  state.active = true
  state.buf = bufnr
  request(client, "textDocument/completion", params, function(err, result)
    if seq ~= state.seq then
      return -- a newer request is on its way
    end
    if vim.fn.mode() ~= "i" or vim.api.nvim_get_current_buf() ~= bufnr then
      state.active = false
      return
    end
    local r2, c2 = unpack(vim.api.nvim_win_get_cursor(0))
    if r2 ~= row or c2 ~= col then
      return -- the text moved on: TextChangedI asks again
    end
    local items = err and {} or items_of(result)
    local citems, start = M.to_complete_items(items, line, enc)
    if citems == nil then
      state.active = false
      state.items = {}
      if vim.fn.pumvisible() == 1 then
        vim.fn.complete(col + 1, {})
      end
      restore_completeopt()
      return
    end
    state.items = items
    state.client = client
    state.start = start
    state.words = {}
    for _, ci in ipairs(citems) do
      state.words[ci.word] = true
    end
    use_our_completeopt(auto)
    vim.fn.complete(start + 1, citems)
  end, bufnr)
end

--- 'omnifunc' (and 'completefunc'): <C-x><C-o> asks the server; the menu
--- comes asynchronously through vim.fn.complete().
function M.omnifunc(findstart, _)
  if findstart == 1 then
    vim.schedule(function()
      M.trigger(false)
    end)
    return -2 -- cancel silently: complete() shows the menu
  end
  return {}
end

local function completed_item()
  local ci = vim.v.completed_item
  if type(ci) ~= "table" or type(ci.user_data) ~= "string" then
    return nil
  end
  local idx = tonumber(ci.user_data:match("^hydra_session:(%d+)$"))
  return idx and state.items[idx] or nil
end

local function on_complete_done(bufnr)
  local item = completed_item()
  if item then
    state.active = false
    local client = state.client
    if item.additionalTextEdits and client then
      vim.lsp.util.apply_text_edits(item.additionalTextEdits, bufnr, client.offset_encoding or "utf-16")
    end
    local cmd = item.command
    if type(cmd) == "table" and cmd.command == "editor.action.triggerSuggest" then
      -- A folder: open the menu again on what it holds.
      vim.schedule(function()
        M.trigger(true)
      end)
    end
  end
  vim.schedule(function()
    if vim.fn.pumvisible() == 0 then
      restore_completeopt()
    end
  end)
end

--- Sets up completion in `bufnr`: omnifunc, and (auto) the menu opening by
--- itself when "@" is typed and following the query as it grows.
function M.attach(bufnr, opts)
  opts = opts or {}
  vim.bo[bufnr].omnifunc = "v:lua.require'hydra_session.complete'.omnifunc"
  local group = vim.api.nvim_create_augroup("hydra_session_complete_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd("CompleteDone", {
    group = group,
    buffer = bufnr,
    callback = function()
      on_complete_done(bufnr)
    end,
  })
  vim.api.nvim_create_autocmd("InsertLeave", {
    group = group,
    buffer = bufnr,
    callback = function()
      state.active = false
      state.seq = state.seq + 1
      restore_completeopt()
    end,
  })
  if opts.auto == false then
    return
  end
  vim.api.nvim_create_autocmd("InsertCharPre", {
    group = group,
    buffer = bufnr,
    callback = function()
      -- Whether a mention may start at this "@" is the server's call: an
      -- "@" where none can start gets no items, and no menu opens.
      if vim.v.char == "@" then
        vim.schedule(function()
          M.trigger(true)
        end)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ "TextChangedI", "TextChangedP" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      if not state.active or state.buf ~= bufnr then
        return
      end
      -- <C-n>/<C-p> put an item's word in the text: no new question then.
      local col = vim.api.nvim_win_get_cursor(0)[2]
      local typed = state.start and vim.api.nvim_get_current_line():sub(state.start + 1, col) or ""
      if not state.words[typed] then
        M.trigger(true)
      end
    end,
  })
end

M._state = state
return M
