//! Client lease tokens the service signs, so a client cannot edit what the service later takes
//! as truth: the lease's namespace, node, fencing token, owner, epoch, TTL, fence and who it
//! was granted to.
//!
//! A token is `v3.PAYLOAD.MAC`: the lease's fields as text (base64url), and an HMAC-SHA256 of
//! them under the service's lease key (base64url). Instances that share a lease store share
//! the key (`--lease-key @PATH` or `@env:NAME`), so any of them can renew a lease another
//! granted. Without `--lease-key`, a random key is generated into the data directory on first
//! start (`lease.key`, mode 0600) and read from there afterwards.
//!
//! Verification runs in constant time (`ring::hmac::verify`); a token that fails it is refused
//! whole, before any field is read, so an edited TTL, fence or node never reaches the store.

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use idmint::{Error, Result};
use idmint_coord::lease::Lease;
use ring::hmac;

use crate::error::{ApiError, ApiResult};

/// The token format's tag; a token of another version is refused.
const VERSION: &str = "v3";
/// Bound into every MAC, so the key signs nothing else by accident.
const CONTEXT: &[u8] = b"idmint-client-lease-v3\0";
/// Shortest key accepted, bytes.
pub const MIN_KEY_BYTES: usize = 32;
/// The key file generated in the data directory when no `--lease-key` is given.
pub const KEY_FILE: &str = "lease.key";

/// Who a lease was granted to, as the service saw it: the quotas count leases by these.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grantee {
    /// The peer address of the request that took the lease.
    pub peer: IpAddr,
    /// The name of the bearer token it presented, if any (never the secret).
    pub token: Option<Arc<str>>,
}

/// The signing key of client lease tokens.
#[derive(Clone)]
pub struct TokenKey {
    key: hmac::Key,
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(…)")
    }
}

fn bad_key(reason: &'static str) -> Error {
    Error::InvalidConfig { reason }
}

impl TokenKey {
    /// A key from raw bytes (at least [`MIN_KEY_BYTES`]).
    pub fn new(bytes: &[u8]) -> Result<TokenKey> {
        if bytes.len() < MIN_KEY_BYTES {
            return Err(bad_key(
                "the lease key must hold at least 32 bytes (for example 64 hex digits)",
            ));
        }
        Ok(TokenKey {
            key: hmac::Key::new(hmac::HMAC_SHA256, bytes),
        })
    }

    /// The key in `DATA_DIR/lease.key`, generated there when absent (for a service given no
    /// `--lease-key`).
    pub fn generated(data_dir: &Path) -> Result<TokenKey> {
        TokenKey::new(generated(&data_dir.join(KEY_FILE))?.trim_ascii())
    }

    fn mac(&self, payload: &[u8]) -> hmac::Tag {
        let mut ctx = hmac::Context::with_key(&self.key);
        ctx.update(CONTEXT);
        ctx.update(payload);
        ctx.sign()
    }

    /// The token for `lease`, granted to `to`.
    pub fn sign(&self, lease: &Lease, to: &Grantee) -> String {
        let payload = fields(lease, to);
        let tag = self.mac(payload.as_bytes());
        format!(
            "{VERSION}.{}.{}",
            B64.encode(payload.as_bytes()),
            B64.encode(tag.as_ref())
        )
    }

    /// The lease and grantee a token names, if this key signed it; any other text (edited,
    /// truncated, of another key or version) is refused with `ERR_INVALID_ARGUMENT`.
    pub fn verify(&self, text: &str) -> ApiResult<(Lease, Grantee)> {
        let bad = || ApiError::bad_arg("`lease` is not a lease token this service issued");
        if text.len() > 2048 {
            return Err(bad());
        }
        let mut parts = text.split('.');
        let (Some(VERSION), Some(payload), Some(mac), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        let payload = B64.decode(payload).map_err(|_| bad())?;
        let mac = B64.decode(mac).map_err(|_| bad())?;
        let mut msg = Vec::with_capacity(CONTEXT.len() + payload.len());
        msg.extend_from_slice(CONTEXT);
        msg.extend_from_slice(&payload);
        hmac::verify(&self.key, &msg, &mac).map_err(|_| bad())?;
        // Signed by us: the fields are what we wrote, but read them as carefully anyway.
        let text = std::str::from_utf8(&payload).map_err(|_| bad())?;
        parse_fields(text).ok_or_else(bad)
    }
}

/// Reads the generated key file, creating it (32 random bytes as hex, mode 0600, never
/// overwriting one that another process wrote meanwhile) when it does not exist.
fn generated(path: &Path) -> Result<Vec<u8>> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let unreadable = |_| Error::StoreUnavailable {
        store: "file",
        op: "read the lease key (DATA_DIR/lease.key)",
        reason: "I/O error",
    };
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(mut f) => {
            let mut hex = String::with_capacity(64);
            for _ in 0..4 {
                hex.push_str(&format!("{:016x}", idmint::os_random_u64()?));
            }
            f.write_all(hex.as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(unreadable)?;
            Ok(hex.into_bytes())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            // A writer racing us may not have written yet: a short key is read again.
            for _ in 0..50 {
                let bytes = std::fs::read(path).map_err(unreadable)?;
                if bytes.trim_ascii().len() >= MIN_KEY_BYTES {
                    return Ok(bytes);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(bad_key(
                "DATA_DIR/lease.key holds fewer than 32 bytes: remove it to have a new key made",
            ))
        }
        Err(e) => Err(unreadable(e)),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// `NAMESPACE~NODE~TOKEN~OWNER~EPOCH~TTL_MS~FENCE_MS~HOLDER~PEER~TOKEN_NAME` (owner and epoch
/// in hex, fence `-` for none, holder and token name hex-encoded, token name `-` for none).
fn fields(l: &Lease, to: &Grantee) -> String {
    let fence = l.fence_ms.map_or_else(|| "-".to_owned(), |f| f.to_string());
    let token = to
        .token
        .as_deref()
        .map_or_else(|| "-".to_owned(), |t| hex(t.as_bytes()));
    format!(
        "{}~{}~{}~{:x}~{:x}~{}~{fence}~{}~{}~{token}",
        l.namespace,
        l.node,
        l.token,
        l.owner,
        l.epoch,
        duration_ms(l.ttl),
        hex(l.holder.as_bytes()),
        to.peer,
    )
}

fn parse_fields(text: &str) -> Option<(Lease, Grantee)> {
    let parts: Vec<&str> = text.split('~').collect();
    let [ns, node, token, owner, epoch, ttl, fence, holder, peer, name] = parts[..] else {
        return None;
    };
    let fence_ms = match fence {
        "-" => None,
        f => Some(f.parse().ok()?),
    };
    let name = match name {
        "-" => None,
        n => Some(Arc::from(String::from_utf8(unhex(n)?).ok()?)),
    };
    let lease = Lease {
        namespace: ns.to_owned(),
        node: node.parse().ok()?,
        token: token.parse().ok()?,
        owner: u64::from_str_radix(owner, 16).ok()?,
        epoch: u64::from_str_radix(epoch, 16).ok()?,
        ttl: Duration::from_millis(ttl.parse().ok()?),
        holder: String::from_utf8(unhex(holder)?).ok()?,
        fence_ms,
        not_before_ms: None,
    };
    let grantee = Grantee {
        peer: peer.parse().ok()?,
        token: name,
    };
    Some((lease, grantee))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease() -> Lease {
        Lease {
            namespace: "web.app-1".into(),
            node: 17,
            token: 99,
            owner: u64::MAX,
            epoch: 0xabc,
            ttl: Duration::from_millis(30_000),
            holder: "client:127.0.0.1:ß".into(),
            fence_ms: Some(1_700_000_000_000),
            not_before_ms: None,
        }
    }

    fn grantee() -> Grantee {
        Grantee {
            peer: "::1".parse().unwrap(),
            token: Some(Arc::from("web page")),
        }
    }

    #[test]
    fn tokens_round_trip_under_their_key_only() {
        let k = TokenKey::new(&[7; 32]).unwrap();
        let t = k.sign(&lease(), &grantee());
        assert_eq!(k.verify(&t).unwrap(), (lease(), grantee()));
        let unfenced = Lease {
            fence_ms: None,
            ..lease()
        };
        let anon = Grantee {
            peer: "10.1.2.3".parse().unwrap(),
            token: None,
        };
        assert_eq!(
            k.verify(&k.sign(&unfenced, &anon)).unwrap(),
            (unfenced, anon)
        );
        let other = TokenKey::new(&[8; 32]).unwrap();
        assert!(other.verify(&t).is_err(), "another key's token is refused");
    }

    #[test]
    fn an_edited_or_malformed_token_is_refused() {
        let k = TokenKey::new(&[7; 32]).unwrap();
        let t = k.sign(&lease(), &grantee());
        let (_, rest) = t.split_once('.').unwrap();
        let (payload, mac) = rest.split_once('.').unwrap();
        // The payload rewritten with a lower fence, the MAC kept.
        let text = String::from_utf8(B64.decode(payload).unwrap()).unwrap();
        let edited = text.replace("1700000000000", "-");
        let forged = format!("v3.{}.{mac}", B64.encode(edited.as_bytes()));
        for bad in [
            "",
            "v3",
            "v3..",
            "v2.a.b",
            &forged,
            &format!("{t}."),
            &t[..t.len() - 1],
            &format!("l2~{payload}"),
        ] {
            assert_eq!(
                k.verify(bad).unwrap_err().code,
                "ERR_INVALID_ARGUMENT",
                "{bad}"
            );
        }
    }

    #[test]
    fn short_keys_are_refused_and_the_generated_key_persists() {
        assert!(TokenKey::new(&[1; 31]).is_err());
        let dir = std::env::temp_dir().join(format!("idmint-key-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let a = TokenKey::generated(&dir).unwrap();
        let b = TokenKey::generated(&dir).unwrap();
        let t = a.sign(&lease(), &grantee());
        assert!(b.verify(&t).is_ok(), "the second start reads the same key");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the key file is private");
        let given = TokenKey::new(b"0123456789abcdef0123456789abcdef").unwrap();
        assert!(given.verify(&t).is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
