//! Every Pi rule that agent-logs-files-3.md marks unverified ([U]), in one
//! place (docs/agent-logs.md "Pi" says what was verified and on what).
//! When a real session contradicts one, this file is what changes.

use crate::model::Role;

/// Whether entries of this type may be projected: `message` only. Not
/// `custom_message` (injected by extensions) nor `branch_summary` (Pi
/// sends one to the model as a user turn summarising an abandoned branch),
/// nor any other type [U].
pub fn projected_entry(kind: &str) -> bool {
    kind == "message"
}

/// The surface role of a `message` entry's `AgentMessage.role`: `user`
/// and `assistant` [V]; `toolResult`, `custom` (v2 `hookMessage`),
/// `branchSummary`, `compactionSummary` never; `bashExecution` (a
/// `!command` the person ran) never [U].
pub fn projected_role(role: &str) -> Option<Role> {
    match role {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// Whether the walk from the leaf goes on into entry `i` — not when it
/// was already visited [U: Pi's own walk would loop; a cycle here ends
/// the path] — marking it visited.
pub fn walk_enters(seen: &mut [bool], i: u32) -> bool {
    match seen.get_mut(i as usize) {
        Some(visited) if !*visited => {
            *visited = true;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_person_and_the_model_are_projected() {
        assert_eq!(projected_role("user"), Some(Role::User));
        assert_eq!(projected_role("assistant"), Some(Role::Assistant));
        for silent in [
            "bashExecution",
            "toolResult",
            "custom",
            "hookMessage",
            "branchSummary",
        ] {
            assert_eq!(projected_role(silent), None);
        }
    }

    #[test]
    fn only_message_entries_are_projected() {
        assert!(projected_entry("message"));
        for silent in ["custom_message", "branch_summary", "compaction", "label"] {
            assert!(!projected_entry(silent));
        }
    }

    #[test]
    fn a_visited_entry_ends_the_walk() {
        let mut seen = vec![false; 2];
        assert!(walk_enters(&mut seen, 1));
        assert!(!walk_enters(&mut seen, 1));
        assert!(!walk_enters(&mut seen, 5));
    }
}
