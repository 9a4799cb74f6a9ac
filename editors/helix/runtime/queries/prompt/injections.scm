; Prompt files are Markdown: Helix finds queries by language name.
; inherits: markdown
