//! The store's tests over one format each: what a format's own unit tests
//! cannot check without reaching up into the store (the catalog's scan,
//! refresh and notes on that format's logs). They use the format tests'
//! fixtures and helpers.

mod claude_code;
mod codex;
mod gemini_cli;
