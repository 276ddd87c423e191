//! The connection phase's packets: the server's greeting, our SSLRequest and handshake
//! response, the password proofs of `mysql_native_password` and `caching_sha2_password`, and
//! the password as caching_sha2_password's full authentication sends it (in clear over a
//! secure connection, else encrypted with the server's RSA public key).

use sha1::Sha1;
use sha2::{Digest, Sha256};

use crate::packet::{Cursor, Malformed};

pub const LONG_PASSWORD: u32 = 0x1;
pub const LONG_FLAG: u32 = 0x4;
pub const CONNECT_WITH_DB: u32 = 0x8;
pub const LOCAL_FILES: u32 = 0x80;
pub const PROTOCOL_41: u32 = 0x200;
pub const SSL: u32 = 0x800;
pub const TRANSACTIONS: u32 = 0x2000;
pub const SECURE_CONNECTION: u32 = 0x8000;
pub const MULTI_RESULTS: u32 = 0x2_0000;
pub const PS_MULTI_RESULTS: u32 = 0x4_0000;
pub const PLUGIN_AUTH: u32 = 0x8_0000;
pub const PLUGIN_AUTH_LENENC_DATA: u32 = 0x20_0000;
pub const DEPRECATE_EOF: u32 = 0x100_0000;
/// In a greeting, set by MySQL and clear from MariaDB, which then sends its extended
/// capabilities (the same bit as LONG_PASSWORD, which MariaDB's greeting leaves out).
const CLIENT_MYSQL: u32 = 0x1;
/// MariaDB's extended capability: COM_STMT_BULK_EXECUTE, one prepared statement over many
/// rows of parameters in one command.
pub const MARIADB_STMT_BULK_OPERATIONS: u32 = 0x4;

/// What we ask for; the server's greeting decides which of these hold.
const WANTED: u32 = LONG_PASSWORD
    | LONG_FLAG
    | CONNECT_WITH_DB
    | LOCAL_FILES
    | PROTOCOL_41
    | TRANSACTIONS
    | SECURE_CONNECTION
    | MULTI_RESULTS
    | PS_MULTI_RESULTS
    | PLUGIN_AUTH
    | PLUGIN_AUTH_LENENC_DATA
    | DEPRECATE_EOF;

/// utf8mb4_general_ci, which every MySQL since 5.5.3 and every MariaDB knows.
const UTF8MB4: u8 = 45;

/// The server's greeting (protocol version 10).
#[derive(Debug)]
pub struct Greeting {
    pub version: String,
    pub capabilities: u32,
    /// MariaDB's extended capabilities; 0 from a MySQL server.
    pub mariadb_capabilities: u32,
    pub nonce: Vec<u8>,
    pub plugin: String,
}

impl Greeting {
    pub fn parse(p: &[u8]) -> Result<Greeting, Malformed> {
        let mut c = Cursor::new(p);
        if c.u8()? != 10 {
            return Err(Malformed);
        }
        let version = String::from_utf8_lossy(c.nul_terminated()).into_owned();
        c.u32()?; // connection id
        let mut nonce = c.bytes(8)?.to_vec();
        c.u8()?;
        let mut capabilities = u32::from(c.u16()?);
        let mut plugin = String::from("mysql_native_password");
        let mut mariadb_capabilities = 0;
        if let Ok(_charset) = c.u8() {
            c.u16()?; // status
            capabilities |= u32::from(c.u16()?) << 16;
            let data_len = usize::from(c.u8()?);
            c.bytes(6)?;
            let extended = c.u32()?;
            if capabilities & CLIENT_MYSQL == 0 {
                mariadb_capabilities = extended;
            }
            if capabilities & SECURE_CONNECTION != 0 {
                let n = data_len.saturating_sub(8).max(13);
                let part = c.bytes(n)?;
                nonce.extend_from_slice(part.strip_suffix(&[0]).unwrap_or(part));
            }
            if capabilities & PLUGIN_AUTH != 0 {
                plugin = String::from_utf8_lossy(c.nul_terminated()).into_owned();
            }
        }
        Ok(Greeting {
            version,
            capabilities,
            mariadb_capabilities,
            nonce,
            plugin,
        })
    }

    /// The capabilities both sides have.
    pub fn agreed(&self) -> Agreed {
        Agreed {
            flags: self.capabilities & WANTED,
            mariadb: self.mariadb_capabilities & WANTED_MARIADB,
        }
    }

    /// What we tell the server we use: the agreed capabilities, and TLS when we asked for it.
    fn ours(&self, tls: bool) -> Agreed {
        let agreed = self.agreed();
        Agreed {
            flags: agreed.flags | if tls { SSL } else { 0 },
            ..agreed
        }
    }
}

/// MariaDB's extended capabilities we ask for.
const WANTED_MARIADB: u32 = MARIADB_STMT_BULK_OPERATIONS;

/// The capabilities both sides have: the protocol's flags and MariaDB's extended ones (none
/// with a MySQL server).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agreed {
    pub flags: u32,
    pub mariadb: u32,
}

/// The fixed head of a handshake response: capabilities, maximum packet, character set, then
/// 19 reserved bytes and MariaDB's extended capabilities (read by a MariaDB server only).
fn head(caps: Agreed) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(&caps.flags.to_le_bytes());
    out.extend_from_slice(&(1u32 << 30).to_le_bytes());
    out.push(UTF8MB4);
    out.extend_from_slice(&[0; 19]);
    out.extend_from_slice(&caps.mariadb.to_le_bytes());
    out
}

/// SSLRequest: the head of a handshake response with TLS asked for; the TLS handshake
/// follows, then the whole response over TLS.
pub fn ssl_request(g: &Greeting) -> Vec<u8> {
    head(g.ours(true))
}

/// HandshakeResponse41, with the proof for the greeting's plugin (after an SSLRequest when
/// `tls`).
pub fn response(g: &Greeting, tls: bool, user: &str, proof: &[u8], db: &str) -> Vec<u8> {
    let ours = g.ours(tls);
    let caps = ours.flags;
    let mut out = head(ours);
    out.extend_from_slice(user.as_bytes());
    out.push(0);
    if caps & PLUGIN_AUTH_LENENC_DATA != 0 {
        crate::packet::put_lenenc_bytes(&mut out, proof);
    } else {
        out.push(proof.len() as u8);
        out.extend_from_slice(proof);
    }
    if caps & CONNECT_WITH_DB != 0 {
        out.extend_from_slice(db.as_bytes());
        out.push(0);
    }
    if caps & PLUGIN_AUTH != 0 {
        out.extend_from_slice(g.plugin.as_bytes());
        out.push(0);
    }
    out
}

/// The proof `plugin` wants for `password` and the server's `nonce`; None for a plugin we do
/// not speak. An empty password is an empty proof in both plugins.
pub fn proof(plugin: &str, password: &str, nonce: &[u8]) -> Option<Vec<u8>> {
    let pw = password.as_bytes();
    match plugin {
        "mysql_native_password" | "caching_sha2_password" if pw.is_empty() => Some(Vec::new()),
        // SHA1(pw) XOR SHA1(nonce + SHA1(SHA1(pw)))
        "mysql_native_password" => {
            let h1 = Sha1::digest(pw);
            let h2 = Sha1::digest(h1);
            let mut mask = Sha1::new();
            mask.update(&nonce[..nonce.len().min(20)]);
            mask.update(h2);
            Some(xor(&h1, &mask.finalize()))
        }
        // SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) + nonce)
        "caching_sha2_password" => {
            let h1 = Sha256::digest(pw);
            let h2 = Sha256::digest(h1);
            let mut mask = Sha256::new();
            mask.update(h2);
            mask.update(&nonce[..nonce.len().min(20)]);
            Some(xor(&h1, &mask.finalize()))
        }
        _ => None,
    }
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// caching_sha2_password's full authentication on a secure connection (TLS, unix socket):
/// the password in clear, NUL-terminated.
pub fn clear_password(password: &str) -> Vec<u8> {
    let mut out = password.as_bytes().to_vec();
    out.push(0);
    out
}

/// Why the server's RSA public key could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("not a PEM public key")]
    Pem,
    #[error("not an RSA public key the client can use")]
    Rejected,
    #[error("the password is too long for the key")]
    Encrypt,
}

/// caching_sha2_password's full authentication without TLS: the NUL-terminated password
/// XOR the nonce (repeated), encrypted with RSA-OAEP (SHA-1, MGF1 with SHA-1, as the server
/// decrypts it) under the server's public key (`pem`, a SubjectPublicKeyInfo).
pub fn encrypted_password(password: &str, nonce: &[u8], pem: &[u8]) -> Result<Vec<u8>, KeyError> {
    use aws_lc_rs::rsa::{OAEP_SHA1_MGF1SHA1, OaepPublicEncryptingKey, PublicEncryptingKey};
    use rustls::pki_types::SubjectPublicKeyInfoDer;
    use rustls::pki_types::pem::PemObject;
    let der = SubjectPublicKeyInfoDer::from_pem_slice(pem).map_err(|_| KeyError::Pem)?;
    let key = PublicEncryptingKey::from_der(&der)
        .ok()
        .and_then(|k| OaepPublicEncryptingKey::new(k).ok())
        .ok_or(KeyError::Rejected)?;
    let mut plain = clear_password(password);
    if !nonce.is_empty() {
        for (i, b) in plain.iter_mut().enumerate() {
            *b ^= nonce[i % nonce.len()];
        }
    }
    let mut out = vec![0; key.ciphertext_size()];
    let n = key
        .encrypt(&OAEP_SHA1_MGF1SHA1, &plain, &mut out, None)
        .map_err(|_| KeyError::Encrypt)?
        .len();
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn greetings_give_version_capabilities_nonce_and_plugin() {
        let mut p = vec![10];
        p.extend_from_slice(b"10.11.19-MariaDB\0");
        p.extend_from_slice(&7u32.to_le_bytes());
        p.extend_from_slice(b"abcdefgh\0");
        p.extend_from_slice(&0xf7feu16.to_le_bytes());
        p.push(45);
        p.extend_from_slice(&2u16.to_le_bytes());
        p.extend_from_slice(&0x81bfu16.to_le_bytes());
        p.push(21);
        p.extend_from_slice(&[0; 6]);
        // MariaDB's extended capabilities: progress, bulk, extended metadata, metadata cache.
        p.extend_from_slice(&0x1du32.to_le_bytes());
        p.extend_from_slice(b"ijklmnopqrst\0");
        p.extend_from_slice(b"mysql_native_password\0");
        let g = Greeting::parse(&p).unwrap();
        assert_eq!(g.mariadb_capabilities, 0x1d);
        assert_eq!(g.agreed().mariadb, MARIADB_STMT_BULK_OPERATIONS);
        // The extended capabilities go in the last 4 of the 23 reserved bytes.
        let head = ssl_request(&g);
        assert_eq!(head[13..28], [0; 15]);
        assert_eq!(head[28..32], MARIADB_STMT_BULK_OPERATIONS.to_le_bytes());
        assert_eq!(g.version, "10.11.19-MariaDB");
        assert_eq!(g.nonce, b"abcdefghijklmnopqrst");
        assert_eq!(g.plugin, "mysql_native_password");
        assert_eq!(g.capabilities, 0x81bf_f7fe);
        assert_eq!(g.agreed().flags & SSL, 0, "TLS only when asked for");
        assert_eq!(ssl_request(&g).len(), 32);
        assert_eq!(
            u32::from_le_bytes(ssl_request(&g)[..4].try_into().unwrap()) & SSL,
            SSL
        );
        assert!(Greeting::parse(&p[..20]).is_err());
        // MySQL sets CLIENT_MYSQL and its reserved bytes mean nothing.
        let at = 1 + 17 + 4 + 9;
        p[at] |= 1;
        let mysql = Greeting::parse(&p).unwrap();
        assert_eq!(mysql.mariadb_capabilities, 0);
        assert_eq!(mysql.agreed().mariadb, 0);
    }

    #[test]
    fn proofs_match_the_plugins_definitions() {
        let nonce = b"01234567890123456789";
        // Computed from the definitions in the comments above with Python's hashlib.
        assert_eq!(
            hex(&proof("mysql_native_password", "secret", nonce).unwrap()),
            "7abe1a8776b59e931059451f81e596a60dbbf7a8"
        );
        assert_eq!(
            hex(&proof("caching_sha2_password", "secret", nonce).unwrap()),
            "1a2da2573c2faa367e2afddb54cdfd11a95ed22eef0167151196a6fc8e3d3813"
        );
        assert_eq!(proof("mysql_native_password", "", nonce), Some(vec![]));
        assert_eq!(proof("ed25519", "secret", nonce), None);
        assert_eq!(proof("ed25519", "", nonce), None);
    }
}
