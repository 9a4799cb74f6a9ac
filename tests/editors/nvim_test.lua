-- Headless Neovim against the real server (run by editors/test.sh):
--
--   HYDRA_SERVER=target/debug/hydra-session-lsp HYDRA_STORE=examples/sessions \
--   HYDRA_TMP=$(mktemp -d) nvim --headless --clean \
--     --cmd 'set rtp^=editors/nvim' -c 'luafile tests/editors/nvim_test.lua'
--
-- Prints "PASS name" / "FAIL name: why" lines on stdout, writes the server's
-- pid to $HYDRA_TMP/server.pid, and quits with :qa! (status 0) or :cq (1).
-- Everything waits with a deadline; a global one ends the run.

local server = assert(os.getenv("HYDRA_SERVER"), "HYDRA_SERVER")
local store = assert(os.getenv("HYDRA_STORE"), "HYDRA_STORE")
local tmp = assert(os.getenv("HYDRA_TMP"), "HYDRA_TMP")
local examples = os.getenv("HYDRA_EXAMPLES") or (vim.fn.fnamemodify(store, ":h") .. "/prompt.md")
local GLOBAL_DEADLINE_MS = tonumber(os.getenv("HYDRA_DEADLINE_MS") or "90000")

-- A clipboard provider that writes "+ to a file, so :HydraPrepare! and
-- :HydraMention! can be seen reaching the system clipboard register.
local clip_file = tmp .. "/clipboard.txt"
vim.g.clipboard = {
  name = "hydra-test",
  copy = { ["+"] = { "sh", "-c", "cat > '" .. clip_file .. "'" }, ["*"] = { "sh", "-c", "cat > /dev/null" } },
  paste = { ["+"] = { "cat", clip_file }, ["*"] = { "true" } },
  cache_enabled = 0,
}

local failed, passed = 0, 0
local function out(line)
  -- A newline first: headless Neovim prints mode messages with none.
  io.stdout:write("\n" .. line .. "\n")
  io.stdout:flush()
end
local v = vim.version()
local who = string.format("nvim %d.%d.%d%s", v.major, v.minor, v.patch,
  os.getenv("HYDRA_NVIM_MODE") == "lsp-config" and " (vim.lsp.enable)" or "")
local function check(name, ok, why)
  if ok then
    passed = passed + 1
    out("PASS " .. who .. ": " .. name)
  else
    failed = failed + 1
    out("FAIL " .. who .. ": " .. name .. ": " .. tostring(why or "check failed"))
  end
  return ok
end

local function finish()
  out(string.format("%s test summary: passed=%d failed=%d", who, passed, failed))
  if failed > 0 then
    vim.cmd("cquit 1")
  else
    vim.cmd("qall!")
  end
end

-- ---- canonical mentions (reference.md §1, §2) ----------------------------
local function b64url(s)
  local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
  local outp = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local chars = 2 + (b and 1 or 0) + (c and 1 or 0)
    for k = 1, chars do
      local shift = 18 - 6 * (k - 1)
      local idx = math.floor(n / 2 ^ shift) % 64
      table.insert(outp, alphabet:sub(idx + 1, idx + 1))
    end
  end
  return table.concat(outp)
end
local function uri(id)
  return "hydra-session:" .. b64url('"' .. id .. '"') -- demo ids need no escaping
end
local function mention(id, label)
  return "@[" .. label .. "](" .. uri(id) .. ")"
end
local expected = {
  ["checkout-tax"] = mention("checkout-tax", "Checkout tax rounding"),
  ["checkout-tax.test-writer"] = mention("checkout-tax.test-writer", "test-writer"),
  ["inventory-refactor"] = mention("inventory-refactor", "Inventory refactor"),
  ["deploy-2026-11-28"] = mention("deploy-2026-11-28", "deploy-2026-11-28"),
}
assert(expected["checkout-tax"] == "@[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)")

-- ---- coroutine driver: yield to the main loop so typeahead and LSP
-- ---- messages are processed between steps --------------------------------
local co
local function resume()
  local ok, err = coroutine.resume(co)
  if not ok then
    check("test script", false, debug.traceback(co, err))
    finish()
  end
end
local function sleep(ms)
  vim.defer_fn(resume, ms)
  coroutine.yield()
end
local function wait_for(timeout_ms, pred)
  local deadline = vim.loop.now() + timeout_ms
  while true do
    local ok, v = pcall(pred)
    if ok and v then
      return v
    end
    if vim.loop.now() > deadline then
      return nil
    end
    sleep(25)
  end
end
local function feed(keys, mode)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), mode or "n", false)
end

local function hydra_client(bufnr)
  local all = vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()
  for _, c in ipairs(all) do
    if c.name == "hydra_session" and vim.lsp.buf_is_attached(bufnr, c.id) then
      return c
    end
  end
end

local function write_file(path, lines)
  local f = assert(io.open(path, "w"))
  f:write(table.concat(lines, "\n") .. "\n")
  f:close()
end

local function find_diag(list, code, lnum)
  for _, d in ipairs(list) do
    if d.code == code and d.lnum == lnum then
      return d
    end
  end
end

-- :HydraSearch: a session found by words said only in its body ("regression"
-- is in test-writer's first message, in no title, id or folder), the last
-- word half typed; the line vim.ui.select shows and the mention inserted are
-- the server's. Without a query it asks for one with vim.ui.input.
local function check_hydra_search(buf)
  local real_select, real_input = vim.ui.select, vim.ui.input
  local offered, shown
  vim.ui.select = function(list, opts, on_choice)
    offered = list
    for _, hit in ipairs(list) do
      if hit.sessionId == "checkout-tax.test-writer" then
        shown = opts.format_item(hit)
        return on_choice(hit, _)
      end
    end
    on_choice(nil)
  end
  local asked
  vim.ui.input = function(opts, on_confirm)
    asked = opts.prompt
    on_confirm("regression tes")
  end
  local function run(command, prefix)
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { prefix })
    local last = vim.api.nvim_buf_line_count(buf)
    vim.api.nvim_win_set_cursor(0, { last, #prefix - 1 })
    offered, shown = nil, nil
    vim.cmd(command)
    return wait_for(20000, function()
      local l = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1]
      return l ~= prefix and l
    end)
  end
  local line = run("HydraSearch regression tes", "Found ")
  check(":HydraSearch lists the session by words only in its body: title, agent · cwd · age, snippet",
    offered and #offered == 1
      and shown == "test-writer  hydra · /home/ana/shop · 2025-11-29  — Write regression tests for per-cart tax rounding.",
    vim.inspect({ shown, offered and #offered }))
  check(":HydraSearch inserts the server's mention at the cursor",
    line == "Found " .. expected["checkout-tax.test-writer"], vim.inspect(line))
  line = run("HydraSearch", "Asked ")
  check(":HydraSearch with no query asks for one and inserts the chosen mention",
    asked == "Search sessions: " and line == "Asked " .. expected["checkout-tax.test-writer"],
    vim.inspect({ asked, line }))
  vim.ui.select, vim.ui.input = real_select, real_input
end

local function main()
  -- The workspace (and so the folder of file mentions) is the temp folder:
  -- a project root (.git) for setup() and for vim.lsp.enable's root_markers.
  vim.fn.mkdir(tmp .. "/.git", "p")
  vim.cmd("cd " .. vim.fn.fnameescape(tmp))
  vim.o.completeopt = "menu,menuone"
  vim.o.swapfile = false
  vim.o.hidden = true
  local notes = {}
  local real_notify = vim.notify
  vim.notify = function(msg, level, o)
    table.insert(notes, { msg = msg, level = level })
    return real_notify(msg, level, o)
  end

  if os.getenv("HYDRA_NVIM_MODE") == "lsp-config" then
    -- Neovim 0.11+: the lsp/hydra_session.lua config, no plugin call.
    vim.lsp.config("hydra_session", { cmd = { server, "--stdio" }, settings = { hydraSession = { store = store } } })
    vim.lsp.enable("hydra_session")
    out("# mode: vim.lsp.config + vim.lsp.enable, no setup()")
  else
    require("hydra_session").setup({ cmd = { server, "--stdio" }, settings = { store = store } })
  end

  -- A prompt with a good, a malformed and an unknown mention.
  local path = tmp .. "/prompt.md"
  local malformed_uri = "hydra-session:not*base64"
  write_file(path, {
    "# Prompt",
    "Pick up " .. expected["checkout-tax"] .. " here.",
    "Bad: @[Broken](" .. malformed_uri .. ").",
    "Gone: " .. mention("no-such-session", "Ghost") .. ".",
    "",
  })
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()

  local client = wait_for(10000, function()
    local c = hydra_client(buf)
    return c and c.initialized ~= false and c.server_capabilities ~= nil and c
  end) or wait_for(1, function() return hydra_client(buf) end)
  if not check("server attaches to a Markdown buffer", client ~= nil, "no hydra_session client attached in 10 s") then
    return
  end
  -- Record the server's pid for the shell's "no process left" check.
  local pid = client.rpc and client.rpc.pid
  if type(pid) ~= "number" then
    local kids = vim.api.nvim_get_proc_children(vim.fn.getpid())
    pid = kids[1]
  end
  write_file(tmp .. "/server.pid", { tostring(pid) })
  -- 0.11+: Neovim's own vim.lsp.completion; before, the plugin's engine.
  local builtin = vim.fn.has("nvim-0.11") == 1
  local want_omnifunc = builtin and "v:lua.vim.lsp.omnifunc" or "v:lua.require'hydra_session.complete'.omnifunc"
  check("buffer gets the omnifunc " .. want_omnifunc, vim.bo[buf].omnifunc == want_omnifunc,
    "omnifunc=" .. vim.bo[buf].omnifunc)
  local kmap = vim.fn.maparg("K", "n", false, true)
  check("K is mapped to hover in the buffer", type(kmap) == "table" and kmap.buffer == 1
    and (kmap.desc or ""):find("hover", 1, true) ~= nil, vim.inspect(kmap))
  if vim.fn.has("nvim-0.11") == 1 then
    local ns = vim.lsp.diagnostic.get_namespace(client.id)
    local vt = vim.diagnostic.config(nil, ns).virtual_text
    check("0.11+: virtual text is on for the server's diagnostics", vt == true or type(vt) == "table", vim.inspect(vt))
  end

  -- Diagnostics: malformed (Error, on the URI) and unknown (Warning, on the mention).
  local diags = wait_for(10000, function()
    local d = vim.diagnostic.get(buf)
    return find_diag(d, "SESSION_REFERENCE_INVALID_REFERENCE", 2) and find_diag(d, "SESSION_REFERENCE_READ_FAILED", 3) and d
  end) or vim.diagnostic.get(buf)
  local bad = find_diag(diags, "SESSION_REFERENCE_INVALID_REFERENCE", 2)
  local bad_col = (("Bad: @[Broken]("):len())
  check("malformed mention: Error SESSION_REFERENCE_INVALID_REFERENCE on the URI",
    bad and bad.severity == vim.diagnostic.severity.ERROR and bad.source == "hydra-session"
      and bad.col == bad_col and bad.end_col == bad_col + #malformed_uri,
    vim.inspect(diags))
  local gone = find_diag(diags, "SESSION_REFERENCE_READ_FAILED", 3)
  check("unknown session: Warning SESSION_REFERENCE_READ_FAILED on the mention",
    gone and gone.severity == vim.diagnostic.severity.WARN and gone.source == "hydra-session"
      and gone.col == #"Gone: " and gone.end_col == #"Gone: " + #mention("no-such-session", "Ghost"),
    vim.inspect(diags))
  check("no diagnostic on the valid mention", #vim.tbl_filter(function(d)
    return d.lnum == 1 and d.severity <= vim.diagnostic.severity.WARN
  end, diags) == 0, vim.inspect(diags))

  -- Completion after "@": the demo sessions, canonical mention as textEdit.
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { "Ask @" })
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 4, character = 5 } }
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/completion", params, 10000) or {}
  local items = {}
  for _, r in pairs(responses) do
    if r.result then
      items = r.result.items or r.result
    end
  end
  -- Session items only: file mentions add the workspace's files after them.
  items = vim.tbl_filter(function(it)
    return it.kind ~= 17 and it.kind ~= 19
  end, items)
  local by_text = {}
  local ranges_ok = true
  for _, it in ipairs(items) do
    if it.textEdit then
      by_text[it.textEdit.newText] = it
      local rg = it.textEdit.range or it.textEdit.replace
      if not (rg.start.line == 4 and rg.start.character == 4 and rg["end"].line == 4 and rg["end"].character == 5) then
        ranges_ok = false
      end
      if type(it.filterText) ~= "string" or it.filterText:sub(1, 1) ~= "@" then
        ranges_ok = false
      end
    else
      ranges_ok = false
    end
  end
  local all_there = true
  for _, m in pairs(expected) do
    all_there = all_there and by_text[m] ~= nil
  end
  check("completion after '@' offers the 4 demo sessions with the canonical mention as textEdit",
    #items == 4 and all_there and ranges_ok, vim.inspect(items))

  -- The first candidate (the same ranking completion uses).
  local cand = client.request_sync and client.request_sync("sessionReference/candidates",
    { textDocument = { uri = vim.uri_from_bufnr(buf) }, query = "" }, 10000, buf)
  local candidates = cand and cand.result or {}
  check("sessionReference/candidates lists the 4 demo sessions", #candidates == 4, vim.inspect(cand))
  check("sessionReference/candidates is the contract's array (no insertText)",
    #vim.tbl_filter(function(c) return c.insertText ~= nil end, candidates) == 0, vim.inspect(cand))
  -- The picker's request: the same candidates, each with the mention to insert.
  local pick = client.request_sync and client.request_sync("sessionReference/pickCandidates",
    { textDocument = { uri = vim.uri_from_bufnr(buf) }, query = "" }, 10000, buf)
  local picked = pick and pick.result or {}
  local same = #picked == #candidates
  for i, c in ipairs(candidates) do
    same = same and picked[i] ~= nil and picked[i].sessionId == c.sessionId
      and picked[i].insertText == expected[c.sessionId]
      and type(picked[i].detail) == "string" and vim.startswith(picked[i].detail, "hydra · ")
  end
  check("sessionReference/pickCandidates: the candidates, each with its insertText", same and #picked == 4,
    vim.inspect(pick))

  -- Typing "@che": the menu opens by itself and follows the query; <C-n>
  -- to "Checkout tax rounding", <C-y> accepts: exactly its mention.
  -- Which engine filled the last menu seen: "builtin" (vim.lsp.completion
  -- keeps the LSP item in user_data.nvim.lsp) or "plugin".
  local menu_engine
  local function menu_words()
    local i = vim.fn.complete_info({ "items", "selected" })
    local words = {}
    for _, it in ipairs(i.items or {}) do
      table.insert(words, it.abbr)
      local ud = it.user_data
      menu_engine = (type(ud) == "table" and type(ud.nvim) == "table" and ud.nvim.lsp) and "builtin" or "plugin"
    end
    return words, i.selected
  end
  local function type_and_pick(prefix, keys, label)
    vim.api.nvim_buf_set_lines(buf, 4, 5, false, { prefix })
    vim.api.nvim_win_set_cursor(0, { 5, 0 })
    feed("A" .. keys)
    local words = wait_for(10000, function()
      local w = menu_words()
      return vim.fn.pumvisible() == 1 and vim.tbl_contains(w, label)
        and not vim.tbl_contains(w, "Inventory refactor") and w
    end)
    local idx
    for k, w in ipairs(words or {}) do
      if w == label then
        idx = k
      end
    end
    if idx then
      feed(string.rep("<C-n>", idx - 1) .. "<C-y>")
    end
    feed("<Esc>")
    wait_for(3000, function()
      return vim.fn.mode() == "n"
    end)
    return words, vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1]
  end
  local function count_mentions(l)
    local n = 0
    for _ in (l or ""):gmatch("@%[") do
      n = n + 1
    end
    return n
  end
  local cot_before = vim.o.completeopt
  local words, line = type_and_pick("Ask ", "@che", "Checkout tax rounding")
  check("typing '@che' opens the menu by itself, filtered by the server", words ~= nil and #words == 2,
    vim.inspect(words))
  check("the menu is " .. (builtin and "vim.lsp.completion's (0.11+)" or "the plugin's"),
    menu_engine == (builtin and "builtin" or "plugin"), tostring(menu_engine))
  check("accepting 'Checkout tax rounding' after '@che' leaves exactly one canonical mention",
    line == "Ask " .. expected["checkout-tax"] and count_mentions(line) == 1,
    "line is " .. vim.inspect(line))
  local previews = 0
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.wo[w].previewwindow then
      previews = previews + 1
    end
  end
  check("no preview window is left after accepting; 'completeopt' is restored",
    previews == 0 and vim.o.completeopt == cot_before, previews .. " preview windows, completeopt=" .. vim.o.completeopt)

  -- <C-x><C-o> after a typed query (the plugin's omnifunc), capital letters.
  words, line = type_and_pick("Then (", "@Inv<C-x><C-o>", "Inventory refactor")
  line = line or ""
  check("<C-x><C-o> after '@Inv' inserts the whole mention",
    line == "Then (" .. expected["inventory-refactor"] and count_mentions(line) == 1, "line is " .. vim.inspect(line))

  -- Accept the first item of a bare "@" menu: the ranking of candidates.
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { "Ask " })
  vim.api.nvim_win_set_cursor(0, { 5, 3 })
  feed("A@")
  local function sessions_in(list)
    return vim.tbl_filter(function(it)
      return it.kind == "session" or it.kind == "over max"
    end, list or {})
  end
  local info = wait_for(10000, function()
    local i = vim.fn.complete_info({ "items", "mode" })
    return vim.fn.mode() == "i" and #sessions_in(i.items) == 4 and i
  end)
  check("typing '@' opens a menu of the 4 sessions (files after them)",
    info ~= nil and #sessions_in(info.items) == 4 and info.items[1].kind == "session",
    vim.inspect(info or vim.fn.complete_info()))
  feed("<C-y><Esc>")
  wait_for(3000, function()
    return vim.fn.mode() == "n"
  end)
  line = vim.api.nvim_buf_get_lines(buf, 4, 5, false)[1]
  local first = candidates[1] and candidates[1].mention or "?"
  check("accepting the first item leaves exactly its mention", line == "Ask " .. first,
    "line is " .. vim.inspect(line) .. ", expected " .. vim.inspect("Ask " .. first))

  -- At maxReferences (3 sessions referenced), the 4th is marked "over max".
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, {
    expected["checkout-tax"] .. " " .. expected["inventory-refactor"] .. " " .. expected["checkout-tax.test-writer"] .. " ",
  })
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  feed("A@")
  local kinds = wait_for(10000, function()
    local i = vim.fn.complete_info({ "items" })
    if vim.fn.pumvisible() ~= 1 or #sessions_in(i.items) ~= 4 then
      return nil
    end
    local k = {}
    for _, it in ipairs(i.items) do
      k[it.abbr] = it.kind
    end
    return k
  end)
  feed("<C-e><Esc>")
  wait_for(3000, function()
    return vim.fn.mode() == "n"
  end)
  check("at maxReferences the session that would exceed it is marked 'over max'",
    kinds and kinds["deploy-2026-11-28"] == "over max" and kinds["Inventory refactor"] == "session",
    vim.inspect(kinds))

  -- File mentions: a folder item carries editor.action.triggerSuggest;
  -- accepting "docs/" opens the menu again on what the folder holds.
  vim.fn.mkdir(tmp .. "/docs", "p")
  write_file(tmp .. "/docs/design.md", { "# Design" })
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, { "Read " })
  vim.api.nvim_win_set_cursor(0, { 5, 0 })
  feed("A@doc")
  local folder_menu = wait_for(10000, function()
    local i = vim.fn.complete_info({ "items" })
    for k, it in ipairs(i.items or {}) do
      if it.kind == "folder" and it.word:find("docs/", 1, true) then
        return { index = k, items = i.items }
      end
    end
  end)
  if folder_menu then
    feed(string.rep("<C-n>", folder_menu.index - 1) .. "<C-y>")
  end
  local inside = wait_for(10000, function()
    local i = vim.fn.complete_info({ "items" })
    for _, it in ipairs(i.items or {}) do
      if it.word:find("docs/design.md", 1, true) then
        return true
      end
    end
  end)
  feed("<C-e><Esc>")
  wait_for(3000, function()
    return vim.fn.mode() == "n"
  end)
  check("accepting a folder item ('@doc' → docs/) opens completion again on its files",
    folder_menu ~= nil and inside, vim.inspect({ folder_menu, vim.api.nvim_buf_get_lines(buf, 4, 5, false) }))

  -- Hover on the valid mention (K): a floating window with the summary.
  vim.api.nvim_win_set_cursor(0, { 2, #"Pick up " + 4 })
  feed("K", "m")
  local hover_text = wait_for(10000, function()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_win_get_config(w).relative ~= "" then
        local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false)
        return table.concat(lines, "\n")
      end
    end
  end)
  check("hover shows the summary of the mentioned session",
    hover_text and hover_text:find("Checkout tax rounding", 1, true) and hover_text:find("checkout-tax", 1, true),
    vim.inspect(hover_text))
  check("hover shows no backslash escapes (turns are code spans)",
    hover_text and hover_text:find("Cart::total", 1, true) and not hover_text:find("\\`", 1, true),
    vim.inspect(hover_text))
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then
      vim.api.nvim_win_close(w, true)
    end
  end

  -- :HydraPrepare on a buffer with a malformed mention: an error, no buffer.
  local wins_before = #vim.api.nvim_list_wins()
  notes = {}
  vim.cmd("HydraPrepare")
  local note = wait_for(10000, function()
    return notes[1]
  end)
  check(":HydraPrepare reports SESSION_REFERENCE_INVALID_REFERENCE for a malformed mention",
    note and note.level == vim.log.levels.ERROR and note.msg:find("SESSION_REFERENCE_INVALID_REFERENCE", 1, true)
      and #vim.api.nvim_list_wins() == wins_before,
    vim.inspect(notes))

  -- Editing away the bad lines clears their diagnostics (incremental sync).
  vim.api.nvim_buf_set_lines(buf, 2, 4, false, {})
  local cleared = wait_for(10000, function()
    return #vim.diagnostic.get(buf, { severity = { min = vim.diagnostic.severity.WARN } }) == 0
  end)
  check("diagnostics clear after the bad mentions are deleted", cleared, vim.inspect(vim.diagnostic.get(buf)))

  -- :HydraPrepare on examples/prompt.md: a scratch buffer with the context.
  local path2 = tmp .. "/example.prompt.md"
  write_file(path2, vim.fn.readfile(examples))
  vim.cmd("edit " .. vim.fn.fnameescape(path2))
  local buf2 = vim.api.nvim_get_current_buf()
  wait_for(10000, function()
    return hydra_client(buf2)
  end)
  vim.cmd("HydraPrepare")
  local ctx_buf = wait_for(10000, function()
    local b = vim.api.nvim_get_current_buf()
    return b ~= buf2 and pcall(vim.api.nvim_buf_get_var, b, "hydra_context_of") and b
  end)
  local ctx_lines = ctx_buf and vim.api.nvim_buf_get_lines(ctx_buf, 0, -1, false) or {}
  local ctx_text = table.concat(ctx_lines, "\n")
  check(":HydraPrepare fills a scratch buffer that starts with '## Referenced sessions'",
    ctx_buf and ctx_lines[1] == "## Referenced sessions" and vim.bo[ctx_buf].buftype == "nofile"
      and ctx_text:find("<referenced-sessions>", 1, true) and ctx_text:find("</referenced-sessions>", 1, true),
    vim.inspect(ctx_lines))
  local rows = 0
  for _, l in ipairs(ctx_lines) do
    if l:match("^| .* | `[^`]+` | %d+ of %d+ |") then
      rows = rows + 1
    end
  end
  check(":HydraPrepare shows the statistics of the 3 references",
    rows == 3 and ctx_text:find("| Inventory refactor | `inventory-refactor` |", 1, true), vim.inspect(ctx_lines))
  check("the scratch buffer has no server attached", ctx_buf and hydra_client(ctx_buf) == nil)
  -- Highlight every line, as a redraw would: the long JSON line must not
  -- make the Markdown syntax fail (E363).
  local syn_err
  if ctx_buf then
    vim.v.errmsg = ""
    local ok, err = pcall(function()
      for lnum, l in ipairs(ctx_lines) do
        for col = 1, #l, 97 do
          vim.fn.synID(lnum, col, 1)
        end
      end
      vim.cmd("redraw!")
    end)
    syn_err = (not ok) and tostring(err) or (vim.v.errmsg ~= "" and vim.v.errmsg or nil)
  end
  check(":HydraPrepare's buffer highlights without an error (no E363)", ctx_buf and syn_err == nil, syn_err)
  if ctx_buf then
    vim.cmd("close")
  end

  -- :HydraPrepare! yanks the text form, byte for byte the CLI's
  -- `prepare --format text`, to the unnamed and "+ registers.
  local want = vim.fn.system({ server, "prepare", "--store", store, "--format", "text", path2 })
  notes = {}
  vim.cmd("HydraPrepare!")
  local yanked = wait_for(10000, function()
    local r = vim.fn.getreg('"')
    return r ~= "" and r
  end)
  check(":HydraPrepare! puts the CLI's `prepare --format text` in the unnamed register",
    yanked == want and want:find("## Referenced sessions\n", 1, true) == 1, vim.inspect(yanked and yanked:sub(1, 200)))
  local clip = wait_for(10000, function()
    local f = io.open(clip_file, "rb")
    local text = f and f:read("*a")
    if f then
      f:close()
    end
    return text ~= nil and text ~= "" and text
  end)
  check(":HydraPrepare! puts the same text in the \"+ register (the clipboard provider)",
    clip == want, vim.inspect(clip and clip:sub(1, 200)) .. " notes " .. vim.inspect(notes))

  -- :checkhealth hydra_session: binary and version, store and sessions.
  vim.cmd("checkhealth hydra_session")
  local health = wait_for(10000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
    return text:find("sessions", 1, true) and text
  end) or table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  check(":checkhealth hydra_session reports the binary, its version, the store, 4 sessions and the completion source",
    health:find("hydra-session-lsp 0.", 1, true) and health:find("4 sessions", 1, true)
      and health:find("Neovim", 1, true)
      and health:find(builtin and "vim.lsp.completion" or "omnifunc", 1, true)
      and not health:find("ERROR", 1, true),
    health)
  vim.cmd("bwipeout!")
  vim.cmd("buffer " .. buf2)

  -- :HydraMention with vim.ui.select: insert the chosen mention.
  local offered
  vim.ui.select = function(list, opts, on_choice)
    offered = list
    for _, c in ipairs(list) do
      if c.sessionId == "inventory-refactor" then
        assert(type(opts.format_item(c)) == "string")
        return on_choice(c, _)
      end
    end
    on_choice(nil)
  end
  vim.api.nvim_buf_set_lines(buf2, -1, -1, false, { "Also see " })
  local last = vim.api.nvim_buf_line_count(buf2)
  vim.api.nvim_win_set_cursor(0, { last, 8 })
  vim.cmd("HydraMention")
  local mline = wait_for(10000, function()
    local l = vim.api.nvim_buf_get_lines(buf2, last - 1, last, false)[1]
    return l ~= "Also see " and l
  end)
  local hs = require("hydra_session")
  local untitled, titled, untitled_detail, titled_detail
  for _, c in ipairs(offered or {}) do
    if c.sessionId == "deploy-2026-11-28" then
      untitled, untitled_detail = hs.format_candidate(c), c.detail
    elseif c.sessionId == "checkout-tax" then
      titled, titled_detail = hs.format_candidate(c), c.detail
    end
  end
  -- The detail is the server's (agent · place · workspace · age), shown
  -- as it comes: the plugin computes no age and no place.
  check(":HydraMention lines: an untitled session's id once, then the server's detail, agent included",
    type(untitled_detail) == "string" and type(titled_detail) == "string"
      and untitled == "deploy-2026-11-28  " .. untitled_detail
      and titled == "Checkout tax rounding  [checkout-tax]  " .. titled_detail
      -- (the prompt references 3 sessions by now: the server flags this one)
      and vim.startswith(untitled_detail, "would exceed maxReferences (3) · hydra · /home/ana/ops · other workspace · ")
      and vim.startswith(titled_detail, "hydra · /home/ana/shop · other workspace · "),
    vim.inspect({ untitled, titled }))
  check(":HydraMention offers the candidates and inserts the chosen mention",
    offered and #offered == 4 and mline == "Also see " .. expected["inventory-refactor"],
    vim.inspect(mline) .. " offered " .. tostring(offered and #offered))

  -- "@inv" typed, then :HydraMention inv: the query is replaced, not kept.
  vim.api.nvim_buf_set_lines(buf2, -1, -1, false, { "And (@inv" })
  last = vim.api.nvim_buf_line_count(buf2)
  vim.api.nvim_win_set_cursor(0, { last, #"And (@inv" - 1 })
  vim.cmd("HydraMention inv")
  mline = wait_for(10000, function()
    local l = vim.api.nvim_buf_get_lines(buf2, last - 1, last, false)[1]
    return l ~= "And (@inv" and l
  end)
  check(":HydraMention replaces a typed '@query'", mline == "And (" .. expected["inventory-refactor"],
    vim.inspect(mline))

  -- :HydraMention! yanks the chosen mention and leaves the buffer as it is.
  local before = vim.api.nvim_buf_get_lines(buf2, 0, -1, false)
  vim.fn.setreg('"', "")
  vim.cmd("HydraMention! inventory")
  local got = wait_for(10000, function()
    local r = vim.fn.getreg('"')
    return r ~= "" and r
  end)
  check(":HydraMention! yanks the mention instead of inserting it",
    got == expected["inventory-refactor"] and vim.deep_equal(before, vim.api.nvim_buf_get_lines(buf2, 0, -1, false)),
    vim.inspect(got))

  check_hydra_search(buf2)
end

co = coroutine.create(function()
  main()
  finish()
end)
vim.defer_fn(function()
  check("global deadline", false, GLOBAL_DEADLINE_MS .. " ms elapsed")
  finish()
end, GLOBAL_DEADLINE_MS)
vim.schedule(resume)
