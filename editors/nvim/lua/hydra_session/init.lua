-- Hydra session references for Neovim (0.7 and later).
--
--   require("hydra_session").setup({
--     cmd = { "hydra-session-lsp", "--stdio" },
--     settings = { store = "~/.hydra/sessions" },
--   })
--
-- Starts hydra-session-lsp for Markdown and prompt buffers, passes `settings`
-- as initializationOptions (and answers workspace/configuration with them),
-- and adds :HydraPrepare[!], :HydraMention[!], :HydraSearch, :HydraStatus and
-- :HydraRestart.
-- See the "Editors" section of the README.
local M = {}

local NAME = "hydra_session"
local SECTION = "hydraSession"

local defaults = {
  cmd = { "hydra-session-lsp", "--stdio" },
  -- Server settings: store, targetSessionId, maxReferences, candidateLimit,
  -- maxReferenceBytes, logLevel.
  settings = {},
  filetypes = { "markdown", "prompt" },
  -- A directory, or a function(bufnr) returning one. Default: the nearest
  -- ancestor holding .git, else the current directory.
  root_dir = nil,
  -- Set up completion in attached buffers: <C-x><C-o> after "@" (and the
  -- menu on "@", see autocomplete).
  omnifunc = true,
  -- Neovim 0.11+: complete with Neovim's own vim.lsp.completion (the server
  -- is asked to keep its filter and order for it: completionFiltering =
  -- "server"). false: the plugin's own engine, as on 0.7-0.10. Default: on
  -- 0.11+, unless nvim-cmp or blink.cmp is loaded.
  builtin_completion = nil,
  -- Open the completion menu by itself when "@" is typed, and follow the
  -- query as it grows. Default: on, unless nvim-cmp or blink.cmp is loaded
  -- (they complete on "@" themselves).
  autocomplete = nil,
  -- Map K to hover in attached buffers (Neovim 0.7-0.9 have no such default:
  -- K runs man there), unless the buffer already maps K.
  keymaps = true,
  -- Show the server's diagnostics as virtual text (0.11 turned it off by
  -- default for every namespace); false leaves vim.diagnostic.config alone.
  virtual_text = true,
  capabilities = nil,
  on_attach = nil,
}

local uv = vim.uv or vim.loop -- vim.loop is deprecated from 0.10 on

local config = nil
local clients_by_root = {} -- Neovim 0.7: root directory -> client id

local function notify(msg, level)
  vim.notify("Hydra: " .. msg, level or vim.log.levels.INFO)
end

-- JSON needs an object here even when the table is empty.
local function as_object(t)
  if t == nil or next(t) == nil then
    return vim.empty_dict()
  end
  return t
end

local function get_all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

local function client_for(bufnr)
  for _, client in ipairs(get_all_clients()) do
    if client.name == NAME and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

-- client:request (0.11 and later) or client.request (before).
local function request(client, method, params, handler, bufnr)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if vim.fn.has("nvim-0.11") == 1 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function root_for(bufnr)
  local root = config.root_dir
  if type(root) == "function" then
    root = root(bufnr)
  end
  if type(root) == "string" and root ~= "" then
    return vim.fn.fnamemodify(root, ":p"):gsub("(.)/$", "%1")
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = name ~= "" and vim.fn.fnamemodify(name, ":p:h") or uv.cwd()
  local probe = dir
  while probe and probe ~= "" do
    if uv.fs_stat(probe .. "/.git") then
      return probe
    end
    local parent = vim.fn.fnamemodify(probe, ":h")
    if parent == probe then
      break
    end
    probe = parent
  end
  return uv.cwd()
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- nvim-cmp and blink.cmp advertise what they can do; use it when present.
  local ok_cmp, cmp_lsp = pcall(require, "cmp_nvim_lsp")
  if ok_cmp and type(cmp_lsp.default_capabilities) == "function" then
    caps = cmp_lsp.default_capabilities(caps)
  end
  local ok_blink, blink = pcall(require, "blink.cmp")
  if ok_blink and type(blink.get_lsp_capabilities) == "function" then
    caps = blink.get_lsp_capabilities(caps)
  end
  if config.capabilities then
    caps = vim.tbl_deep_extend("force", caps, config.capabilities)
  end
  return caps
end

local function plugin_loaded(name)
  return package.loaded[name] ~= nil or pcall(require, name)
end

--- Which completion path serves "@" in this Neovim: for :checkhealth.
function M.completion_source()
  local opts = config or defaults
  local parts = {}
  if plugin_loaded("cmp") then
    table.insert(parts, "nvim-cmp (add the \"hydra_session\" source: require('hydra_session.cmp').setup())")
  end
  if plugin_loaded("blink.cmp") then
    table.insert(parts, "blink.cmp (add the \"hydra_session\" provider: module 'hydra_session.blink')")
  end
  if M.builtin_completion_enabled() then
    table.insert(parts, "vim.lsp.completion (<C-x><C-o>)" .. (M.autocomplete_enabled() and ", opening by itself on '@'" or ""))
  elseif opts.omnifunc ~= false then
    table.insert(parts, "the plugin's omnifunc (<C-x><C-o>)" .. (M.autocomplete_enabled() and ", opening by itself on '@'" or ""))
  end
  if #parts == 0 then
    return "none (omnifunc = false and no nvim-cmp or blink.cmp)"
  end
  return table.concat(parts, "; ")
end

--- Whether completion goes through vim.lsp.completion (Neovim 0.11+).
function M.builtin_completion_enabled()
  local opts = config or defaults
  if opts.builtin_completion == false or opts.omnifunc == false then
    return false
  end
  if not require("hydra_session.builtin").available() then
    return false
  end
  if opts.builtin_completion == true then
    return true
  end
  return not (plugin_loaded("cmp") or plugin_loaded("blink.cmp"))
end

--- The initializationOptions section for these settings: the server's
--- opt-in for vim.lsp.completion when that is what completes, unless the
--- settings say otherwise.
function M.init_section(settings)
  local section = vim.tbl_extend("force", {}, settings or {})
  if M.builtin_completion_enabled() and section.completionFiltering == nil then
    section.completionFiltering = "server"
  end
  return as_object(section)
end

function M.autocomplete_enabled()
  local opts = config or defaults
  if opts.autocomplete ~= nil then
    return opts.autocomplete
  end
  return not (plugin_loaded("cmp") or plugin_loaded("blink.cmp"))
end

local function diagnostic_namespaces(client)
  local out = {}
  if vim.lsp.diagnostic and vim.lsp.diagnostic.get_namespace then
    table.insert(out, vim.lsp.diagnostic.get_namespace(client.id))
    if vim.fn.has("nvim-0.10") == 1 then
      local ok, ns = pcall(vim.lsp.diagnostic.get_namespace, client.id, true)
      if ok and ns then
        table.insert(out, ns)
      end
    end
  end
  return out
end

--- What the plugin sets up in a buffer the server attached to. Called by
--- setup()'s client and by the lsp/hydra_session.lua config (Neovim 0.11+).
function M.on_attach(client, bufnr)
  local opts = config or defaults
  if M.builtin_completion_enabled() then
    require("hydra_session.builtin").attach(client, bufnr, { auto = M.autocomplete_enabled() })
  elseif opts.omnifunc ~= false then
    require("hydra_session.complete").attach(bufnr, { auto = M.autocomplete_enabled() })
  end
  if opts.keymaps ~= false then
    local existing = vim.fn.maparg("K", "n", false, true)
    local buffer_map = type(existing) == "table" and existing.buffer == 1
      and not (existing.desc or ""):find("vim.lsp.buf.hover", 1, true)
      and (existing.desc or "") ~= "Hover (LSP)"
    if not buffer_map then
      vim.keymap.set("n", "K", function()
        vim.lsp.buf.hover()
      end, { buffer = bufnr, desc = "Hydra: hover (vim.lsp.buf.hover)" })
    end
  end
  if opts.virtual_text ~= false and vim.fn.has("nvim-0.11") == 1 then
    for _, ns in ipairs(diagnostic_namespaces(client)) do
      vim.diagnostic.config({ virtual_text = true }, ns)
    end
  end
  if opts.on_attach then
    opts.on_attach(client, bufnr)
  end
end

local function on_attach(client, bufnr)
  M.on_attach(client, bufnr)
end

local function client_config(root)
  local settings = as_object(config.settings)
  return {
    name = NAME,
    cmd = config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = { [SECTION] = M.init_section(config.settings) },
    -- Answers the server's workspace/configuration pulls for "hydraSession".
    settings = { [SECTION] = settings },
    capabilities = capabilities(),
    on_attach = on_attach,
    on_exit = function()
      for r, id in pairs(clients_by_root) do
        if vim.lsp.get_client_by_id(id) == nil or r == root then
          clients_by_root[r] = nil
        end
      end
    end,
  }
end

--- Starts (or reuses) the server for `bufnr` and attaches it.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if not config or not vim.api.nvim_buf_is_valid(bufnr) then
    return
  end
  -- Scratch buffers (hover, :HydraPrepare output) are not prompts.
  if vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = root_for(bufnr)
  if vim.lsp.start then
    vim.api.nvim_buf_call(bufnr, function()
      vim.lsp.start(client_config(root), { bufnr = bufnr })
    end)
    return
  end
  -- Neovim 0.7: no vim.lsp.start.
  local id = clients_by_root[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client(client_config(root))
    if id == nil then
      notify("cannot start " .. table.concat(config.cmd, " "), vim.log.levels.ERROR)
      return
    end
    clients_by_root[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
end

--- Changes settings without a restart (keys left out keep their values).
function M.update_settings(settings)
  config.settings = vim.tbl_extend("force", config.settings, settings or {})
  for _, client in ipairs(get_all_clients()) do
    if client.name == NAME then
      client.config.settings = { [SECTION] = as_object(config.settings) }
      client_notify(client, "workspace/didChangeConfiguration", {
        settings = { [SECTION] = as_object(settings) },
      })
    end
  end
end

local function need_client(bufnr)
  local client = client_for(bufnr)
  if client == nil then
    notify("no hydra-session-lsp attached to this buffer", vim.log.levels.WARN)
  end
  return client
end

local function describe(err)
  local code = type(err.data) == "table" and err.data.code or nil
  return (err.message or tostring(err)) .. (code and (" (" .. code .. ")") or "")
end

local scratch_count = 0

-- Asks the server for `bufnr`'s prepare result in `format` and calls
-- `on_result(result)`; a failure is notified.
local function prepare_as(bufnr, format, on_result)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = need_client(bufnr)
  if not client then
    return
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, format = format }
  request(client, "sessionReference/prepare", params, function(err, result)
    if err then
      notify(describe(err), vim.log.levels.ERROR)
      return
    end
    on_result(result or {}, bufnr)
  end, bufnr)
end

--- :HydraPrepare! — the prompt as an agent reading plain text receives it
--- (the server's `prepare --format text`), yanked to the unnamed and "+"
--- registers: paste it into `claude`, `codex` or any chat.
function M.prepare_text(bufnr)
  prepare_as(bufnr, "text", function(result)
    local text = result.text
    if type(text) ~= "string" then
      notify("the server answered no text form (is it up to date?)", vim.log.levels.ERROR)
      return
    end
    local lines = select(2, text:gsub("\n", "\n"))
    local where = require("hydra_session.pick").yank(text)
    notify(string.format("prepared prompt (%d line%s) yanked to %s", lines, lines == 1 and "" or "s", where))
  end)
end

--- :HydraPrepare — the context this prompt will carry, in a scratch buffer.
--- (The server's Markdown: the context, then the reference statistics.)
function M.prepare(bufnr)
  prepare_as(bufnr, "markdown", function(result, bufnr)
    local markdown = result.markdown
    if type(markdown) ~= "string" then
      notify("this buffer references no session")
      return
    end
    local body = markdown:gsub("\n$", "")
    local lines = vim.split(body, "\n", true)
    local buf = vim.api.nvim_create_buf(false, true)
    local bo = vim.bo[buf]
    bo.buftype = "nofile"
    bo.bufhidden = "wipe"
    bo.swapfile = false
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    bo.modifiable = false
    -- The context holds one very long JSON line: Markdown's syntax would
    -- give up on it with E363. Highlight only the start of long lines.
    bo.synmaxcol = 400
    bo.filetype = "markdown"
    scratch_count = scratch_count + 1
    local source = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t")
    pcall(vim.api.nvim_buf_set_name, buf, string.format("hydra://context/%d/%s", scratch_count, source))
    vim.api.nvim_buf_set_var(buf, "hydra_context_of", bufnr)
    vim.cmd("vsplit")
    vim.api.nvim_win_set_buf(0, buf)
  end)
end

--- One line per candidate: the title, the id when it differs from the
--- title, then the server's detail (agent · folder · workspace · age).
function M.format_candidate(c)
  local title = (c.displayTitle ~= nil and c.displayTitle ~= vim.NIL) and c.displayTitle or c.label
  local id = title ~= c.sessionId and ("  [" .. c.sessionId .. "]") or ""
  return string.format("%s%s  %s", title, id, c.detail or "")
end

--- :HydraMention[!] [query] — pick a session and insert its mention (with
--- !, or `opts.yank`: yank it to the unnamed and "+" registers instead).
function M.mention(query, opts)
  local yank_only = opts ~= nil and opts.yank
  local pick = require("hydra_session.pick")
  local bufnr = vim.api.nvim_get_current_buf()
  local win = vim.api.nvim_get_current_win()
  local client = need_client(bufnr)
  if not client then
    return
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    query = query or "",
    position = pick.cursor_position(win, client),
  }
  -- The picker's own request: the candidates, what to show of each, the
  -- mention to insert and the "@query" it replaces.
  request(client, "sessionReference/pickCandidates", params, function(err, candidates)
    if err then
      notify(describe(err), vim.log.levels.ERROR)
      return
    end
    if candidates == nil or #candidates == 0 then
      notify("no session matches")
      return
    end
    pick.choose_and_insert(candidates, "hydra_session", M.format_candidate, bufnr, win, client, yank_only)
  end, bufnr)
end

--- :HydraStatus — the store and how many sessions it holds.
function M.status()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then
    return
  end
  request(client, "sessionReference/status", vim.empty_dict(), function(err, status)
    if err then
      notify(describe(err), vim.log.levels.ERROR)
      return
    end
    notify(string.format("%d session%s in %s%s", status.sessions, status.sessions == 1 and "" or "s",
      status.store, status.indexing and " (indexing)" or ""))
  end, bufnr)
end

--- :HydraPublish URL [SESSION] — publish a session to a team store
--- (docs/team-store.md): SESSION is a mention, a hydra-session: URI or an
--- id, else the mention under the cursor. The pinned mention is yanked.
--- When the server finds credentials it names their kinds; :HydraPublish!
--- publishes anyway, those kinds allowed.
function M.publish(args, force)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = need_client(bufnr)
  if not client then
    return
  end
  local to, session = (args or ""):match("^%s*(%S+)%s*(.-)%s*$")
  if not to then
    notify("usage: :HydraPublish URL [SESSION]", vim.log.levels.ERROR)
    return
  end
  if session == "" then
    local line = vim.api.nvim_get_current_line()
    local col = vim.api.nvim_win_get_cursor(0)[2] + 1
    for s, m, e in line:gmatch("()(@%[[^%]]*%]%(hydra%-session:[%w_%-]*%))()") do
      if s <= col and col <= e then
        session = m
      end
    end
  end
  if session == "" then
    notify("no session named and no mention under the cursor", vim.log.levels.ERROR)
    return
  end
  local function send(allow)
    local params = { to = to, sessions = { session }, allowSecret = allow }
    request(client, "sessionReference/publish", params, function(err, published)
      if err then
        local data = err.data or {}
        if data.code == "SESSION_REFERENCE_SECRET" and type(data.findings) == "table" then
          local kinds, seen = {}, {}
          for _, f in ipairs(data.findings) do
            if not seen[f.kind] then
              seen[f.kind] = true
              table.insert(kinds, f.kind)
            end
          end
          if force then
            send(kinds)
            return
          end
          notify("nothing was published: " .. table.concat(kinds, ", ")
            .. " found; :HydraPublish! publishes anyway", vim.log.levels.WARN)
          return
        end
        notify(describe(err), vim.log.levels.ERROR)
        return
      end
      local mentions = {}
      for _, p in ipairs(published or {}) do
        table.insert(mentions, p.mention)
      end
      vim.fn.setreg('"', table.concat(mentions, "\n"))
      notify("published; the pinned mention is yanked: " .. table.concat(mentions, " "))
    end, bufnr)
  end
  send({})
end

--- :HydraRestart — stop the servers and attach the buffers again.
function M.restart()
  local buffers = {}
  for _, client in ipairs(get_all_clients()) do
    if client.name == NAME then
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if vim.lsp.buf_is_attached(b, client.id) then
          table.insert(buffers, b)
        end
      end
      if vim.fn.has("nvim-0.11") == 1 then
        client:stop()
      else
        client.stop()
      end
    end
  end
  clients_by_root = {}
  vim.wait(3000, function()
    for _, client in ipairs(get_all_clients()) do
      if client.name == NAME then
        return false
      end
    end
    return true
  end, 20)
  for _, b in ipairs(buffers) do
    if config then
      M.attach(b)
    elseif vim.api.nvim_buf_is_valid(b) then
      -- Started by vim.lsp.enable(): it attaches again on FileType.
      vim.api.nvim_buf_call(b, function()
        vim.cmd("doautocmd <nomodeline> FileType " .. vim.bo[b].filetype)
      end)
    end
  end
end

--- :HydraPrepare, :HydraMention, :HydraSearch, :HydraStatus, :HydraPublish, :HydraRestart.
function M.define_commands()
  vim.api.nvim_create_user_command("HydraPrepare", function(args)
    if args.bang then
      M.prepare_text(0)
    else
      M.prepare(0)
    end
  end, {
    bang = true,
    desc = "Show the context this prompt's session mentions will carry (!: yank the prepared prompt)",
  })
  vim.api.nvim_create_user_command("HydraMention", function(args)
    M.mention(args.args, { yank = args.bang })
  end, { nargs = "?", bang = true, desc = "Pick a session and insert its mention (!: yank it)" })
  vim.api.nvim_create_user_command("HydraSearch", function(args)
    require("hydra_session.search").search(args.args)
  end, { nargs = "?", desc = "Find a session by what was said in it and insert its mention" })
  vim.api.nvim_create_user_command("HydraStatus", M.status, { desc = "Show the session store" })
  vim.api.nvim_create_user_command("HydraPublish", function(args)
    M.publish(args.args, args.bang)
  end, { nargs = "+", bang = true, desc = "Publish Session to Team Store (!: even with credentials found)" })
  vim.api.nvim_create_user_command("HydraRestart", M.restart, { desc = "Restart hydra-session-lsp" })
end

-- What the plugin's other modules reuse; not an API.
M._shared = {
  request = request,
  client_for = client_for,
  need_client = need_client,
  notify = notify,
  describe = describe,
}

--- The configuration setup() was given (nil before setup()).
function M.current_config()
  return config
end

function M.setup(opts)
  opts = opts or {}
  config = vim.tbl_deep_extend("force", defaults, opts)
  -- Lists are replaced, not merged by index.
  config.cmd = opts.cmd or defaults.cmd
  config.filetypes = opts.filetypes or defaults.filetypes
  if type(config.cmd) == "string" then
    config.cmd = { config.cmd, "--stdio" }
  end

  local group = vim.api.nvim_create_augroup("hydra_session", { clear = true })
  vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, {
    group = group,
    pattern = "*.prompt",
    command = "setfiletype prompt",
  })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })

  M.define_commands()

  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(config.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

return M
