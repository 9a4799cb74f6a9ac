-- Completion through Neovim 0.11's own vim.lsp.completion.
--
-- Its rules (runtime/lua/vim/lsp/completion.lua, 0.11.4) and what each
-- needs from the server or from here:
-- - It keeps an item only when its filterText starts with the text from the
--   items' common textEdit start (the "@") to the cursor, case-sensitively,
--   and asks again as more is typed only when the list is incomplete: the
--   server's opt-in `completionFiltering = "server"` (sent by init.lua's
--   client config and lsp/hydra_session.lua) gives every item the typed
--   "@query" as filterText and marks every list incomplete, so the server's
--   filter and order are the menu's.
-- - A plain textEdit's word is its newText up to the first white space, and
--   that word is what <C-y> leaves in the buffer: `convert` gives the whole
--   newText (the canonical mention) as the word, and `equal` so that Vim's
--   own filter keeps the items while the next answer is on its way.
-- - An item's command runs through vim.lsp.commands: a folder item's
--   "editor.action.triggerSuggest" opens the menu again inside the folder.
local M = {}

local TRIGGER_SUGGEST = "editor.action.triggerSuggest"

--- Whether this Neovim has the built-in completion the plugin relies on.
function M.available()
  return vim.fn.has("nvim-0.11") == 1
    and type(vim.lsp.completion) == "table"
    and type(vim.lsp.completion.enable) == "function"
end

--- The complete-item fields that differ from vim.lsp.completion's own.
function M.convert(item)
  local edit = type(item.textEdit) == "table" and item.textEdit or nil
  return {
    word = edit and edit.newText or nil,
    kind = require("hydra_session.complete").kind_name(item),
    equal = 1,
  }
end

local function register_commands()
  if vim.lsp.commands[TRIGGER_SUGGEST] == nil then
    vim.lsp.commands[TRIGGER_SUGGEST] = function()
      vim.schedule(function()
        if vim.fn.mode() == "i" then
          vim.lsp.completion.get()
        end
      end)
    end
  end
end

--- Completion in `bufnr` by vim.lsp.completion; `opts.auto`: the menu opens
--- by itself on "@" (the server's trigger character) and follows the query.
function M.attach(client, bufnr, opts)
  register_commands()
  vim.lsp.completion.enable(true, client.id, bufnr, {
    autotrigger = opts == nil or opts.auto ~= false,
    convert = M.convert,
  })
  -- <C-x><C-o> asks the same way (Neovim sets it only when it was unset).
  vim.bo[bufnr].omnifunc = "v:lua.vim.lsp.omnifunc"
end

return M
