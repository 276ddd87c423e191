//! `mssql://user@host:port/db?encrypt=..&trust_server_certificate=..` into a driver
//! configuration. The password never appears in the URL: it comes from `password_env` or
//! `password_file` and goes straight into the driver's SQL authentication.
//!
//! `encrypt`: `required` (default, also `true`: TLS for the whole session), `off` (also
//! `false`: TLS for the login packet only) or `none` (also `not_supported`: no TLS at all —
//! test servers without a certificate). `trust_server_certificate`: `true` accepts the
//! server's certificate without validation (self-signed certificates of lab servers).

use std::time::Duration;

use tiberius::{AuthMethod, Config, EncryptionLevel};

/// The login defaults: SQL Server's `sa` account, port 1433, database `sbtest`.
pub const DEFAULT_PORT: u16 = 1433;
pub const DEFAULT_USER: &str = "sa";
pub const DEFAULT_DATABASE: &str = "sbtest";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encrypt {
    Required,
    LoginOnly,
    None,
}

/// A parsed `mssql://` URL (no password in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MssqlUrl {
    pub user: String,
    pub host: String,
    pub port: u16,
    pub database: String,
    pub encrypt: Encrypt,
    pub trust_server_certificate: bool,
}

/// What is wrong with a SQL Server URL or database name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("expected mssql://user@host:port/db, got {url:?}")]
    Scheme { url: String },
    #[error("the url must not contain a password; use password_env or password_file")]
    Password,
    #[error("unclosed [ in {hostport:?}")]
    UnclosedBracket { hostport: String },
    #[error("no host in {url:?}")]
    NoHost { url: String },
    #[error(
        "named instances (host\\instance) need the SQL Browser; give the instance's TCP port instead"
    )]
    NamedInstance,
    #[error("port {port:?} is not a TCP port")]
    Port { port: String },
    #[error("database name {name:?}: use letters, digits and _ (not starting with a digit)")]
    DatabaseName { name: String },
    #[error("encrypt={value}: expected required, off (login only) or none")]
    Encrypt { value: String },
    #[error("{key}={value}: expected true or false")]
    Flag { key: String, value: String },
    #[error("unknown url parameter {key:?}; known: encrypt, trust_server_certificate")]
    UnknownParameter { key: String },
}

fn flag(key: &str, v: &str) -> Result<bool, UrlError> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err(UrlError::Flag {
            key: key.to_string(),
            value: v.to_string(),
        }),
    }
}

/// The host (an IPv6 address in brackets, or a name) and the port (default 1433) of `hostport`.
fn host_and_port(hostport: &str, url: &str) -> Result<(String, u16), UrlError> {
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (h, after) = v6
            .split_once(']')
            .ok_or_else(|| UrlError::UnclosedBracket {
                hostport: hostport.to_string(),
            })?;
        (h.to_string(), after.strip_prefix(':'))
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (hostport.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(UrlError::NoHost {
            url: url.to_string(),
        });
    }
    if host.contains('\\') {
        return Err(UrlError::NamedInstance);
    }
    let port = match port {
        None | Some("") => DEFAULT_PORT,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| UrlError::Port {
                port: p.to_string(),
            })?,
    };
    Ok((host, port))
}

impl MssqlUrl {
    pub fn parse(url: &str) -> Result<Self, UrlError> {
        let rest = url
            .strip_prefix("mssql://")
            .or_else(|| url.strip_prefix("sqlserver://"))
            .ok_or_else(|| UrlError::Scheme {
                url: url.to_string(),
            })?;
        let (main, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = main.split_once('/').unwrap_or((main, ""));
        let (user, hostport) = match authority.rsplit_once('@') {
            Some((u, _)) if u.contains(':') => return Err(UrlError::Password),
            Some((u, h)) => (u.to_string(), h),
            None => (DEFAULT_USER.to_string(), authority),
        };
        let (host, port) = host_and_port(hostport, url)?;
        let database = path.trim_end_matches('/');
        let database = if database.is_empty() {
            DEFAULT_DATABASE.to_string()
        } else {
            check_database_name(database)?;
            database.to_string()
        };
        let mut out = MssqlUrl {
            user: if user.is_empty() {
                DEFAULT_USER.into()
            } else {
                user
            },
            host,
            port,
            database,
            encrypt: Encrypt::Required,
            trust_server_certificate: false,
        };
        out.apply_query(query)?;
        Ok(out)
    }

    /// The query string's parameters: `encrypt` and `trust_server_certificate`.
    fn apply_query(&mut self, query: &str) -> Result<(), UrlError> {
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            match k {
                "encrypt" => {
                    self.encrypt = match v.to_ascii_lowercase().as_str() {
                        "required" | "true" | "yes" | "strict" => Encrypt::Required,
                        "off" | "false" | "no" => Encrypt::LoginOnly,
                        "none" | "not_supported" => Encrypt::None,
                        _ => {
                            return Err(UrlError::Encrypt {
                                value: v.to_string(),
                            });
                        }
                    }
                }
                "trust_server_certificate" => self.trust_server_certificate = flag(k, v)?,
                _ => {
                    return Err(UrlError::UnknownParameter { key: k.to_string() });
                }
            }
        }
        Ok(())
    }

    /// The driver configuration for `database` (the URL's, or `master` to create it).
    pub fn config(
        &self,
        database: &str,
        password: Option<&str>,
        command_timeout: Option<Duration>,
    ) -> Config {
        let mut c = Config::new();
        c.host(&self.host);
        c.port(self.port);
        c.database(database);
        c.application_name("drivebench");
        c.authentication(AuthMethod::sql_server(&self.user, password.unwrap_or("")));
        c.encryption(match self.encrypt {
            Encrypt::Required => EncryptionLevel::Required,
            Encrypt::LoginOnly => EncryptionLevel::Off,
            Encrypt::None => EncryptionLevel::NotSupported,
        });
        if self.trust_server_certificate {
            c.trust_cert();
        }
        c.command_timeout(command_timeout);
        c
    }

    /// The URL again, with the settings that matter for a reader (never a password).
    pub fn display(&self) -> String {
        let enc = match self.encrypt {
            Encrypt::Required => "required",
            Encrypt::LoginOnly => "off",
            Encrypt::None => "none",
        };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        format!(
            "mssql://{}@{host}:{}/{}?encrypt={enc}&trust_server_certificate={}",
            self.user, self.port, self.database, self.trust_server_certificate
        )
    }
}

/// Database names are put into T-SQL as `[name]`: letters, digits and `_` only.
pub fn check_database_name(name: &str) -> Result<(), UrlError> {
    if name.len() <= 128
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
    {
        Ok(())
    } else {
        Err(UrlError::DatabaseName {
            name: name.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_defaults_tls_settings_and_clear_errors() {
        let u = MssqlUrl::parse("mssql://bench@db1:14330/tpcc?encrypt=none").unwrap();
        assert_eq!(
            u,
            MssqlUrl {
                user: "bench".into(),
                host: "db1".into(),
                port: 14330,
                database: "tpcc".into(),
                encrypt: Encrypt::None,
                trust_server_certificate: false,
            }
        );
        let d = MssqlUrl::parse("mssql://db1").unwrap();
        assert_eq!(
            (d.user.as_str(), d.port, d.database.as_str(), d.encrypt),
            ("sa", 1433, "sbtest", Encrypt::Required)
        );
        let t =
            MssqlUrl::parse("mssql://sa@[::1]:1433/x?encrypt=off&trust_server_certificate=true")
                .unwrap();
        assert_eq!(
            (t.host.as_str(), t.encrypt, t.trust_server_certificate),
            ("::1", Encrypt::LoginOnly, true)
        );
        assert_eq!(
            t.display(),
            "mssql://sa@[::1]:1433/x?encrypt=off&trust_server_certificate=true"
        );
        for (url, want) in [
            ("mysql://db1/x", "expected mssql://"),
            ("mssql://sa:secret@db1/x", "must not contain a password"),
            ("mssql://sa@db1:99999/x", "not a TCP port"),
            ("mssql://sa@/x", "no host"),
            ("mssql://sa@db1/x?encrypt=maybe", "encrypt=maybe"),
            (
                "mssql://sa@db1/x?trust_server_certificate=si",
                "expected true or false",
            ),
            ("mssql://sa@db1/x?tls=1", "unknown url parameter"),
            ("mssql://sa@db1/bad-name", "database name"),
            ("mssql://sa@db1\\SQLEXPRESS/x", "named instances"),
        ] {
            let e = MssqlUrl::parse(url).unwrap_err().to_string();
            assert!(e.contains(want), "{url}: {e}");
        }
    }
}
