-- What the pickers (:HydraMention, :HydraSearch) share: where the cursor
-- is for the server, choosing from a list, and putting the chosen mention
-- in place of the "@query" the server found (its range), or yanking it.
local M = {}

local position = require("hydra_session.position")

local function shared()
  return require("hydra_session")._shared
end

-- Puts `text` in the unnamed register and, when a clipboard provider is at
-- hand, in "+" (the system clipboard). Returns the registers written.
function M.yank(text)
  local regtype = text:sub(-1) == "\n" and "l" or "c"
  vim.fn.setreg('"', text, regtype)
  if vim.fn.has("clipboard") == 1 and pcall(vim.fn.setreg, "+", text, regtype) then
    return 'registers " and +'
  end
  return 'register " (no clipboard provider for +)'
end

-- The cursor's byte column as what was typed before it: in Normal mode the
-- cursor stands on a character, and the text up to and including it is.
local function typed_upto(line, col)
  return line == "" and 0 or math.min(#line, col + 1)
end

--- The LSP position just after what was typed before the cursor of `win`:
--- where the server looks for the "@query" a mention replaces.
function M.cursor_position(win, client)
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local line = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), row - 1, row, false)[1] or ""
  local enc = client.offset_encoding or "utf-16"
  return { line = row - 1, character = position.character(line, typed_upto(line, col), enc) }
end

-- Puts `mention` in place of `range` (the server's "@query" before the
-- cursor), else just after what was typed before the cursor.
local function insert_mention(bufnr, win, mention, range, client)
  if not vim.api.nvim_win_is_valid(win) or vim.api.nvim_win_get_buf(win) ~= bufnr then
    return
  end
  local row, col = unpack(vim.api.nvim_win_get_cursor(win))
  local line = vim.api.nvim_buf_get_lines(bufnr, row - 1, row, false)[1] or ""
  local start = typed_upto(line, col)
  local stop = start
  if type(range) == "table" and range.start.line == row - 1 and client then
    local enc = client.offset_encoding or "utf-16"
    start = position.byte(line, range.start.character, enc)
    stop = position.byte(line, range["end"].character, enc)
  end
  vim.api.nvim_buf_set_text(bufnr, row - 1, start, row - 1, stop, { mention })
  vim.api.nvim_win_set_cursor(win, { row, math.max(0, start + #mention - 1) })
end

-- Lets the person choose one of `list` (vim.ui.select) and inserts its
-- `insertText` (or, with `yank_only`, yanks it).
function M.choose_and_insert(list, prompt_kind, format_item, bufnr, win, client, yank_only)
  vim.ui.select(list, {
    prompt = "Session to mention",
    kind = prompt_kind,
    format_item = format_item,
  }, function(choice)
    -- The server's one-line mention: the plugin never computes one.
    local mention = choice and choice.insertText
    if mention and yank_only then
      shared().notify(string.format("%s yanked to %s", mention, M.yank(mention)))
    elseif mention then
      insert_mention(bufnr, win, mention, choice.range, client)
    end
  end)
end

return M
