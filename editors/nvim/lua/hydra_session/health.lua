-- :checkhealth hydra_session
local M = {}

-- vim.health (0.8+: start/ok/…; 0.8-0.9 also report_*), or 0.7's "health".
local start, ok, warn, err, info
local function load_reporters()
  local h = vim.health
  if not (h and (h.start or h.report_start)) then
    h = require("health")
  end
  start = h.start or h.report_start
  ok = h.ok or h.report_ok
  warn = h.warn or h.report_warn
  err = h.error or h.report_error
  info = h.info or h.report_info
end

local function clients()
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  local out = {}
  for _, c in ipairs(all) do
    if c.name == "hydra_session" then
      table.insert(out, c)
    end
  end
  return out
end

local function request_sync(client, method, params)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request_sync(method, params, 5000)
  end
  return client.request_sync(method, params, 5000)
end

local function cmd_of(running)
  if running and type(running.config.cmd) == "table" then
    return running.config.cmd
  end
  local hs = package.loaded["hydra_session"]
  local cfg = hs and hs.current_config and hs.current_config()
  if cfg and type(cfg.cmd) == "table" then
    return cfg.cmd
  end
  if vim.lsp.config and vim.lsp.config.hydra_session and type(vim.lsp.config.hydra_session.cmd) == "table" then
    return vim.lsp.config.hydra_session.cmd
  end
  return { "hydra-session-lsp", "--stdio" }
end

function M.check()
  load_reporters()
  start("Neovim")
  local v = vim.version()
  local version = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  if vim.fn.has("nvim-0.7") == 1 then
    ok("Neovim " .. version)
  else
    err("Neovim " .. version .. ": the plugin needs 0.7 or later")
  end

  local running = clients()[1]
  start("hydra-session-lsp")
  local cmd = cmd_of(running)
  local exe = vim.fn.exepath(cmd[1])
  if exe == "" then
    err("server binary not found: " .. cmd[1], { "cargo install --path . (in the hydra-session-lsp clone)",
      "or set cmd = { '/path/to/hydra-session-lsp', '--stdio' }" })
  else
    local out = vim.fn.system({ exe, "--version" })
    if vim.v.shell_error == 0 then
      ok(string.format("binary %s (%s)", exe, (out:gsub("%s+$", ""))))
    else
      err(string.format("binary %s does not run: %s", exe, out))
    end
  end

  start("Session store")
  if running == nil then
    warn("no hydra_session client is running: open a Markdown or prompt file, then run :checkhealth hydra_session again")
  else
    local r = request_sync(running, "sessionReference/status", vim.empty_dict())
    -- Give a first index a moment to finish, rather than report 0 sessions.
    vim.wait(3000, function()
      if r and type(r.result) == "table" and r.result.indexing then
        r = request_sync(running, "sessionReference/status", vim.empty_dict())
        return not (r and type(r.result) == "table" and r.result.indexing)
      end
      return true
    end, 100)
    local status = r and r.result
    if type(status) ~= "table" then
      err("sessionReference/status failed: " .. vim.inspect(r and (r.err or r.error) or "no answer"))
    else
      local store = tostring(status.store)
      if vim.fn.isdirectory(store) == 1 then
        ok(string.format("store %s: %d sessions%s", store, status.sessions or 0,
          status.indexing and " (still indexing)" or ""))
      else
        warn(string.format("store %s does not exist (0 sessions)", store),
          { "set settings.store, or $HYDRA_SESSION_STORE" })
      end
    end
  end

  start("Completion")
  local hs = require("hydra_session")
  info("completion source: " .. hs.completion_source())
end

return M
