-- An nvim-cmp source for session mentions:
--
--   require("hydra_session.cmp").setup()   -- registers source "hydra_session"
--   cmp.setup.filetype({ "markdown", "prompt" }, {
--     sources = { { name = "hydra_session" }, { name = "nvim_lsp" } },
--   })
--
-- cmp's nvim_lsp source filters the server's items itself, on the text
-- from the start of the keyword; its keyword never holds "@", so the
-- "@[Title](…)" items may be dropped or badly ranked. This source asks the
-- server at every keystroke (isIncomplete), gives each item the typed
-- "@query" as filterText so that cmp keeps them all in the server's order
-- (sortText), and leaves the textEdit as it is: accepting inserts the whole
-- canonical mention.
local M = {}

local complete = require("hydra_session.complete")

local source = {}
source.__index = source

function source.new()
  return setmetatable({}, source)
end

function source:get_debug_name()
  return "hydra_session"
end

function source:is_available()
  return complete.client_for(vim.api.nvim_get_current_buf()) ~= nil
end

function source:get_trigger_characters()
  return { "@" }
end

-- "@" and the query after it (server.md, "Completion").
function source:get_keyword_pattern()
  return [[@[^[:space:]@\[\]()]*]]
end

function source:complete(params, callback)
  local bufnr = vim.api.nvim_get_current_buf()
  complete.request_items(bufnr, function(items, line, start, col)
    callback({ items = complete.typed_items(items, line, start, col), isIncomplete = true })
  end)
  return params
end

function source:resolve(item, callback)
  complete.resolve(item, callback)
end

--- Registers the source with nvim-cmp (name "hydra_session").
function M.setup()
  local ok, cmp = pcall(require, "cmp")
  if not ok then
    vim.notify("Hydra: nvim-cmp is not installed", vim.log.levels.WARN)
    return
  end
  cmp.register_source("hydra_session", source.new())
end

M.source = source
return M
