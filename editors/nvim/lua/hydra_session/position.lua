-- Byte columns and LSP characters, converted by Neovim's own functions
-- (their signatures changed in 0.11): the plugin counts no UTF-16 units
-- itself.
local M = {}

local new_api = vim.fn.has("nvim-0.11") == 1

--- The LSP character (in `enc`) of byte column `byte` (0-based) of `line`.
function M.character(line, byte, enc)
  byte = math.max(0, math.min(byte, #line))
  if enc == "utf-8" then
    return byte
  end
  if new_api then
    return vim.str_utfindex(line, enc, byte, false)
  end
  local utf32, utf16 = vim.str_utfindex(line, byte)
  return enc == "utf-32" and utf32 or utf16
end

--- The byte column (0-based) of LSP character `character` (in `enc`) of
--- `line`; the line's end for a character past it.
function M.byte(line, character, enc)
  if enc == "utf-8" then
    return math.min(character, #line)
  end
  if new_api then
    return vim.str_byteindex(line, enc, character, false)
  end
  local ok, byte = pcall(vim.str_byteindex, line, character, enc ~= "utf-32")
  return ok and byte or #line
end

return M
