//! Where the Cline family keeps its tasks (agent-logs-files-3.md "Default
//! stores"): each extension's global storage in each editor's user folder.

use crate::formats::copilot_chat::defaults::editor_config_dir;
use crate::formats::toolkit::home::DefaultPlace;

/// The editors whose user folders are looked in, in order; the forks
/// after VS Code's two are [U].
const EDITORS: [&str; 5] = ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

/// The global-storage folders of Cline, Roo Code and Kilo Code's legacy
/// extension, in that order.
const EXTENSIONS: [&str; 3] = [
    "saoudrizwan.claude-dev",
    "rooveterinaryinc.roo-cline",
    "kilocode.kilo-code",
];

/// For each editor's `<config>/<editor>/User` (`<config>` as for Copilot
/// Chat), its `globalStorage/<extension>` for each extension.
pub fn default_stores() -> Vec<DefaultPlace> {
    let (config, named) = editor_config_dir();
    let Some(config) = config else {
        return Vec::new();
    };
    EDITORS
        .iter()
        .flat_map(|editor| {
            let storage = config.join(editor).join("User").join("globalStorage");
            EXTENSIONS.map(|ext| DefaultPlace::agent(storage.join(ext), named))
        })
        .collect()
}
