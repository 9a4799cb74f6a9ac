//! AWS credentials beyond the environment variables `object_store` reads
//! itself: the shared credentials and config files (`~/.aws/credentials`,
//! `~/.aws/config`, or `AWS_SHARED_CREDENTIALS_FILE` / `AWS_CONFIG_FILE`)
//! and `AWS_PROFILE`, with static keys or a `credential_process` (run with
//! a timeout, its JSON parsed). SSO works through a `credential_process`
//! of `aws configure export-credentials --profile NAME --format process`.
//!
//! Nothing read here is printed, logged or written anywhere: errors name
//! the profile and the file, never a value. With no credentials found at
//! all, requests go unsigned instead of waiting for an instance-metadata
//! endpoint that exists only on cloud machines (`AWS_EC2_METADATA_DISABLED=false`
//! asks for it).

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use object_store::aws::AmazonS3Builder;
use serde::Deserialize;

use crate::formats::toolkit::home::home_dir;

/// A `credential_process` that has not answered by then is stopped.
pub const PROCESS_TIMEOUT: Duration = Duration::from_secs(3);

/// The most a `credential_process` may print.
const PROCESS_OUTPUT_MAX: u64 = 64 << 10;

/// A profile's settings, merged from both files (credentials first).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Profile {
    values: HashMap<String, String>,
}

impl Profile {
    fn get(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// Keys a `credential_process` prints (its JSON, version 1).
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ProcessKeys {
    version: u32,
    access_key_id: String,
    secret_access_key: String,
    #[serde(default)]
    session_token: Option<String>,
}

impl std::fmt::Debug for ProcessKeys {
    // Never the keys themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProcessKeys(…)")
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Adds what the shared files and `AWS_PROFILE` say to `builder` (built
/// `from_env`, whose variables win). The error says why in words with no
/// secret in them.
pub fn apply_aws_profile(mut builder: AmazonS3Builder) -> Result<AmazonS3Builder, String> {
    let named = env("AWS_PROFILE").or_else(|| env("AWS_DEFAULT_PROFILE"));
    let name = named.clone().unwrap_or_else(|| "default".to_owned());
    let profile = load_profile(&name);
    if named.is_some() && profile.is_none() {
        return Err(format!(
            "the AWS profile {name:?} is in neither the credentials nor the config file"
        ));
    }
    let profile = profile.unwrap_or_default();
    if env("AWS_REGION").is_none() && env("AWS_DEFAULT_REGION").is_none() {
        if let Some(region) = profile.get("region") {
            builder = builder.with_region(region);
        }
    }
    if env("AWS_ENDPOINT").is_none() && env("AWS_ENDPOINT_URL").is_none() {
        if let Some(endpoint) = profile
            .get("endpoint_url")
            .or_else(|| profile.get("services.s3.endpoint_url"))
        {
            builder = builder.with_endpoint(endpoint);
        }
    }
    if env("AWS_ACCESS_KEY_ID").is_some() {
        return Ok(builder);
    }
    if let (Some(id), Some(secret)) = (
        profile.get("aws_access_key_id"),
        profile.get("aws_secret_access_key"),
    ) {
        builder = builder
            .with_access_key_id(id)
            .with_secret_access_key(secret);
        if let Some(token) = profile.get("aws_session_token") {
            builder = builder.with_token(token);
        }
        return Ok(builder);
    }
    if let Some(command) = profile.get("credential_process") {
        let keys = run_credential_process(command, &name)?;
        builder = builder
            .with_access_key_id(keys.access_key_id)
            .with_secret_access_key(keys.secret_access_key);
        if let Some(token) = keys.session_token.filter(|t| !t.is_empty()) {
            builder = builder.with_token(token);
        }
        return Ok(builder);
    }
    let other_source = env("AWS_WEB_IDENTITY_TOKEN_FILE").is_some()
        || env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").is_some()
        || env("AWS_CONTAINER_CREDENTIALS_FULL_URI").is_some();
    if !other_source && env("AWS_EC2_METADATA_DISABLED").as_deref() != Some("false") {
        // No credentials anywhere: a public bucket still reads, a private
        // one answers "access denied" at once.
        builder = builder.with_skip_signature(true);
    }
    Ok(builder)
}

/// The profile `name` from the credentials file (`[name]`) and the config
/// file (`[profile name]`, or `[default]`); `None` when neither has it.
pub fn load_profile(name: &str) -> Option<Profile> {
    let aws_dir = || home_dir().map(|h| h.join(".aws"));
    let credentials = env("AWS_SHARED_CREDENTIALS_FILE")
        .map(PathBuf::from)
        .or_else(|| aws_dir().map(|d| d.join("credentials")));
    let config = env("AWS_CONFIG_FILE")
        .map(PathBuf::from)
        .or_else(|| aws_dir().map(|d| d.join("config")));
    let read = |p: Option<PathBuf>| {
        p.and_then(|p| crate::fsio::read_side_file(&p, 1 << 20).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let mut found = None;
    if let Some(text) = read(credentials) {
        found = section(&text, name);
    }
    let config_section = if name == "default" {
        "default".to_owned()
    } else {
        format!("profile {name}")
    };
    if let Some(text) = read(config) {
        if let Some(more) = section(&text, &config_section) {
            let profile = found.get_or_insert_with(Profile::default);
            for (k, v) in more.values {
                profile.values.entry(k).or_insert(v);
            }
        }
    }
    found
}

/// The `key = value` lines of section `[name]` of an INI text. Nested
/// (indented) lines, such as a `services` block's, are read as
/// `parent.key`.
fn section(text: &str, name: &str) -> Option<Profile> {
    let mut inside = false;
    let mut found = false;
    let mut parent: Option<String> = None;
    let mut profile = Profile::default();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(head) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = head.split_whitespace().collect::<Vec<_>>().join(" ") == name;
            found |= inside;
            parent = None;
            continue;
        }
        if !inside {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim().to_owned());
        let nested = raw.starts_with([' ', '\t']);
        match (&parent, nested) {
            (Some(p), true) => {
                profile.values.insert(format!("{p}.{key}"), value);
            }
            _ if value.is_empty() => parent = Some(key),
            _ => {
                parent = None;
                profile.values.insert(key, value);
            }
        }
    }
    found.then_some(profile)
}

/// Runs a profile's `credential_process` through the shell, at most
/// [`PROCESS_TIMEOUT`], and reads its JSON. Its stderr is not read (it
/// may hold anything); its output is never shown.
fn run_credential_process(command: &str, profile: &str) -> Result<ProcessKeys, String> {
    let fail = |why: &str| format!("the credential_process of AWS profile {profile:?} {why}");
    let mut child = shell(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|_| fail("could not be started"))?;
    let Some(mut stdout) = child.stdout.take() else {
        let _ = child.kill();
        return Err(fail("could not be started"));
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let read = (&mut stdout).take(PROCESS_OUTPUT_MAX).read_to_end(&mut out);
        let _ = tx.send(read.map(|_| out));
    });
    let output = match rx.recv_timeout(PROCESS_TIMEOUT) {
        Ok(Ok(out)) => out,
        Ok(Err(_)) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(fail("could not be read"));
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(fail(&format!(
                "did not answer within {} s",
                PROCESS_TIMEOUT.as_secs()
            )));
        }
    };
    let status = child.wait().map_err(|_| fail("could not be waited for"))?;
    if !status.success() {
        return Err(fail(&format!("failed ({status})")));
    }
    let keys: ProcessKeys =
        serde_json::from_slice(&output).map_err(|_| fail("did not print credentials JSON"))?;
    if keys.version != 1 || keys.access_key_id.is_empty() || keys.secret_access_key.is_empty() {
        return Err(fail("printed JSON without version 1 keys"));
    }
    Ok(keys)
}

#[cfg(unix)]
fn shell(command: &str) -> Command {
    let mut c = Command::new("/bin/sh");
    c.arg("-c").arg(command);
    c
}

#[cfg(not(unix))]
fn shell(command: &str) -> Command {
    let mut c = Command::new("cmd");
    c.arg("/C").arg(command);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    const CREDENTIALS: &str = "[default]\naws_access_key_id = AKIDEFAULT\n\n[ana]\naws_access_key_id=AKIANA\naws_secret_access_key = s3cr3t\n";
    const CONFIG: &str = "[default]\nregion = eu-west-1\n[profile ana]\nregion = us-east-2\nservices = dev\n  s3 =\n[profile proc]\ncredential_process = echo '{\"Version\":1,\"AccessKeyId\":\"AKP\",\"SecretAccessKey\":\"sk\"}'\n";

    #[test]
    fn sections_merge_from_both_files() {
        let ana = section(CREDENTIALS, "ana").unwrap();
        assert_eq!(ana.get("aws_access_key_id"), Some("AKIANA"));
        let conf = section(CONFIG, "profile ana").unwrap();
        assert_eq!(conf.get("region"), Some("us-east-2"));
        assert!(section(CONFIG, "profile nobody").is_none());
        assert_eq!(
            section(CONFIG, "default").unwrap().get("region"),
            Some("eu-west-1")
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_credential_process_is_run_and_bounded() {
        let conf = section(CONFIG, "profile proc").unwrap();
        let keys = run_credential_process(conf.get("credential_process").unwrap(), "proc").unwrap();
        assert_eq!(
            (keys.access_key_id.as_str(), keys.secret_access_key.as_str()),
            ("AKP", "sk")
        );
        let bad = run_credential_process("echo not-json", "p").unwrap_err();
        assert!(bad.contains("\"p\"") && !bad.contains("not-json"), "{bad}");
        assert!(run_credential_process("exit 3", "p")
            .unwrap_err()
            .contains("failed"));
        // `exec` so the kill reaches the sleeping process itself.
        let slow = run_credential_process("exec sleep 30", "p").unwrap_err();
        assert!(slow.contains("did not answer"), "{slow}");
    }
}
