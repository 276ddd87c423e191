//! TLS for the sessions with a MySQL/MariaDB or PostgreSQL server: the mode and CA file an
//! external server's URL asks for, in each engine's own spelling (`ssl-mode=` and `ssl-ca=`
//! in `mysql://` URLs, as the mysql client and MySQL Shell write them; `sslmode=` and
//! `sslrootcert=` in `postgres://` URLs, as libpq does), checked when the plan is resolved, and
//! the rustls client configuration the sessions use.
//!
//! Modes: disable (no TLS; the default here, unlike libpq and the mysql client, whose default
//! is prefer: TLS costs CPU on both sides, which a drive benchmark pays only when asked),
//! prefer (TLS when the server offers it, its certificate not checked), require (TLS or no
//! session, the certificate not checked), verify-ca (the certificate chains to the CA file, or
//! to the Mozilla roots without one) and verify-full (and it names the host of the URL).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore};

/// How sessions use TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl TlsMode {
    const ALL: [TlsMode; 5] = [
        TlsMode::Disable,
        TlsMode::Prefer,
        TlsMode::Require,
        TlsMode::VerifyCa,
        TlsMode::VerifyFull,
    ];
}

/// How an engine's URLs spell the TLS keys and modes (modes in `TlsMode::ALL` order).
#[derive(Debug, PartialEq, Eq)]
pub struct Spelling {
    pub mode_key: &'static str,
    pub ca_key: &'static str,
    pub modes: [&'static str; 5],
}

/// `mysql://...?ssl-mode=VERIFY_CA&ssl-ca=/path/ca.pem` (any case for the mode).
pub const MYSQL: Spelling = Spelling {
    mode_key: "ssl-mode",
    ca_key: "ssl-ca",
    modes: [
        "DISABLED",
        "PREFERRED",
        "REQUIRED",
        "VERIFY_CA",
        "VERIFY_IDENTITY",
    ],
};

/// `postgres://...?sslmode=verify-ca&sslrootcert=/path/ca.pem`.
pub const POSTGRES: Spelling = Spelling {
    mode_key: "sslmode",
    ca_key: "sslrootcert",
    modes: ["disable", "prefer", "require", "verify-ca", "verify-full"],
};

/// What is wrong with a URL's TLS settings.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{key}={value}: expected {expected}")]
    Mode {
        key: &'static str,
        value: String,
        expected: String,
    },
    #[error("{key} is given twice")]
    Repeated { key: &'static str },
    #[error("{key}={}: {source}", .path.display())]
    CaFile {
        key: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{key}={}: no usable PEM certificate in it{}", .path.display(), .why.as_ref().map(|w| format!(" ({w})")).unwrap_or_default())]
    NoCertificate {
        key: &'static str,
        path: PathBuf,
        why: Option<String>,
    },
    #[error("{key}={} is given but {mode_key}={mode} does not check certificates; use a verify mode", .path.display())]
    CaUnused {
        key: &'static str,
        path: PathBuf,
        mode_key: &'static str,
        mode: &'static str,
    },
    #[error("TLS set-up: {0}")]
    Setup(#[from] rustls::Error),
}

/// A URL's TLS settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    pub mode: TlsMode,
    /// PEM certificates of the CA(s) a verify mode trusts; none = the Mozilla roots.
    pub ca_file: Option<PathBuf>,
    /// Where the settings came from, for messages.
    spelling: &'static Spelling,
}

/// What a session does about TLS, ready to connect.
#[derive(Clone)]
pub enum SessionTls {
    Off,
    On {
        config: Arc<ClientConfig>,
        /// No session without TLS (every mode but prefer).
        required: bool,
    },
}

impl std::fmt::Debug for SessionTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionTls::Off => f.write_str("Off"),
            SessionTls::On { required, .. } => write!(f, "On {{ required: {required} }}"),
        }
    }
}

impl TlsSettings {
    /// Take the TLS keys out of `url`'s query string: the settings (checked: the mode is
    /// known, the CA file holds certificates) and the URL without them.
    pub fn split_url(url: &str, spelling: &'static Spelling) -> Result<(Self, String), TlsError> {
        let (head, query) = url.split_once('?').unwrap_or((url, ""));
        let mut mode = None;
        let mut ca_file = None;
        let mut rest = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if k == spelling.mode_key {
                let m = parse_mode(&percent_decode(v), spelling)?;
                if mode.replace(m).is_some() {
                    return Err(TlsError::Repeated {
                        key: spelling.mode_key,
                    });
                }
            } else if k == spelling.ca_key {
                let path = PathBuf::from(percent_decode(v));
                if ca_file.replace(path).is_some() {
                    return Err(TlsError::Repeated {
                        key: spelling.ca_key,
                    });
                }
            } else {
                rest.push(pair);
            }
        }
        let settings = TlsSettings {
            mode: mode.unwrap_or(TlsMode::Disable),
            ca_file,
            spelling,
        };
        settings.check()?;
        let url = if rest.is_empty() {
            head.to_string()
        } else {
            format!("{head}?{}", rest.join("&"))
        };
        Ok((settings, url))
    }

    /// The CA file is only for modes that check certificates, and holds certificates.
    fn check(&self) -> Result<(), TlsError> {
        if let Some(path) = &self.ca_file {
            if !matches!(self.mode, TlsMode::VerifyCa | TlsMode::VerifyFull) {
                return Err(TlsError::CaUnused {
                    key: self.spelling.ca_key,
                    path: path.clone(),
                    mode_key: self.spelling.mode_key,
                    mode: self.mode_name(),
                });
            }
            self.roots()?;
        }
        Ok(())
    }

    /// The mode as the URL spells it.
    pub fn mode_name(&self) -> &'static str {
        let i = TlsMode::ALL.iter().position(|m| *m == self.mode);
        self.spelling.modes[i.unwrap_or(0)]
    }

    /// The certificates a verify mode trusts.
    fn roots(&self) -> Result<RootCertStore, TlsError> {
        let mut roots = RootCertStore::empty();
        let Some(path) = &self.ca_file else {
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            return Ok(roots);
        };
        let key = self.spelling.ca_key;
        let bytes = std::fs::read(path).map_err(|source| TlsError::CaFile {
            key,
            path: path.clone(),
            source,
        })?;
        let none = |why: Option<String>| TlsError::NoCertificate {
            key,
            path: path.clone(),
            why,
        };
        for cert in CertificateDer::pem_slice_iter(&bytes) {
            let cert = cert.map_err(|e| none(Some(e.to_string())))?;
            roots.add(cert).map_err(|e| none(Some(e.to_string())))?;
        }
        if roots.is_empty() {
            return Err(none(None));
        }
        Ok(roots)
    }

    /// What the sessions do: no TLS, or TLS with the verifier the mode asks for.
    pub fn session(&self) -> Result<SessionTls, TlsError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let algorithms = provider.signature_verification_algorithms;
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?;
        let webpki = || {
            WebPkiServerVerifier::builder_with_provider(Arc::new(self.roots()?), provider.clone())
                .build()
                .map_err(|e| TlsError::Setup(rustls::Error::General(e.to_string())))
        };
        let check = match self.mode {
            TlsMode::Disable => return Ok(SessionTls::Off),
            TlsMode::Prefer | TlsMode::Require => Check::Nothing,
            TlsMode::VerifyCa => Check::Chain(webpki()?),
            TlsMode::VerifyFull => Check::ChainAndName(webpki()?),
        };
        let config = builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Verifier { check, algorithms }))
            .with_no_client_auth();
        Ok(SessionTls::On {
            config: Arc::new(config),
            required: self.mode != TlsMode::Prefer,
        })
    }

    /// The CA file's path, for drivers that read it themselves.
    pub fn ca_path(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }
}

fn parse_mode(value: &str, spelling: &Spelling) -> Result<TlsMode, TlsError> {
    spelling
        .modes
        .iter()
        .position(|m| m.eq_ignore_ascii_case(value))
        .map(|i| TlsMode::ALL[i])
        .ok_or_else(|| TlsError::Mode {
            key: spelling.mode_key,
            value: value.to_string(),
            expected: spelling.modes.join(", "),
        })
}

/// `%XX` escapes decoded (a path in a query string may be written with them).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What the server's certificate is checked for. The handshake's signatures are checked in
/// every mode, so the session is encrypted to whoever holds the certificate's key.
#[derive(Debug)]
enum Check {
    /// prefer and require: nothing (the server is unproven).
    Nothing,
    /// verify-ca: the chain to the roots.
    Chain(Arc<WebPkiServerVerifier>),
    /// verify-full: the chain and the host name.
    ChainAndName(Arc<WebPkiServerVerifier>),
}

#[derive(Debug)]
struct Verifier {
    check: Check,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let (webpki, names) = match &self.check {
            Check::Nothing => return Ok(ServerCertVerified::assertion()),
            Check::Chain(w) => (w, false),
            Check::ChainAndName(w) => (w, true),
        };
        let checked =
            webpki.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now);
        match checked {
            // The chain was verified before the name was looked at.
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) if !names => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_keys_are_taken_out_of_the_url_in_each_engines_spelling() {
        let (s, rest) = TlsSettings::split_url(
            "postgres://u@h:5/db?application_name=x&sslmode=require",
            &POSTGRES,
        )
        .unwrap();
        assert_eq!((s.mode, s.ca_file), (TlsMode::Require, None));
        assert_eq!(rest, "postgres://u@h:5/db?application_name=x");
        let (s, rest) =
            TlsSettings::split_url("mysql://u@h/db?ssl-mode=preferred", &MYSQL).unwrap();
        assert_eq!((s.mode, s.mode_name()), (TlsMode::Prefer, "PREFERRED"));
        assert_eq!(rest, "mysql://u@h/db");
        let (s, _) = TlsSettings::split_url("mysql://u@h/db", &MYSQL).unwrap();
        assert_eq!(s.mode, TlsMode::Disable);
        assert!(matches!(s.session().unwrap(), SessionTls::Off));
    }

    #[test]
    fn bad_tls_settings_name_the_key() {
        let cases = [
            (
                "postgres://h/db?sslmode=verify-everything",
                &POSTGRES,
                "sslmode=verify-everything: expected disable, prefer, require, verify-ca, verify-full",
            ),
            (
                "mysql://h/db?ssl-mode=verify-full",
                &MYSQL,
                "ssl-mode=verify-full: expected DISABLED, PREFERRED",
            ),
            (
                "mysql://h/db?ssl-mode=REQUIRED&ssl-mode=DISABLED",
                &MYSQL,
                "ssl-mode is given twice",
            ),
            (
                "postgres://h/db?sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem",
                &POSTGRES,
                "sslrootcert=/nonexistent/ca.pem: No such file",
            ),
            (
                "mysql://h/db?ssl-mode=REQUIRED&ssl-ca=%2Fnonexistent%2Fca.pem",
                &MYSQL,
                "ssl-ca=/nonexistent/ca.pem is given but ssl-mode=REQUIRED does not check",
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let not_pem = dir.path().join("notes.txt");
        std::fs::write(&not_pem, "not a certificate\n").unwrap();
        let url = format!(
            "postgres://h/db?sslmode=verify-full&sslrootcert={}",
            not_pem.display()
        );
        let said = format!(
            "sslrootcert={}: no usable PEM certificate in it",
            not_pem.display()
        );
        for (url, spelling, said) in
            cases
                .into_iter()
                .chain([(url.as_str(), &POSTGRES, said.as_str())])
        {
            let e = TlsSettings::split_url(url, spelling)
                .unwrap_err()
                .to_string();
            assert!(e.contains(said), "{url}: {e}");
        }
    }

    #[test]
    fn every_mode_but_disable_gives_a_tls_session_and_only_prefer_allows_none() {
        for (mode, required) in [
            ("prefer", Some(false)),
            ("require", Some(true)),
            ("verify-ca", Some(true)),
            ("verify-full", Some(true)),
            ("disable", None),
        ] {
            let url = format!("postgres://h/db?sslmode={mode}");
            let (s, _) = TlsSettings::split_url(&url, &POSTGRES).unwrap();
            let got = match s.session().unwrap() {
                SessionTls::Off => None,
                SessionTls::On { required, .. } => Some(required),
            };
            assert_eq!(got, required, "{mode}");
        }
    }
}
