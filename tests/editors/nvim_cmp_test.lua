-- nvim-cmp or blink.cmp with the plugin's source, typing "@che" and
-- accepting "Checkout tax rounding". Not run in CI (neither plugin is in a
-- package registry): editors/test.sh runs it when HYDRA_CMP_DIR (a checkout
-- of nvim-cmp) or HYDRA_BLINK_DIR (of blink.cmp v1) is set.
--
--   HYDRA_PLUGIN=cmp|blink HYDRA_SERVER=… HYDRA_STORE=… HYDRA_TMP=… \
--     nvim --headless --clean --cmd 'set rtp^=editors/nvim' --cmd 'set rtp^=PLUGIN' \
--     -c 'luafile tests/editors/nvim_cmp_test.lua'
local which = os.getenv("HYDRA_PLUGIN")
local v = vim.version()
local who = string.format("nvim %d.%d.%d + %s", v.major, v.minor, v.patch, which)
local function out(line)
  io.stdout:write("\n" .. line .. "\n")
end
local failed = 0
local function check(name, ok, why)
  if not ok then
    failed = failed + 1
  end
  out((ok and "PASS " or "FAIL ") .. who .. ": " .. name .. (ok and "" or (": " .. tostring(why))))
end

vim.o.swapfile = false
local list, accept, select_index
if which == "cmp" then
  local cmp = require("cmp")
  require("hydra_session.cmp").setup()
  cmp.setup({ sources = { { name = "hydra_session" } }, snippet = { expand = function() end } })
  list = function()
    local labels = {}
    for _, e in ipairs(cmp.visible() and cmp.get_entries() or {}) do
      table.insert(labels, e:get_completion_item().label)
    end
    return labels
  end
  select_index = function()
    for _ = 1, 5 do
      local e = cmp.get_selected_entry()
      if e and e:get_completion_item().label == "Checkout tax rounding" then
        return
      end
      cmp.select_next_item({ behavior = cmp.SelectBehavior.Select })
    end
  end
  accept = function()
    cmp.confirm({ select = true })
  end
else
  local blink = require("blink.cmp")
  blink.setup({
    fuzzy = { implementation = "lua" },
    sources = {
      default = { "hydra_session" },
      providers = { hydra_session = { name = "Hydra", module = "hydra_session.blink" } },
    },
    completion = { list = { selection = { preselect = false, auto_insert = false } } },
  })
  local blist = require("blink.cmp.completion.list")
  list = function()
    local labels = {}
    for _, it in ipairs(blink.is_visible() and blist.items or {}) do
      table.insert(labels, it.label)
    end
    return labels
  end
  select_index = function(i)
    blist.select(i)
  end
  accept = function()
    blink.accept()
  end
end
require("hydra_session").setup({
  cmd = { os.getenv("HYDRA_SERVER"), "--stdio" },
  settings = { store = os.getenv("HYDRA_STORE") },
})
check("the plugin's own menu on '@' stays off", not require("hydra_session").autocomplete_enabled())

vim.cmd("edit " .. os.getenv("HYDRA_TMP") .. "/cmp.md")
local buf = vim.api.nvim_get_current_buf()
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = buf }) > 0
end)
vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "Ask " })
vim.api.nvim_feedkeys("A", "t", false)
for i, ch in ipairs({ "@", "c", "h", "e" }) do
  vim.defer_fn(function()
    vim.api.nvim_feedkeys(ch, "t", false)
  end, 150 * i)
end
local deadline = vim.loop.now() + 10000
local function poll()
  local labels = list()
  if not vim.tbl_contains(labels, "Checkout tax rounding") and vim.loop.now() < deadline then
    return vim.defer_fn(poll, 50)
  end
  check("typing '@che' shows both matching sessions", #labels == 2, vim.inspect(labels))
  for i, l in ipairs(labels) do
    if l == "Checkout tax rounding" then
      select_index(i)
    end
  end
  vim.defer_fn(function()
    accept()
    vim.defer_fn(function()
      vim.cmd("stopinsert")
      local line = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
      check("accepting leaves exactly one canonical mention",
        line == "Ask @[Checkout tax rounding](hydra-session:ImNoZWNrb3V0LXRheCI)", line)
      vim.cmd(failed > 0 and "cquit 1" or "qall!")
    end, 500)
  end, 200)
end
vim.defer_fn(poll, 800)
