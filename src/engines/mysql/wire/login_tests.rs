//! A fake MySQL 8 server on a real socket speaking the connection phase: it demands
//! caching_sha2_password's full authentication (0x01 0x04 after the fast-path scramble, as a
//! server does for an account it has not cached since it started) and checks the bytes the
//! session client sends. Over TLS the password must come in clear, NUL-terminated; over plain
//! TCP the client must ask for the public key (0x02) and send the password (NUL-terminated,
//! XOR the nonce) encrypted with it by RSA-OAEP, which the fake server decrypts with its
//! private key. No MySQL 8 server can be installed on the build machines, hence the fake.

use std::path::Path;
use std::sync::Arc;

use aws_lc_rs::encoding::AsDer;
use aws_lc_rs::rsa::{KeyPair, KeySize, OAEP_SHA1_MGF1SHA1, OaepPrivateDecryptingKey};
use aws_lc_rs::signature::KeyPair as _;
use base64::Engine;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use super::Target;
use crate::engines::mysql::wire::Conn;
use crate::engines::tls::{self, SessionTls, TlsSettings};
use drivebench_mysql_wire::auth;

const PASSWORD: &str = "Full-auth pw 7";
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

/// The scramble of a HandshakeResponse41 (length-encoded auth data).
fn scramble(response: &[u8]) -> Vec<u8> {
    let user_end = 32 + response[32..].iter().position(|&b| b == 0).unwrap();
    let n = usize::from(response[user_end + 1]);
    response[user_end + 2..user_end + 2 + n].to_vec()
}

/// The fake server's RSA key pair: the public key as the server sends it (PEM), and the
/// private key to decrypt with.
struct RsaKeys {
    pem: String,
    private: OaepPrivateDecryptingKey,
}

fn rsa_keys() -> RsaKeys {
    let pair = KeyPair::generate(KeySize::Rsa2048).unwrap();
    let spki = pair.public_key().as_der().unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(spki.as_ref());
    let lines: Vec<&str> = b64
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let pem = format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        lines.join("\n")
    );
    let pkcs8 = AsDer::<aws_lc_rs::encoding::Pkcs8V1Der>::as_der(&pair).unwrap();
    let private = aws_lc_rs::rsa::PrivateDecryptingKey::from_pkcs8(pkcs8.as_ref()).unwrap();
    RsaKeys {
        pem,
        private: OaepPrivateDecryptingKey::new(private).unwrap(),
    }
}

/// After the handshake response (sequence id `seq`): check its scramble, demand full
/// authentication, and give back the password as the server recovers it (decrypted with
/// `keys` when the client had to use the public key); then accept.
async fn full_authentication<S>(
    s: &mut S,
    response: (u8, Vec<u8>),
    keys: Option<&RsaKeys>,
) -> Vec<u8>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (seq, p) = response;
    let fast = auth::proof("caching_sha2_password", PASSWORD, NONCE).unwrap();
    assert_eq!(scramble(&p), fast, "the fast-path scramble comes first");
    write_packet(s, seq + 1, &[0x01, 0x04]).await;
    let (seq, p) = read_packet(s).await;
    let (last, password) = match keys {
        None => (seq, p),
        Some(k) => {
            assert_eq!(p, [0x02], "the client asks for the public key");
            let mut with_key = vec![0x01];
            with_key.extend_from_slice(k.pem.as_bytes());
            write_packet(s, seq + 1, &with_key).await;
            let (last, sealed) = read_packet(s).await;
            let mut out = vec![0; k.private.min_output_size()];
            let plain = k
                .private
                .decrypt(&OAEP_SHA1_MGF1SHA1, &sealed, &mut out, None)
                .unwrap();
            let unmasked = plain
                .iter()
                .enumerate()
                .map(|(i, b)| b ^ NONCE[i % NONCE.len()])
                .collect();
            (last, unmasked)
        }
    };
    write_packet(s, last + 1, &[0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]).await;
    password
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

/// The session logs in on `t`, and `server` recovered the password, NUL-terminated.
async fn logs_in_and_the_server_recovers_the_password(
    t: &Target,
    server: tokio::task::JoinHandle<Vec<u8>>,
) {
    let conn = Conn::connect(t).await;
    assert!(conn.is_ok(), "{:?}", conn.err());
    let mut want = PASSWORD.as_bytes().to_vec();
    want.push(0);
    assert_eq!(server.await.unwrap(), want);
}

#[tokio::test]
async fn full_authentication_without_tls_sends_the_password_encrypted_with_the_servers_key() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let t = target(listener.local_addr().unwrap().port(), "ssl-mode=DISABLED");
    let server = tokio::spawn(async move {
        let keys = rsa_keys();
        let (mut s, _) = listener.accept().await.unwrap();
        write_packet(&mut s, 0, &greeting(false)).await;
        let response = read_packet(&mut s).await;
        assert_eq!(response.0, 1);
        full_authentication(&mut s, response, Some(&keys)).await
    });
    logs_in_and_the_server_recovers_the_password(&t, server).await;
}

#[tokio::test]
async fn full_authentication_over_tls_sends_the_password_in_clear_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = self_signed(dir.path(), "server");
    let accept = acceptor(&cert, &key);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let t = target(listener.local_addr().unwrap().port(), "ssl-mode=REQUIRED");
    assert!(matches!(t.tls, SessionTls::On { required: true, .. }));
    let server = tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        write_packet(&mut s, 0, &greeting(true)).await;
        let (seq, request) = read_packet(&mut s).await;
        assert_eq!((seq, request.len()), (1, 32), "an SSLRequest");
        let caps = u32::from_le_bytes(request[..4].try_into().unwrap());
        assert_eq!(caps & auth::SSL, auth::SSL);
        let mut s = accept.accept(s).await.unwrap();
        let response = read_packet(&mut s).await;
        assert_eq!(response.0, 2);
        full_authentication(&mut s, response, None).await
    });
    logs_in_and_the_server_recovers_the_password(&t, server).await;
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
