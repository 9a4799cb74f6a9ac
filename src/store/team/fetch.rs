//! A snapshot's bytes by its digest: from the local cache, else from the
//! store (then kept in the cache); verified by hash either way.

use object_store::ObjectStoreExt as _;

use super::cache;
use super::client::TeamClient;
use super::error::TeamError;
use super::layout;
use super::net;

/// The bytes of snapshot `sha` from the cache alone (no network).
pub fn cached(sha: &str) -> Option<Vec<u8>> {
    cache::cache_get(sha)
}

/// The bytes of snapshot `sha`: the cache's, else the store's, checked
/// against `sha` before they are kept or returned. Blocks (bounded).
pub fn snapshot(client: &TeamClient, sha: &str) -> Result<Vec<u8>, TeamError> {
    if let Some(bytes) = cache::cache_get(sha) {
        return Ok(bytes);
    }
    let url = client.url_text().to_owned();
    let client = client.clone();
    let sha_owned = sha.to_owned();
    let bytes = net::run(&url, net::WHOLE_TIMEOUT, async move {
        fetch_verified(&client, &sha_owned).await
    })?;
    // A cache that cannot be written costs a refetch, nothing else.
    let _ = cache::cache_put(sha, &bytes);
    Ok(bytes)
}

/// Gets snapshot `sha` from the store and checks its hash.
pub async fn fetch_verified(client: &TeamClient, sha: &str) -> Result<Vec<u8>, TeamError> {
    let url = client.url_text();
    let path = layout::snapshot_path(client, sha).ok_or_else(|| TeamError::Backend {
        url: url.to_owned(),
        kind: format!("{sha:?} is not a sha256 digest"),
    })?;
    let got = client
        .store
        .get(&path)
        .await
        .map_err(|e| TeamError::from_store(url, path.as_ref(), &e))?;
    if got.meta.size > cache::MAX_SNAPSHOT_BYTES {
        return Err(TeamError::TooLarge {
            url: url.to_owned(),
            path: path.to_string(),
            limit: cache::MAX_SNAPSHOT_BYTES,
        });
    }
    let bytes = got
        .bytes()
        .await
        .map_err(|e| TeamError::from_store(url, path.as_ref(), &e))?;
    if cache::sha256_hex(&bytes) != sha {
        return Err(TeamError::HashMismatch {
            url: url.to_owned(),
            sha256: sha.to_owned(),
        });
    }
    Ok(bytes.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::team::client::tests::memory_client;
    use crate::store::team::listing::tests::put;
    use object_store::PutPayload;

    #[test]
    fn a_snapshot_is_served_only_with_its_hash() {
        let c = memory_client("p");
        let bytes = b"{\"a\":1}\n".to_vec();
        let sha = cache::sha256_hex(&bytes);
        let path = layout::snapshot_path(&c, &sha).unwrap();
        put(&c, &path, bytes.clone());
        let c2 = c.clone();
        let s2 = sha.clone();
        let got = net::run("m", net::WHOLE_TIMEOUT, async move {
            fetch_verified(&c2, &s2).await
        });
        assert_eq!(got.unwrap(), bytes);
        // Tampered: the name says one hash, the bytes another.
        let other = cache::sha256_hex(b"other");
        let tampered = layout::snapshot_path(&c, &other).unwrap();
        let store = c.store.clone();
        let c3 = c.clone();
        let got = net::run("m", net::WHOLE_TIMEOUT, async move {
            store
                .put(&tampered, PutPayload::from(b"evil".to_vec()))
                .await
                .map_err(|e| TeamError::from_store("m", "", &e))?;
            fetch_verified(&c3, &other).await
        });
        assert!(matches!(got, Err(TeamError::HashMismatch { .. })));
        let absent = cache::sha256_hex(b"absent");
        let c4 = c.clone();
        let got = net::run("m", net::WHOLE_TIMEOUT, async move {
            fetch_verified(&c4, &absent).await
        });
        assert!(matches!(got, Err(TeamError::NotFound { .. })));
    }
}
