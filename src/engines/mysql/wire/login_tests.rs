//! A fake server on a real socket speaking the start of the MySQL connection phase, for the
//! session client's TLS: a certificate from another CA fails verification, saying so; a server
//! that offers no TLS is refused when the URL requires it.

use std::path::Path;
use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use super::Target;
use crate::engines::mysql::wire::{Conn, auth};
use crate::engines::tls::{self, TlsSettings};

const PASSWORD: &str = "pw";
const NONCE: &[u8; 20] = b"abcdefghij0123456789";

async fn write_packet<S: AsyncWrite + Unpin>(s: &mut S, seq: u8, payload: &[u8]) {
    let n = payload.len();
    s.write_all(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, seq])
        .await
        .unwrap();
    s.write_all(payload).await.unwrap();
    s.flush().await.unwrap();
}

/// The next packet: its sequence id and payload.
async fn read_packet<S: AsyncRead + Unpin>(s: &mut S) -> (u8, Vec<u8>) {
    let mut h = [0; 4];
    s.read_exact(&mut h).await.unwrap();
    let mut p = vec![0; usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16];
    s.read_exact(&mut p).await.unwrap();
    (h[3], p)
}

/// A MySQL 8 greeting offering caching_sha2_password, and TLS when `tls`.
fn greeting(tls: bool) -> Vec<u8> {
    let caps = auth::LONG_PASSWORD
        | auth::CONNECT_WITH_DB
        | auth::PROTOCOL_41
        | auth::TRANSACTIONS
        | auth::SECURE_CONNECTION
        | auth::PLUGIN_AUTH
        | auth::PLUGIN_AUTH_LENENC_DATA
        | auth::DEPRECATE_EOF
        | if tls { auth::SSL } else { 0 };
    let mut p = vec![10];
    p.extend_from_slice(b"8.0.40-fake\0");
    p.extend_from_slice(&7u32.to_le_bytes());
    p.extend_from_slice(&NONCE[..8]);
    p.push(0);
    p.extend_from_slice(&(caps as u16).to_le_bytes());
    p.push(255);
    p.extend_from_slice(&2u16.to_le_bytes());
    p.extend_from_slice(&((caps >> 16) as u16).to_le_bytes());
    p.push(21);
    p.extend_from_slice(&[0; 10]);
    p.extend_from_slice(&NONCE[8..]);
    p.push(0);
    p.extend_from_slice(b"caching_sha2_password\0");
    p
}

/// A self-signed certificate and its key (PEM) made by the openssl tool in `dir`.
fn self_signed(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let (cert, key) = (
        dir.join(format!("{name}.pem")),
        dir.join(format!("{name}.key")),
    );
    let ok = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", &format!("/CN=fake-mysql-{name}")])
        // Not a CA (a certificate a client checks must not be one), for 127.0.0.1.
        .args([
            "-extensions",
            "v3_req",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    (cert, key)
}

fn acceptor(cert: &Path, key: &Path) -> tokio_rustls::TlsAcceptor {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain = vec![CertificateDer::from_pem_file(cert).unwrap()];
    let key = PrivateKeyDer::from_pem_file(key).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

/// A session client's target on `port` with the TLS settings of `query` (MySQL spelling).
fn target(port: u16, query: &str) -> Target {
    let url = format!("mysql://bench@127.0.0.1:{port}/sb?{query}");
    let (settings, _) = TlsSettings::split_url(&url, &tls::MYSQL).unwrap();
    Target {
        host: "127.0.0.1".into(),
        port,
        socket: None,
        user: "bench".into(),
        password: PASSWORD.into(),
        db: "sb".into(),
        tls: settings.session().unwrap(),
    }
}

#[tokio::test]
async fn a_server_certificate_from_another_ca_fails_verification_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = self_signed(dir.path(), "server");
    let (other, _) = self_signed(dir.path(), "other");
    let accept = acceptor(&cert, &key);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let t = target(
        port,
        &format!("ssl-mode=VERIFY_CA&ssl-ca={}", other.display()),
    );
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        write_packet(&mut s, 0, &greeting(true)).await;
        read_packet(&mut s).await;
        let _ = accept.accept(s).await;
    });
    let e = Conn::connect(&t).await.err().expect("verification fails");
    assert_eq!(e.code, "2026");
    assert!(
        e.message.contains(&format!(
            "TLS with 127.0.0.1:{port} failed: invalid peer certificate"
        )) && e.message.contains("UnknownIssuer"),
        "{}",
        e.message
    );
}

#[tokio::test]
async fn a_server_without_tls_is_refused_when_the_url_requires_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let t = target(listener.local_addr().unwrap().port(), "ssl-mode=REQUIRED");
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        write_packet(&mut s, 0, &greeting(false)).await;
        let _ = read_packet(&mut s).await;
    });
    let e = Conn::connect(&t).await.err().expect("refused");
    assert!(e.message.contains("does not offer TLS"), "{}", e.message);
}
