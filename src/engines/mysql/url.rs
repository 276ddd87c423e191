//! `mysql://user@host:port/db?...` as drivebench takes it: the TLS keys (`ssl-mode=`,
//! `ssl-ca=`; see `engines::tls`) taken out and checked, mysql_async's own TLS keys refused
//! (they would secure the setup connection only, not the sessions), and the rest read by
//! mysql_async (`socket=` and its other keys).

use mysql_async::{Opts, SslOpts};

use crate::engines::UrlProblem;
use crate::engines::tls::{self, TlsError, TlsMode, TlsSettings};

/// mysql_async's URL keys for TLS, which `ssl-mode` and `ssl-ca` replace.
const DRIVER_TLS_KEYS: [&str; 4] = [
    "require_ssl",
    "verify_ca",
    "verify_identity",
    "built_in_roots",
];

/// A parsed `mysql://` URL.
#[derive(Debug, Clone)]
pub struct MysqlUrl {
    /// The URL without its TLS keys, as mysql_async read it.
    pub opts: Opts,
    pub tls: TlsSettings,
}

/// What is wrong with a MySQL URL.
#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("{key}: use ssl-mode ({}) and ssl-ca=PATH instead", tls::MYSQL.modes.join(", "))]
    DriverTlsKey { key: String },
    #[error("{0}")]
    Driver(#[from] mysql_async::UrlError),
}

impl MysqlUrl {
    pub fn parse(url: &str) -> Result<Self, UrlError> {
        let (tls, rest) = TlsSettings::split_url(url, &tls::MYSQL)?;
        let query = rest.split_once('?').map_or("", |(_, q)| q);
        for pair in query.split('&') {
            let key = pair.split_once('=').map_or(pair, |(k, _)| k);
            if DRIVER_TLS_KEYS.contains(&key) {
                return Err(UrlError::DriverTlsKey {
                    key: key.to_string(),
                });
            }
        }
        Ok(MysqlUrl {
            opts: Opts::from_url(&rest)?,
            tls,
        })
    }

    /// mysql_async's TLS options for the setup connection; none when TLS is off.
    pub fn ssl_opts(&self) -> Option<SslOpts> {
        let mode = self.tls.mode;
        if mode == TlsMode::Disable {
            return None;
        }
        let opts = SslOpts::default()
            .with_danger_accept_invalid_certs(matches!(mode, TlsMode::Prefer | TlsMode::Require))
            .with_danger_skip_domain_validation(mode == TlsMode::VerifyCa);
        Some(match self.tls.ca_path() {
            Some(ca) => opts
                .with_root_certs(vec![ca.to_path_buf().into()])
                .with_disable_built_in_roots(true),
            None => opts,
        })
    }
}

/// `EngineOps::check_url` for MySQL and MariaDB.
pub fn check_url(url: &str) -> Result<(), UrlProblem> {
    MysqlUrl::parse(url).map(|_| ()).map_err(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_path_escaped_for_a_url_reads_back_whole() {
        let path = std::path::Path::new("/tmp/run 1/a&b?c=d%/mysqld.sock");
        let escaped = crate::engines::server::private::url_escaped(path);
        let u = MysqlUrl::parse(&format!("mysql://root@127.0.0.1:3307/?socket={escaped}")).unwrap();
        assert_eq!(u.opts.socket(), Some("/tmp/run 1/a&b?c=d%/mysqld.sock"));
        assert_eq!(u.opts.tcp_port(), 3307);
    }

    #[test]
    fn tls_keys_go_to_drivebench_and_the_rest_to_the_driver() {
        let u = MysqlUrl::parse(
            "mysql://bench@db1:3307/sb?ssl-mode=REQUIRED&socket=%2Frun%2Fmysqld.sock",
        )
        .unwrap();
        assert_eq!(u.tls.mode, TlsMode::Require);
        assert_eq!(u.opts.socket(), Some("/run/mysqld.sock"));
        assert_eq!(u.opts.tcp_port(), 3307);
        let ssl = u.ssl_opts().unwrap();
        assert!(ssl.accept_invalid_certs());
        assert!(
            MysqlUrl::parse("mysql://db1/sb")
                .unwrap()
                .ssl_opts()
                .is_none()
        );
        for (url, said) in [
            (
                "mysql://db1/sb?require_ssl=true",
                "require_ssl: use ssl-mode",
            ),
            (
                "mysql://db1/sb?ssl-mode=ON",
                "ssl-mode=ON: expected DISABLED",
            ),
            (
                "mysql://db1/sb?sslmode=require",
                "Unknown connection URL parameter `sslmode'",
            ),
        ] {
            let e = MysqlUrl::parse(url).unwrap_err().to_string();
            assert!(e.contains(said), "{url}: {e}");
        }
    }
}
