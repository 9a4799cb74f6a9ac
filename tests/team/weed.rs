//! A real S3-compatible server for the team store's tests: SeaweedFS's
//! `weed mini` (installed by `tests/team/install.sh` into `.cache/team`,
//! or `$HYDRA_WEED`), on 127.0.0.1, every port free and chosen here, its
//! data in a temporary folder, one bucket made at start. Ready when its S3
//! endpoint answers a signed listing of the bucket (polled, with a
//! deadline); stopped when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;

pub const BUCKET: &str = "team";
pub const ACCESS_KEY: &str = "team-access";
pub const SECRET_KEY: &str = "team-secret-key-for-tests";
/// How long a cold `weed mini` may take to come up on a busy machine.
const READY_WITHIN: Duration = Duration::from_secs(90);
/// How many times a server that exits before it is ready is started again.
const ATTEMPTS: usize = 3;

/// The `weed` binary, when installed.
pub fn binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HYDRA_WEED") {
        return Some(PathBuf::from(path));
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/team/venv/bin/weed");
    path.is_file().then_some(path)
}

pub struct Weed {
    child: Option<Child>,
    _data: tempfile::TempDir,
    pub port: u16,
}

impl Weed {
    /// A started server, or `None` once the test is recorded as skipped
    /// with why (tests/skip: in CI a skip fails the run).
    pub fn or_skip() -> Option<Weed> {
        match Weed::start() {
            Ok(weed) => Some(weed),
            Err(why) => {
                crate::skip::skipped(&why);
                None
            }
        }
    }

    /// Starts a server; `Err` says why it did not come up (the test then
    /// skips, which CI counts as a failure).
    ///
    /// Starts are one at a time in a test binary (the ports are chosen
    /// free, then released for `weed` to bind: two starts at once could
    /// be handed the same one), and a server that exits before it is ready
    /// — a port taken meanwhile by another process — is started again on
    /// new ports, up to [`ATTEMPTS`] times, its log in the error.
    pub fn start() -> Result<Weed, String> {
        static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _turn = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut why = Vec::new();
        for _ in 0..ATTEMPTS {
            match Weed::start_once() {
                Ok(weed) => return Ok(weed),
                Err(e) => why.push(e),
            }
        }
        Err(why.join("; then "))
    }

    fn start_once() -> Result<Weed, String> {
        let weed = binary().ok_or("weed is not installed (bash tests/team/install.sh)")?;
        let data = tempfile::tempdir().map_err(|e| e.to_string())?;
        let config = data.path().join("s3.json");
        let identities = serde_json::json!({"identities": [{
            "name": "team",
            "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }]});
        std::fs::write(&config, identities.to_string()).map_err(|e| e.to_string())?;
        std::fs::create_dir(data.path().join("data")).map_err(|e| e.to_string())?;
        // Every port the servers inside `weed mini` listen on, chosen free
        // here (held until all are chosen, so no two are the same).
        let names = [
            "master.port",
            "master.port.grpc",
            "volume.port",
            "volume.port.grpc",
            "filer.port",
            "filer.port.grpc",
            "s3.port",
            "s3.port.grpc",
            "s3.port.iceberg",
            "s3.port.lance",
            "admin.port",
            "admin.port.grpc",
            "metricsPort",
        ];
        let held: Vec<TcpListener> = names
            .iter()
            .map(|_| TcpListener::bind("127.0.0.1:0"))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let ports: Vec<u16> = held
            .iter()
            .map(|l| l.local_addr().map(|a| a.port()))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        drop(held);
        let mut command = Command::new(weed);
        command
            .arg("mini")
            .arg(format!("-dir={}", data.path().join("data").display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1"])
            .args(["-admin.ui=false", "-webdav=false"])
            .arg(format!("-s3.config={}", config.display()))
            .arg(format!("-bucket={BUCKET}"));
        for (name, port) in names.iter().zip(&ports) {
            command.arg(format!("-{name}={port}"));
        }
        let log = std::fs::File::create(data.path().join("weed.log")).map_err(|e| e.to_string())?;
        let child = command
            .current_dir(data.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("weed mini did not start: {e}"))?;
        let mut weed = Weed {
            child: Some(child),
            _data: data,
            port: ports[6],
        };
        weed.wait_ready()?;
        Ok(weed)
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The environment a teammate's process needs to reach the server.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.to_owned()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
            ("AWS_ENDPOINT", self.endpoint()),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    /// A client of the bucket for the tests' own looks and tampering.
    pub fn client(&self) -> Arc<dyn ObjectStore> {
        // reqwest is built without a provider of its own (as the program).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let store = AmazonS3Builder::new()
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_access_key_id(ACCESS_KEY)
            .with_secret_access_key(SECRET_KEY)
            .build()
            .expect("an S3 client");
        Arc::new(store)
    }

    /// Polls the bucket with a signed listing until it answers.
    fn wait_ready(&mut self) -> Result<(), String> {
        let client = self.client();
        let runtime = runtime();
        let start = Instant::now();
        loop {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = std::fs::read_to_string(self._data.path().join("weed.log"))
                        .unwrap_or_default();
                    let tail: Vec<&str> = log.lines().rev().take(5).collect();
                    let tail: Vec<&str> = tail.into_iter().rev().collect();
                    return Err(format!(
                        "weed mini exited ({status}) before it was ready: {}",
                        tail.join(" | ")
                    ));
                }
            }
            let listed = runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(2), client.list_with_delimiter(None)).await
            });
            if matches!(listed, Ok(Ok(_))) {
                return Ok(());
            }
            if start.elapsed() > READY_WITHIN {
                return Err(format!("weed mini not ready within {READY_WITHIN:?}"));
            }
            // The next poll, not a guess at readiness.
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the server now (a test of a store that goes away).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Weed {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A runtime for the tests' own object-store calls.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
