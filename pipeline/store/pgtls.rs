//! TLS to the PostgreSQL server of `--store`: libpq's `sslmode` and `sslrootcert`, on rustls.
//!
//! **In:** a connection string in either form (`postgres://…?sslmode=verify-full&sslrootcert=…`
//! or `host=… sslmode=verify-full sslrootcert=…`). **Out:** the same string without the two
//! options (for `tokio_postgres::Config`, which knows neither `verify-*` nor `sslrootcert`), and
//! what the mode asks of the connection.
//!
//! **Invariants** (libpq's meanings):
//! - `disable`: never TLS. `allow`, `prefer` (the default): TLS when the server offers it, its
//!   certificate not checked (encryption against a listener, not against an impostor).
//! - `require`: TLS or no connection; the certificate checked against `sslrootcert` when one
//!   is given (as `verify-ca`), else not.
//! - `verify-ca`: the certificate must chain to `sslrootcert` (else the system's roots);
//!   `verify-full`: and name the host connected to.
//! - a certificate file that cannot be read, or holds no certificate, stops the connection with
//!   its path; an unknown `sslmode` is refused by name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres::config::SslMode;

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Never TLS.
    Disable,
    /// TLS when offered, not checked (libpq tries without first; here as `prefer`).
    Allow,
    /// TLS when offered, not checked.
    Prefer,
    /// TLS always; checked as `verify-ca` when a root certificate is given.
    Require,
    /// TLS, the certificate chain checked.
    VerifyCa,
    /// TLS, the chain and the host name checked.
    VerifyFull,
}

/// The TLS options of a connection string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tls {
    /// `sslmode` (`prefer` when absent).
    pub mode: Mode,
    /// `sslrootcert`: a PEM file of the certificate authorities trusted.
    pub root_cert: Option<PathBuf>,
}

impl Tls {
    /// What tokio-postgres is told: whether TLS is tried, required or never used.
    pub fn ssl_mode(&self) -> SslMode {
        match self.mode {
            Mode::Disable => SslMode::Disable,
            Mode::Allow | Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }

    /// The rustls configuration the mode asks for (None: no TLS at all).
    pub fn client_config(&self) -> anyhow::Result<Option<ClientConfig>> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let check = match (self.mode, &self.root_cert) {
            (Mode::Disable, _) => return Ok(None),
            (Mode::Allow | Mode::Prefer, _) | (Mode::Require, None) => Check::Nothing,
            (Mode::Require | Mode::VerifyCa, _) => Check::Chain,
            (Mode::VerifyFull, _) => Check::ChainAndName,
        };
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .context("cannot set up TLS for PostgreSQL")?;
        let verifier: Arc<dyn ServerCertVerifier> = match (&self.root_cert, check) {
            (_, Check::Nothing) => Arc::new(Unchecked(provider)),
            (Some(path), check) => {
                let roots = Arc::new(read_roots(path)?);
                let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .context("cannot set up TLS for PostgreSQL")?;
                chain_only(webpki, check)
            }
            (None, check) => {
                let platform = rustls_platform_verifier::Verifier::new(provider)
                    .context("cannot read the system's certificate authorities")?;
                chain_only(Arc::new(platform), check)
            }
        };
        Ok(Some(
            builder
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_no_client_auth(),
        ))
    }
}

/// What is checked of the server's certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    Nothing,
    Chain,
    ChainAndName,
}

fn chain_only(inner: Arc<dyn ServerCertVerifier>, check: Check) -> Arc<dyn ServerCertVerifier> {
    if check == Check::Chain {
        Arc::new(AnyName(inner))
    } else {
        inner
    }
}

/// Splits the TLS options off a connection string: the string tokio-postgres reads, and them.
pub fn split(conn: &str) -> anyhow::Result<(String, Tls)> {
    let mut mode = None;
    let mut root_cert = None;
    let mut take = |key: &str, value: &str| -> anyhow::Result<bool> {
        match key {
            "sslmode" => mode = Some(parse_mode(value)?),
            "sslrootcert" => root_cert = Some(PathBuf::from(value)),
            _ => return Ok(false),
        }
        Ok(true)
    };
    let rest = if conn.starts_with("postgres://") || conn.starts_with("postgresql://") {
        split_url(conn, &mut take)?
    } else {
        split_key_values(conn, &mut take)?
    };
    Ok((
        rest,
        Tls {
            mode: mode.unwrap_or(Mode::Prefer),
            root_cert,
        },
    ))
}

type Take<'a> = dyn FnMut(&str, &str) -> anyhow::Result<bool> + 'a;

/// `postgres://…?a=b&sslmode=…`: the query's pairs, percent-decoded.
fn split_url(conn: &str, take: &mut Take<'_>) -> anyhow::Result<String> {
    let Some((base, query)) = conn.split_once('?') else {
        return Ok(conn.to_string());
    };
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let decoded = url::form_urlencoded::parse(pair.as_bytes()).next();
        let taken = match &decoded {
            Some((key, value)) => take(key, value)?,
            None => false,
        };
        if !taken {
            kept.push(pair);
        }
    }
    Ok(if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    })
}

/// `key=value key='a value'`: libpq's key-value form (spaces around `=` allowed, single
/// quotes with backslash escapes).
fn split_key_values(conn: &str, take: &mut Take<'_>) -> anyhow::Result<String> {
    let mut kept: Vec<&str> = Vec::new();
    let mut rest = conn.trim_start();
    while !rest.is_empty() {
        let start = rest;
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        rest = rest[key_end..].trim_start();
        let Some(after) = rest.strip_prefix('=') else {
            // Not a pair: tokio-postgres will say what is wrong with it.
            return Ok(conn.to_string());
        };
        rest = after.trim_start();
        let (value, used) = read_value(rest);
        rest = &rest[used..];
        let pair = &start[..start.len() - rest.len()];
        if !take(key, &value)? {
            kept.push(pair.trim_end());
        }
        rest = rest.trim_start();
    }
    Ok(kept.join(" "))
}

/// A value, quoted or not, and the bytes it used.
fn read_value(s: &str) -> (String, usize) {
    let Some(quoted) = s.strip_prefix('\'') else {
        let end = s.find(char::is_whitespace).unwrap_or(s.len());
        return (s[..end].to_string(), end);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, next)) = chars.next() {
                    value.push(next);
                }
            }
            '\'' => return (value, i + 2),
            c => value.push(c),
        }
    }
    (value, s.len())
}

fn parse_mode(value: &str) -> anyhow::Result<Mode> {
    Ok(match value {
        "disable" => Mode::Disable,
        "allow" => Mode::Allow,
        "prefer" => Mode::Prefer,
        "require" => Mode::Require,
        "verify-ca" => Mode::VerifyCa,
        "verify-full" => Mode::VerifyFull,
        other => anyhow::bail!(
            "sslmode={other:?} in --store is not a mode: give disable, allow, prefer, require, \
             verify-ca or verify-full"
        ),
    })
}

/// The certificate authorities of a PEM file.
fn read_roots(path: &Path) -> anyhow::Result<RootCertStore> {
    let bytes = std::fs::read(path).with_context(|| {
        format!(
            "cannot read sslrootcert {} (a PEM file of certificate authorities)",
            path.display()
        )
    })?;
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(&bytes) {
        let cert =
            cert.with_context(|| format!("sslrootcert {}: not a PEM file", path.display()))?;
        roots.add(cert).with_context(|| {
            format!(
                "sslrootcert {}: a certificate rustls refuses",
                path.display()
            )
        })?;
    }
    if roots.is_empty() {
        anyhow::bail!("sslrootcert {} holds no certificate", path.display());
    }
    Ok(roots)
}

/// `verify-ca`: the chain checked, whatever name the certificate gives.
#[derive(Debug)]
struct AnyName(Arc<dyn ServerCertVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer`, `require` without a root certificate: any certificate (libpq does the same); the
/// handshake's signatures are still checked against it.
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::{Mode, split};

    #[test]
    fn the_tls_options_are_taken_off_both_forms() {
        let (rest, tls) = split(
            "host=db.lab port=5433 sslmode=verify-full sslrootcert='/etc/ca dir/ca.pem' user=g",
        )
        .unwrap();
        assert_eq!(rest, "host=db.lab port=5433 user=g");
        assert_eq!(tls.mode, Mode::VerifyFull);
        assert_eq!(
            tls.root_cert.as_deref(),
            Some(std::path::Path::new("/etc/ca dir/ca.pem"))
        );
        let (rest, tls) = split("host = /tmp/s  sslmode = require  dbname='a\\'b'").unwrap();
        assert_eq!(rest, "host = /tmp/s dbname='a\\'b'");
        assert_eq!((tls.mode, tls.root_cert), (Mode::Require, None));
        let (rest, tls) = split(
            "postgres://u:p@db.lab:5433/corpora?application_name=x&sslmode=verify-ca&sslrootcert=%2Fca.pem",
        )
        .unwrap();
        assert_eq!(
            rest,
            "postgres://u:p@db.lab:5433/corpora?application_name=x"
        );
        assert_eq!(tls.mode, Mode::VerifyCa);
        assert_eq!(
            tls.root_cert.as_deref(),
            Some(std::path::Path::new("/ca.pem"))
        );
        let (rest, tls) = split("postgres://db.lab/c?sslmode=disable").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("postgres://db.lab/c", Mode::Disable)
        );
        // Absent: libpq's default.
        let (rest, tls) = split("host=/run/postgresql").unwrap();
        assert_eq!(
            (rest.as_str(), tls.mode),
            ("host=/run/postgresql", Mode::Prefer)
        );
    }

    #[test]
    fn an_unknown_mode_or_a_missing_file_is_named() {
        let err = split("host=x sslmode=verify").unwrap_err().to_string();
        assert!(
            err.contains("\"verify\"") && err.contains("verify-full"),
            "{err}"
        );
        let (_, tls) = split("host=x sslmode=verify-full sslrootcert=/nonexistent/ca.pem").unwrap();
        let err = format!("{:#}", tls.client_config().unwrap_err());
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
        let empty = tempfile::NamedTempFile::new().unwrap();
        let (_, tls) = split(&format!(
            "host=x sslmode=verify-ca sslrootcert={}",
            empty.path().display()
        ))
        .unwrap();
        let err = format!("{:#}", tls.client_config().unwrap_err());
        assert!(err.contains("holds no certificate"), "{err}");
    }
}
