-- The user commands, also when the server is started by vim.lsp.enable()
-- (Neovim 0.11+) rather than by require("hydra_session").setup().
if vim.g.loaded_hydra_session then
  return
end
vim.g.loaded_hydra_session = true
require("hydra_session").define_commands()
