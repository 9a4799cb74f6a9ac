//! What a Cursor transcript's place tells (agent-logs-more.md "Cursor"): the
//! files hold no id and no cwd, so the session's id is the file's name (a
//! sub-agent's under its parent's), its cwd the project folder's name
//! decoded against the file system, and an older `<id>.jsonl` beside the
//! newer `<id>/<id>.jsonl` is not read.

use std::path::{Component, Path};

use super::unverified;

/// The folder whose parent is named by the project's slug.
const TRANSCRIPTS: &str = "agent-transcripts";
/// The folder of a session's sub-agents.
const SUBAGENTS: &str = "subagents";

/// The facts of one transcript's place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub id: Option<String>,
    pub cwd: Option<String>,
    /// Whether the transcript is a sub-agent's.
    pub sub_agent: bool,
    /// Why the log is not read although it holds a session.
    pub shadowed: Option<String>,
}

impl Place {
    /// The facts of the transcript at `path`, its cwd decoded against the
    /// directories below `root` (`/` for a real install).
    pub fn of(path: &Path, root: &Path) -> Place {
        let mut place = Place::named(path);
        let dir = path.parent();
        if let (false, Some(dir), Some(stem)) = (place.sub_agent, dir, path.file_stem()) {
            let mut newer = dir.join(stem).join(stem);
            newer.set_extension("jsonl");
            if newer.is_file() {
                place.shadowed = Some(
                    "not read: the folder of the same name holds this session's transcript".into(),
                );
            }
        }
        place.cwd = slug(path)
            .and_then(|slug| unverified::decode_slug(root, slug))
            .and_then(|cwd| cwd.to_str().map(str::to_string));
        place
    }

    /// What a transcript's name alone tells (relative or not): its id.
    pub fn named(path: &Path) -> Place {
        let stem = path.file_stem().and_then(|s| s.to_str());
        let dir = path.parent();
        let parent = (name(dir) == Some(SUBAGENTS))
            .then(|| name(dir.and_then(Path::parent)))
            .flatten();
        let id = match (parent, stem) {
            (Some(parent), Some(own)) => Some(unverified::sub_agent_id(parent, own)),
            (None, Some(own)) => Some(own.to_string()),
            _ => None,
        };
        Place {
            id: id.filter(|id| !id.is_empty()),
            sub_agent: parent.is_some(),
            ..Place::default()
        }
    }
}

/// The name of the directory `p`, when it is one and valid UTF-8.
fn name(p: Option<&Path>) -> Option<&str> {
    p.and_then(Path::file_name).and_then(|n| n.to_str())
}

/// The name of the directory holding the nearest `agent-transcripts` above
/// the file.
fn slug(path: &Path) -> Option<&str> {
    let parts: Vec<Component<'_>> = path.parent()?.components().collect();
    let at = parts.iter().rposition(|c| c.as_os_str() == TRANSCRIPTS)?;
    match parts.get(at.checked_sub(1)?)? {
        Component::Normal(slug) => slug.to_str(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The place of a transcript that is read: its id and cwd, and
    /// whether it is a sub-agent's.
    fn read(id: &str, cwd: &Option<String>, sub_agent: bool) -> Place {
        Place {
            id: Some(id.into()),
            cwd: cwd.clone(),
            sub_agent,
            shadowed: None,
        }
    }

    #[test]
    fn ids_and_cwds_from_the_place() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        std::fs::create_dir_all(r.join("home/ana/my-app")).unwrap();
        let projects = r.join("cursor/projects/home-ana-my-app/agent-transcripts");
        let session = projects.join("s1/s1.jsonl");
        let child = projects.join("s1/subagents/c1.jsonl");
        let older = projects.join("s1.jsonl");
        std::fs::create_dir_all(child.parent().unwrap()).unwrap();
        let cwd = r.join("home/ana/my-app").to_str().map(str::to_string);
        assert_eq!(Place::of(&session, r), read("s1", &cwd, false));
        assert_eq!(Place::of(&child, r), read("s1/c1", &cwd, true));
        // The older layout beside the newer one is not read; alone, it is.
        assert!(Place::of(&older, r).shadowed.is_none());
        std::fs::write(&session, "").unwrap();
        let shadowed = Place::of(&older, r);
        assert_eq!(
            (shadowed.id.as_deref(), shadowed.shadowed.is_some()),
            (Some("s1"), true)
        );
        // Outside `agent-transcripts`, or a slug naming nothing: no cwd.
        assert_eq!(Place::of(&r.join("x/s2.jsonl"), r).cwd, None);
        let elsewhere = r.join("p/home-bob-x/agent-transcripts/s3.jsonl");
        assert_eq!(Place::of(&elsewhere, r).cwd, None);
        assert_eq!(
            Place::named(Path::new("a/subagents/c.jsonl")).id.as_deref(),
            Some("a/c")
        );
        assert_eq!(
            Place::named(Path::new("subagents/c.jsonl")).id.as_deref(),
            Some("c")
        );
    }
}
