//! The secret scan `publish` runs before anything leaves the machine
//! (issue 26 item 4): credentials in a session's messages, title, display
//! title, id and cwd. A finding names the session, the turn and the kind of
//! credential — never the credential itself.
//!
//! No maintained Rust crate ships a rule set we could embed without a
//! scanner framework around it (gitleaks and trufflehog are Go programs),
//! so the rules are a table of our own over the `regex` crate, which
//! tantivy already brings in. Each kind's id is stable: `--allow-secret`
//! and `docs/team-store.md` name it.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};

/// One credential kind: its stable id and what marks it.
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    /// A match this test rejects is not a finding (the `regex` crate has
    /// no look-around: what a pattern cannot say is said here).
    keep: fn(&str) -> bool,
}

fn always(_: &str) -> bool {
    true
}

/// The rules, in the order kinds are reported. The ids are listed in
/// `docs/team-store.md` ("Secret kinds"); a test checks that list.
const RULES: &[Rule] = &[
    Rule {
        kind: "private-key",
        pattern: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        keep: always,
    },
    Rule {
        kind: "aws-access-key-id",
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}\b",
        keep: always,
    },
    Rule {
        kind: "aws-secret-access-key",
        pattern: r#"(?i)aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}\b"#,
        keep: always,
    },
    Rule {
        kind: "github-token",
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        keep: always,
    },
    Rule {
        kind: "gitlab-token",
        pattern: r"\bgl(?:pat|ptt|dt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}",
        keep: always,
    },
    Rule {
        kind: "slack-token",
        pattern: r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
        keep: always,
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+",
        keep: always,
    },
    Rule {
        kind: "stripe-secret-key",
        pattern: r"\b[sr]k_live_[A-Za-z0-9]{20,}",
        keep: always,
    },
    Rule {
        kind: "google-api-key",
        pattern: r"\bAIza[0-9A-Za-z_-]{35}",
        keep: always,
    },
    Rule {
        kind: "anthropic-api-key",
        pattern: r"\bsk-ant-[A-Za-z0-9_-]{32,}",
        keep: always,
    },
    Rule {
        kind: "openai-api-key",
        pattern: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,}",
        // Anthropic's keys begin with `sk-` too: theirs is the other rule.
        keep: not_anthropic,
    },
    Rule {
        kind: "jwt",
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        keep: always,
    },
    Rule {
        kind: "generic-secret",
        pattern: r#"(?i)\b(?:password|passwd|pwd|secret|token|api_?key|access_?key)["']?\s*[:=]\s*["']?([^\s"'`,;]{16,})"#,
        keep: high_entropy_value,
    },
];

fn not_anthropic(found: &str) -> bool {
    !found.starts_with("sk-ant-")
}

/// A `password=…` value counts only when it looks random: letters and
/// digits, and at least 3.5 bits of entropy a character (placeholders,
/// words and paths have less).
fn high_entropy_value(found: &str) -> bool {
    let value = found
        .rsplit(['=', ':'])
        .next()
        .unwrap_or(found)
        .trim_start_matches([' ', '\t', '"', '\''])
        .trim_end_matches(['"', '\'']);
    let has_digit = value.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = value.bytes().any(|b| b.is_ascii_alphabetic());
    value.len() >= 16 && has_digit && has_alpha && entropy(value) >= 3.5
}

/// Shannon entropy of `text`'s bytes, in bits per byte.
fn entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in text.bytes() {
        counts[usize::from(b)] += 1;
    }
    let n = text.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// The compiled rules. A pattern that does not compile would be a bug of
/// this table; the unit test below compiles every one.
static COMPILED: LazyLock<Vec<(&'static Rule, Regex)>> = LazyLock::new(|| {
    RULES
        .iter()
        .filter_map(|rule| Regex::new(rule.pattern).ok().map(|re| (rule, re)))
        .collect()
});

/// Every pattern at once: one pass over a text says which rules can match
/// at all (most texts: none), and only those are run to check their
/// matches. `None` if the set does not compile (then every rule is run).
static SET: LazyLock<Option<RegexSet>> =
    LazyLock::new(|| RegexSet::new(RULES.iter().map(|r| r.pattern)).ok());

/// Every kind the scan reports, in order.
pub fn kinds() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|r| r.kind)
}

/// Whether `kind` is one the scan reports.
pub fn is_kind(kind: &str) -> bool {
    kinds().any(|k| k == kind)
}

/// The kinds of credential found in `text`, in rule order, each once.
pub fn kinds_in(text: &str) -> Vec<&'static str> {
    let candidates = SET.as_ref().map(|set| set.matches(text));
    COMPILED
        .iter()
        .filter(|(rule, _)| {
            candidates.as_ref().is_none_or(|m| {
                RULES
                    .iter()
                    .position(|r| r.kind == rule.kind)
                    .is_some_and(|i| m.matched(i))
            })
        })
        .filter(|(rule, re)| re.find_iter(text).any(|m| (rule.keep)(m.as_str())))
        .map(|(rule, _)| rule.kind)
        .collect()
}

/// One credential found: where, and of which kind.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    pub session: String,
    /// The message's place on the surface, from 1 (as search numbers
    /// turns); 0 for the session's id, titles and cwd.
    pub turn: u64,
    pub kind: &'static str,
}

/// What of one session the scan reads.
#[derive(Debug, Clone, Copy)]
pub struct Scanned<'a> {
    pub session: &'a str,
    pub title: Option<&'a str>,
    pub display_title: Option<&'a str>,
    pub cwd: Option<&'a str>,
    /// The surface's messages, in order (turn 1 first).
    pub messages: &'a [&'a str],
}

/// Every finding in one session, each (turn, kind) once.
pub fn scan(what: Scanned<'_>) -> Vec<Finding> {
    let finding = |turn: u64, kind: &'static str| Finding {
        session: what.session.to_owned(),
        turn,
        kind,
    };
    let mut found = Vec::new();
    for text in [Some(what.session), what.title, what.display_title, what.cwd]
        .into_iter()
        .flatten()
    {
        found.extend(kinds_in(text).into_iter().map(|kind| finding(0, kind)));
    }
    for (i, text) in what.messages.iter().enumerate() {
        let turn = i as u64 + 1;
        found.extend(kinds_in(text).into_iter().map(|kind| finding(turn, kind)));
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert_eq!(COMPILED.len(), RULES.len());
        assert!(SET.is_some());
    }

    #[test]
    fn kinds_are_unique() {
        let mut all: Vec<_> = kinds().collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }

    // Made-up credentials of each shape, assembled so that this file holds
    // none whole (a scanner of this repository would flag them).
    fn sample(kind: &str) -> String {
        let x20 = "Qz3xK9mW2pL7vB4nR8tY";
        match kind {
            "private-key" => format!("-----BEGIN RSA {}-----\nMIIE", "PRIVATE KEY"),
            "aws-access-key-id" => format!("key AKIA{}", "IOSFODNN7EXAMPLE"),
            "aws-secret-access-key" => {
                format!("aws_secret_access_key = {}{}", x20, "wJalrXUtnFEMIK7MDENG")
            }
            "github-token" => format!("gh{}_{}{}", "p", x20, "abcdefghij123456"),
            "gitlab-token" => format!("glpat-{x20}"),
            "slack-token" => format!("xox{}-1234567890-abcdef", "b"),
            "slack-webhook" => format!("https://hooks.slack.com/{}/T0001/B0002/{x20}", "services"),
            "stripe-secret-key" => format!("sk_{}_{x20}1234", "live"),
            "google-api-key" => format!("AI{}{x20}abcdefghijklmno", "za"),
            "anthropic-api-key" => format!("sk-{}-api03-{x20}{x20}", "ant"),
            "openai-api-key" => format!("sk-{}-{x20}{x20}", "proj"),
            "jwt" => format!(
                "ey{}.eyJzdWIiOiIxMjM0NTY3ODkw.SflKxwRJSMeKKF2QT4",
                "JhbGciOiJIUzI1NiJ9"
            ),
            "generic-secret" => format!("pass{}=\"{x20}\"", "word"),
            _ => String::new(),
        }
    }

    #[test]
    fn each_kind_is_found_and_only_it() {
        for kind in kinds() {
            let text = format!("before {} after", sample(kind));
            let found = kinds_in(&text);
            assert!(
                found.contains(&kind),
                "{kind} not found in {text:?}: {found:?}"
            );
            // An Anthropic key is not also an OpenAI one; a token assigned
            // may also be a generic secret, nothing else.
            for other in &found {
                assert!(
                    *other == kind || *other == "generic-secret",
                    "{text:?} is also {other}"
                );
            }
        }
    }

    #[test]
    fn ordinary_text_has_no_secret() {
        for text in [
            "The tax rounding is off by one cent in cart.rs.",
            "password = hunter2",
            "token: <YOUR_TOKEN_HERE>",
            "sk-learn is a library; ghp_ is a prefix",
            "-----BEGIN PUBLIC KEY-----",
            "set AWS_REGION=us-east-1 and AWS_ACCESS_KEY_ID=$KEY",
            "password=/home/ana/shop/config/settings.yaml",
        ] {
            assert!(kinds_in(text).is_empty(), "{text:?}: {:?}", kinds_in(text));
        }
    }

    #[test]
    fn findings_name_the_turn_never_the_secret() {
        let key = sample("aws-access-key-id");
        let messages = ["hello", key.as_str(), "bye", key.as_str()];
        let found = scan(Scanned {
            session: "s-1",
            title: Some(&key),
            display_title: None,
            cwd: Some("/home/ana"),
            messages: &messages,
        });
        let turns: Vec<u64> = found.iter().map(|f| f.turn).collect();
        assert_eq!(turns, [0, 2, 4]);
        assert!(found.iter().all(|f| f.kind == "aws-access-key-id"));
        assert!(!format!("{found:?}").contains("IOSFODNN7"));
    }
}
