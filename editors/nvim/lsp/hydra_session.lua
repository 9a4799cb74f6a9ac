-- hydra-session-lsp for Neovim 0.11+, with no plugin call:
--
--   vim.lsp.config("hydra_session", {
--     settings = { hydraSession = { store = "~/.hydra/sessions", maxReferences = 3 } },
--   })
--   vim.lsp.enable("hydra_session")
--
-- `settings.hydraSession` is also sent as initializationOptions. on_attach
-- sets up completion (menu on "@", <C-x><C-o>; Neovim's own
-- vim.lsp.completion, with the server's opt-in for it), K for hover
-- and virtual text for the server's diagnostics; a config that sets its
-- own on_attach can call require("hydra_session").on_attach(client, bufnr).
return {
  cmd = { "hydra-session-lsp", "--stdio" },
  filetypes = { "markdown", "prompt" },
  root_markers = { ".git" },
  before_init = function(params, config)
    local s = type(config.settings) == "table" and config.settings.hydraSession or nil
    if type(s) ~= "table" then
      s = {}
    end
    -- With the server's opt-in for vim.lsp.completion when it completes.
    params.initializationOptions = { hydraSession = require("hydra_session").init_section(s) }
  end,
  on_attach = function(client, bufnr)
    require("hydra_session").on_attach(client, bufnr)
  end,
}
