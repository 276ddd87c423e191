//! The connection phase after the socket is open: the server's greeting; TLS when the target
//! asks for it (an SSLRequest, the TLS handshake, then everything else encrypted; a unix
//! socket stays as it is, local and already secure); the handshake response; and the
//! authentication exchange: plugin switches, caching_sha2_password's fast path, and its full
//! authentication, which the server asks for (0x01 0x04) when it has not cached the account
//! since it started. Full authentication sends the password in clear on a secure connection
//! and otherwise fetches the server's RSA public key (0x02) and sends the password encrypted
//! with it, as MySQL's own client does.

use rustls::pki_types::ServerName;

use super::{lost, malformed, server_error, unsupported_plugin};
use crate::engines::EngineError;
use crate::engines::tls::SessionTls;
use drivebench_mysql_wire::auth::{self, Greeting};
use drivebench_mysql_wire::packet::{Framed, Malformed};

/// Where and as whom to connect.
#[derive(Debug, Clone)]
pub struct Target {
    pub host: String,
    pub port: u16,
    /// The server's unix socket: used instead of `host` and `port` when set.
    pub socket: Option<String>,
    pub user: String,
    pub password: String,
    pub db: String,
    pub tls: SessionTls,
}

impl Target {
    /// "host:port", or the socket.
    pub fn place(&self) -> String {
        match &self.socket {
            Some(path) => format!("socket {path}"),
            None => format!("{}:{}", self.host, self.port),
        }
    }
}

/// Log in on `io`, just opened to `t`; the connection (over TLS when it went so) and the
/// capabilities both sides agreed on.
pub async fn login(mut io: Framed, t: &Target) -> Result<(Framed, auth::Agreed), EngineError> {
    let p = io.read().await.map_err(lost)?;
    if p.first() == Some(&0xff) {
        return Err(server_error(p));
    }
    let g = Greeting::parse(p).map_err(malformed)?;
    let mut io = secure(io, &g, t).await?;
    let Some(proof) = auth::proof(&g.plugin, &t.password, &g.nonce) else {
        return Err(unsupported_plugin(&g.plugin, &g.version));
    };
    let tls = io.is_tls();
    io.payload()
        .extend(auth::response(&g, tls, &t.user, &proof, &t.db));
    io.send().await.map_err(lost)?;
    authenticate(&mut io, t, &g).await?;
    Ok((io, g.agreed()))
}

/// Go on over TLS when the target asks for it and the server offers it; refuse when the
/// target requires it and the server does not offer it.
async fn secure(mut io: Framed, g: &Greeting, t: &Target) -> Result<Framed, EngineError> {
    let SessionTls::On { config, required } = &t.tls else {
        return Ok(io);
    };
    if t.socket.is_some() {
        return Ok(io);
    }
    if g.capabilities & auth::SSL == 0 {
        if !required {
            return Ok(io);
        }
        return Err(EngineError::fatal(
            "2026",
            format!(
                "{}: the server ({}) does not offer TLS, which the url's ssl-mode requires",
                t.place(),
                g.version
            ),
        ));
    }
    io.payload().extend(auth::ssl_request(g));
    io.send().await.map_err(lost)?;
    let name = ServerName::try_from(t.host.clone()).map_err(|e| tls_failed(t, &e))?;
    io.start_tls(config.clone(), name)
        .await
        .map_err(|e| tls_failed(t, &e))
}

/// A TLS handshake that failed (CR_SSL_CONNECTION_ERROR): a certificate the mode does not
/// accept will not be accepted on a second try.
fn tls_failed(t: &Target, e: &dyn std::error::Error) -> EngineError {
    EngineError::fatal("2026", format!("TLS with {} failed: {e}", t.place()))
}

/// The exchange after the handshake response, up to the server's OK.
async fn authenticate(io: &mut Framed, t: &Target, g: &Greeting) -> Result<(), EngineError> {
    let mut plugin = g.plugin.clone();
    let mut nonce = g.nonce.clone();
    loop {
        let p = io.read().await.map_err(lost)?;
        match p.first() {
            Some(0x00) => return Ok(()),
            Some(0xff) => return Err(server_error(p)),
            // Auth switch: another plugin, with a new nonce.
            Some(0xfe) => {
                let mut c = drivebench_mysql_wire::packet::Cursor::new(&p[1..]);
                plugin = String::from_utf8_lossy(c.nul_terminated()).into_owned();
                let rest = c.rest();
                nonce = rest.strip_suffix(&[0]).unwrap_or(rest).to_vec();
                let proof = auth::proof(&plugin, &t.password, &nonce)
                    .ok_or_else(|| unsupported_plugin(&plugin, &g.version))?;
                io.payload().extend(proof);
                io.send().await.map_err(lost)?;
            }
            // caching_sha2_password: 3 = fast path accepted, OK follows; 4 = full
            // authentication.
            Some(0x01) if plugin == "caching_sha2_password" => match p.get(1) {
                Some(3) => {}
                Some(4) => full_authentication(io, t, &nonce).await?,
                _ => return Err(malformed(Malformed)),
            },
            _ => return Err(malformed(Malformed)),
        }
    }
}

/// Request the server's public key.
const REQUEST_PUBLIC_KEY: u8 = 0x02;

/// caching_sha2_password's full authentication: the password in clear on a secure
/// connection; otherwise the server's RSA public key is fetched and the password sent
/// encrypted with it. The server's answer (OK or ERR) is read by the caller.
async fn full_authentication(io: &mut Framed, t: &Target, nonce: &[u8]) -> Result<(), EngineError> {
    if io.is_secure() {
        io.payload().extend(auth::clear_password(&t.password));
        return io.send().await.map_err(lost);
    }
    io.payload().push(REQUEST_PUBLIC_KEY);
    io.send().await.map_err(lost)?;
    let p = io.read().await.map_err(lost)?;
    let key = match p.first() {
        Some(0x01) => &p[1..],
        Some(0xff) => return Err(server_error(p)),
        _ => return Err(malformed(Malformed)),
    };
    let encrypted = auth::encrypted_password(&t.password, nonce, key).map_err(|e| {
        EngineError::fatal(
            "CLIENT",
            format!("{}: the server's RSA public key: {e}", t.place()),
        )
    })?;
    io.payload().extend(encrypted);
    io.send().await.map_err(lost)
}

#[cfg(test)]
#[path = "login_tests.rs"]
mod tests;
