-- :HydraSearch [query] — find a session by what was said in it (the
-- server's full-text search, docs/search.md) and insert its mention. The
-- list shows what the server says to show (the title, agent · cwd · age,
-- the best snippet) and inserts the server's one-line mention: nothing
-- here builds a mention or an age. vim.ui.select and vim.ui.input exist
-- since Neovim 0.6, so this works from 0.7 on.
local M = {}

-- Sessions listed at most: what a selection list shows without paging.
local LIMIT = 20

local function shared()
  return require("hydra_session")._shared
end

--- One line per hit: the title, agent · cwd · age, then the best snippet.
function M.format_hit(hit)
  local first = type(hit.snippets) == "table" and hit.snippets[1] or nil
  local snippet = first and first.text or nil
  return hit.label .. "  " .. hit.detail .. ((snippet and snippet ~= "") and ("  — " .. snippet) or "")
end

-- Asks the server, lets the person choose, inserts the chosen mention.
local function run(bufnr, win, client, query)
  local s = shared()
  local params = {
    query = query,
    limit = LIMIT,
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = require("hydra_session.pick").cursor_position(win, client),
  }
  s.request(client, "sessionReference/search", params, function(err, hits)
    if err then
      -- A malformed query (an open quote) is the server's message.
      s.notify(s.describe(err), vim.log.levels.ERROR)
      return
    end
    if hits == nil or #hits == 0 then
      s.notify("no session says " .. query)
      return
    end
    require("hydra_session.pick").choose_and_insert(hits, "hydra_session_search", M.format_hit, bufnr, win, client, false)
  end, bufnr)
end

--- :HydraSearch [query]: with no query, asks for one (vim.ui.input).
function M.search(query)
  local s = shared()
  local bufnr = vim.api.nvim_get_current_buf()
  local win = vim.api.nvim_get_current_win()
  local client = s.need_client(bufnr)
  if not client then
    return
  end
  if query ~= nil and vim.trim(query) ~= "" then
    return run(bufnr, win, client, query)
  end
  vim.ui.input({ prompt = "Search sessions: " }, function(input)
    if input ~= nil and vim.trim(input) ~= "" then
      run(bufnr, win, client, input)
    end
  end)
end

return M
