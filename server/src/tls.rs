//! HTTPS: rustls with the *ring* provider (the one the rest of idmint uses; no second TLS
//! stack), a certificate and key from PEM files, and a reload that swaps them for new
//! connections — on SIGHUP in `idmint serve`, or [`Running::reload_tls`](crate::Running::reload_tls).
//!
//! A reload that fails (a file unreadable, a key that does not match its certificate) keeps
//! the certificate in force: a renewal script's mistake must not take the service down.

use std::path::Path;
use std::sync::{Arc, RwLock};

use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

use crate::config::TlsFiles;

/// The certificate every new handshake gets, swappable while connections use the old one.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.read().unwrap_or_else(|p| p.into_inner()).clone())
    }
}

/// The TLS side of the listener: accepts handshakes, reloads its certificate.
pub struct Tls {
    files: TlsFiles,
    current: Arc<Current>,
    acceptor: TlsAcceptor,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("files", &self.files).finish()
    }
}

impl Tls {
    /// Reads the files and builds the server configuration (HTTP/1.1 over TLS 1.2 and 1.3);
    /// the error names the file and what is wrong with it.
    pub fn new(files: &TlsFiles) -> Result<Tls, String> {
        let key = load(files)?;
        let current = Arc::new(Current(RwLock::new(key)));
        let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .with_no_client_auth()
            .with_cert_resolver(current.clone());
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            files: files.clone(),
            current,
            acceptor: TlsAcceptor::from(Arc::new(config)),
        })
    }

    /// Reads the files again and serves new connections with them; on failure keeps the
    /// certificate in force and says why.
    pub fn reload(&self) -> Result<(), String> {
        let key = load(&self.files)?;
        *self.current.0.write().unwrap_or_else(|p| p.into_inner()) = key;
        Ok(())
    }

    /// The handshake acceptor.
    pub fn acceptor(&self) -> &TlsAcceptor {
        &self.acceptor
    }
}

/// The certificate chain and its key, checked to belong together.
fn load(files: &TlsFiles) -> Result<Arc<CertifiedKey>, String> {
    let chain = read_certs(&files.cert)?;
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| {
        format!(
            "--tls-key {}: no usable PEM private key ({})",
            files.key.display(),
            pem_error(&e)
        )
    })?;
    let signer = ring::sign::any_supported_type(&key).map_err(|e| {
        format!(
            "--tls-key {}: unsupported private key ({e})",
            files.key.display()
        )
    })?;
    let certified = CertifiedKey::new(chain, signer);
    certified.keys_match().map_err(|e| match e {
        rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => format!(
            "--tls-key {} is not the key of the certificate in --tls-cert {}",
            files.key.display(),
            files.cert.display()
        ),
        other => format!("--tls-cert {}: {other}", files.cert.display()),
    })?;
    Ok(Arc::new(certified))
}

fn read_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let bad = |why: String| format!("--tls-cert {}: {why}", path.display());
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(pem_error(&e)))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(pem_error(&e)))?;
    if certs.is_empty() {
        return Err(bad("no PEM certificate in it".into()));
    }
    Ok(certs)
}

fn pem_error(e: &rustls::pki_types::pem::Error) -> String {
    use rustls::pki_types::pem::Error as E;
    match e {
        E::Io(io) => io.to_string(),
        E::NoItemsFound => "nothing of that kind in it".into(),
        other => format!("malformed PEM: {other:?}"),
    }
}
