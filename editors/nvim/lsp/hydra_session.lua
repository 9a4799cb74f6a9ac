-- hydra-session-lsp for Neovim 0.11+, with no plugin call:
--
--   vim.lsp.config("hydra_session", {
--     settings = { hydraSession = { store = "~/.hydra/sessions", maxReferences = 3 } },
--   })
--   vim.lsp.enable("hydra_session")
--
-- `settings.hydraSession` is also sent as initializationOptions. on_attach
-- sets up the plugin's completion (menu on "@", <C-x><C-o>), K for hover
-- and virtual text for the server's diagnostics; a config that sets its
-- own on_attach can call require("hydra_session").on_attach(client, bufnr).
return {
  cmd = { "hydra-session-lsp", "--stdio" },
  filetypes = { "markdown", "prompt" },
  root_markers = { ".git" },
  before_init = function(params, config)
    local s = type(config.settings) == "table" and config.settings.hydraSession or nil
    if type(s) ~= "table" or next(s) == nil then
      s = vim.empty_dict()
    end
    params.initializationOptions = { hydraSession = s }
  end,
  on_attach = function(client, bufnr)
    require("hydra_session").on_attach(client, bufnr)
  end,
}
