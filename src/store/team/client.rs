//! Opening a team store: the `object_store` client for a [`TeamUrl`],
//! configured for what the layout needs (conditional writes) and bounded in
//! time (a store that does not answer costs seconds, not minutes).

use std::sync::{Arc, Once};
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{BackoffConfig, ClientConfigKey, ObjectStore, RetryConfig};

use super::credentials;
use super::error::TeamError;
use super::url::{Scheme, TeamUrl};

/// Connecting to a store's endpoint.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// One request, from sending it to the last byte of its answer's head.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// All attempts of one request together (retries included).
pub const RETRY_TIMEOUT: Duration = Duration::from_secs(6);

/// An open team store.
#[derive(Clone)]
pub struct TeamClient {
    pub store: Arc<dyn ObjectStore>,
    /// The prefix every layout path is below (empty for the bucket's root
    /// and for `file://`, whose folder is the store itself).
    pub prefix: Path,
    pub url: TeamUrl,
    /// Whether the backend supports `PutMode::Update` (compare-and-swap on
    /// the ETag); `file://` does not and `publish` uses its own protocol.
    pub conditional: bool,
}

impl std::fmt::Debug for TeamClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The store's own Debug may show its configuration (keys among it).
        f.debug_struct("TeamClient")
            .field("url", &self.url.original)
            .field("conditional", &self.conditional)
            .finish_non_exhaustive()
    }
}

impl TeamClient {
    /// A client over any object store (tests: `InMemory`).
    pub fn over(
        store: Arc<dyn ObjectStore>,
        prefix: &str,
        url: TeamUrl,
        conditional: bool,
    ) -> Self {
        TeamClient {
            store,
            prefix: Path::from(prefix),
            url,
            conditional,
        }
    }

    /// The URL as the user gave it, for messages.
    pub fn url_text(&self) -> &str {
        &self.url.original
    }
}

/// Opens the store at `url`. Builds the client only: nothing is sent until
/// the first request (which is where a bad credential or endpoint shows).
pub fn open(url: &TeamUrl) -> Result<TeamClient, TeamError> {
    install_crypto_provider();
    let config_err = |e: object_store::Error| TeamError::Config {
        url: url.original.clone(),
        reason: config_reason(&e),
    };
    let (store, conditional): (Arc<dyn ObjectStore>, bool) = match url.scheme {
        Scheme::S3 => {
            // `from_env` reads AWS_* (keys, region, endpoint, allow-http);
            // conditional put is If-Match on the ETag (the default, named
            // here because the manifest protocol depends on it).
            let builder = credentials::apply_aws_profile(AmazonS3Builder::from_env())
                .map_err(|reason| TeamError::Config {
                    url: url.original.clone(),
                    reason,
                })?
                .with_bucket_name(&url.bucket)
                .with_conditional_put(object_store::aws::S3ConditionalPut::ETagMatch)
                .with_retry(retry_config());
            let builder = with_timeouts(builder);
            (Arc::new(builder.build().map_err(config_err)?), true)
        }
        Scheme::Gcs => {
            let builder = GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&url.bucket)
                .with_retry(retry_config());
            let builder = with_timeouts(builder);
            (Arc::new(builder.build().map_err(config_err)?), true)
        }
        Scheme::Azure => {
            let builder = MicrosoftAzureBuilder::from_env()
                .with_container_name(&url.bucket)
                .with_retry(retry_config());
            let builder = with_timeouts(builder);
            (Arc::new(builder.build().map_err(config_err)?), true)
        }
        Scheme::File => {
            let dir = std::path::Path::new(&url.prefix);
            if !dir.is_dir() {
                return Err(TeamError::NoBucket {
                    url: url.original.clone(),
                });
            }
            let fs = LocalFileSystem::new_with_prefix(dir).map_err(config_err)?;
            (Arc::new(fs), false)
        }
    };
    let prefix = match url.scheme {
        Scheme::File => "",
        _ => url.prefix.as_str(),
    };
    Ok(TeamClient::over(store, prefix, url.clone(), conditional))
}

/// Sets the timeouts on a builder whose other client options (`*_ALLOW_HTTP`,
/// proxies) came from the environment: through `with_config`, which
/// keeps them, where `with_client_options` would replace them all.
fn with_timeouts<B: WithConfig>(builder: B) -> B {
    builder
        .then_set(
            ClientConfigKey::ConnectTimeout,
            format!("{}s", CONNECT_TIMEOUT.as_secs()),
        )
        .then_set(
            ClientConfigKey::Timeout,
            format!("{}s", REQUEST_TIMEOUT.as_secs()),
        )
}

/// A builder that takes one more client option.
trait WithConfig: Sized {
    fn then_set(self, key: ClientConfigKey, value: String) -> Self;
}

impl WithConfig for AmazonS3Builder {
    fn then_set(self, key: ClientConfigKey, value: String) -> Self {
        self.with_config(AmazonS3ConfigKey::Client(key), value)
    }
}

impl WithConfig for GoogleCloudStorageBuilder {
    fn then_set(self, key: ClientConfigKey, value: String) -> Self {
        self.with_config(GoogleConfigKey::Client(key), value)
    }
}

impl WithConfig for MicrosoftAzureBuilder {
    fn then_set(self, key: ClientConfigKey, value: String) -> Self {
        self.with_config(AzureConfigKey::Client(key), value)
    }
}

/// One quick retry at most, all attempts inside [`RETRY_TIMEOUT`]: a down
/// store is reported, not waited for.
fn retry_config() -> RetryConfig {
    RetryConfig {
        max_retries: 1,
        retry_timeout: RETRY_TIMEOUT,
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(500),
            base: 2.0,
        },
    }
}

/// reqwest is built without a crypto provider of its own; rustls on `ring`
/// becomes the process default before the first client.
fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err: a provider is installed already, which serves as well.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Why a builder refused its configuration, by kind: a builder's error may
/// quote the value it refused, and that value may be a key.
fn config_reason(err: &object_store::Error) -> String {
    match err {
        object_store::Error::UnknownConfigurationKey { key, .. } => {
            format!("unknown configuration key {key}")
        }
        _ => "an unusable setting in the environment (region, endpoint or credentials)".to_owned(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use object_store::memory::InMemory;

    /// A client over a fresh in-memory store with `prefix`.
    pub(crate) fn memory_client(prefix: &str) -> TeamClient {
        let url = TeamUrl::parse(&format!("s3://mem/{prefix}")).unwrap();
        TeamClient::over(Arc::new(InMemory::new()), prefix, url, true)
    }

    #[test]
    fn a_file_store_opens_its_folder_without_compare_and_swap() {
        let dir = tempfile::tempdir().unwrap();
        let url = TeamUrl::parse(&format!("file://{}", dir.path().display())).unwrap();
        let client = open(&url).unwrap();
        assert!(!client.conditional);
        assert_eq!(client.prefix.as_ref(), "");
        let missing = TeamUrl::parse("file:///nonexistent/team-store").unwrap();
        assert!(matches!(open(&missing), Err(TeamError::NoBucket { .. })));
    }

    #[test]
    fn an_s3_client_is_built_without_sending_anything() {
        let url = TeamUrl::parse("s3://bucket/prefix").unwrap();
        let client = open(&url).unwrap();
        assert!(client.conditional);
        assert_eq!(client.prefix.as_ref(), "prefix");
        assert!(!format!("{client:?}").contains("secret"));
    }
}
