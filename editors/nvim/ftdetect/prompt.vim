" *.prompt files are prompts (*.prompt.md stay Markdown).
autocmd BufRead,BufNewFile *.prompt setfiletype prompt
