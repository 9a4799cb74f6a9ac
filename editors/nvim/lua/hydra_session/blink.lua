-- A blink.cmp source for session mentions:
--
--   require("blink.cmp").setup({
--     sources = {
--       default = { "hydra_session", "lsp", "path", "buffer" },
--       providers = { hydra_session = { name = "Hydra", module = "hydra_session.blink" } },
--     },
--   })
--
-- blink.cmp matches its keyword (letters, digits, "_" and "-") against each
-- item's filterText. This source asks the server at every keystroke
-- (is_incomplete), sets filterText to the typed "@query" so that nothing
-- is dropped, keeps the server's order (sortText), and keeps the textEdit:
-- accepting inserts the whole canonical mention.
local complete = require("hydra_session.complete")

local source = {}
source.__index = source

function source.new(opts)
  return setmetatable({ opts = opts or {} }, source)
end

function source:enabled()
  return complete.client_for(vim.api.nvim_get_current_buf()) ~= nil
end

function source:get_trigger_characters()
  return { "@" }
end

function source:get_completions(_, callback)
  local bufnr = vim.api.nvim_get_current_buf()
  complete.request_items(bufnr, function(items, line, start, col)
    local out = complete.typed_items(items, line, start, col)
    callback({ items = out, is_incomplete_forward = true, is_incomplete_backward = true })
  end)
end

function source:resolve(item, callback)
  complete.resolve(item, callback)
end

return source
