//! Where a private PostgreSQL instance keeps its files, and the `drivebench.conf` it runs with
//! (included by the data directory's `postgresql.conf`). Rendering is pure.

use std::path::{Path, PathBuf};

use super::PostgresSettings;
use crate::engines::server::ProvisionError;

/// The line appended to `data/postgresql.conf`; relative to the data directory.
pub const INCLUDE_LINE: &str = "include '../drivebench.conf'";

/// Longest unix socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH_BYTES: usize = 107;

/// Settings drivebench sets itself: the readiness check, teardown, the log tail and the
/// connection URL depend on them, so `extra` may not change them.
const MANAGED: [&str; 9] = [
    "data_directory",
    "config_file",
    "hba_file",
    "ident_file",
    "external_pid_file",
    "listen_addresses",
    "port",
    "unix_socket_directories",
    "logging_collector",
];

/// The files of one instance, all under its directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub dir: PathBuf,
    /// PGDATA.
    pub data: PathBuf,
    /// Where a new data directory is initialised before it is renamed to `data`, so that `data`
    /// only ever exists fully initialised.
    pub data_init: PathBuf,
    pub config: PathBuf,
    pub server_log: PathBuf,
    pub initdb_log: PathBuf,
}

/// The postmaster's pid file (pid on its first line), relative to the instance's directory.
pub const PID_FILE: &str = "data/postmaster.pid";

impl Layout {
    /// The layout under `dir`, which should be absolute.
    pub fn new(dir: &Path) -> Self {
        Layout {
            dir: dir.to_path_buf(),
            data: dir.join("data"),
            data_init: dir.join("data.init"),
            config: dir.join("drivebench.conf"),
            server_log: dir.join("server.log"),
            initdb_log: dir.join("initdb.log"),
        }
    }

    /// The unix socket the server creates for `port`.
    pub fn socket(&self, port: u16) -> PathBuf {
        self.dir.join(format!(".s.PGSQL.{port}"))
    }
}

/// The `drivebench.conf` text for an instance listening on `port`. Fails on paths a settings
/// file or a unix socket cannot hold, on `extra` keys that are not setting names, and on
/// settings drivebench manages itself.
pub fn render(
    name: &str,
    layout: &Layout,
    port: u16,
    settings: &PostgresSettings,
) -> Result<String, ProvisionError> {
    check_paths_and_extra(layout, settings)?;
    let unusable = |path: &Path, reason: String| ProvisionError::UnusablePath {
        path: path.to_path_buf(),
        reason,
    };
    let dir = layout
        .dir
        .to_str()
        .ok_or_else(|| unusable(&layout.dir, "not valid UTF-8".to_string()))?;
    // A list of directories: double quotes keep commas and spaces in the path.
    let socket_dirs = quoted(&format!("\"{}\"", dir.replace('"', "\"\"")))
        .map_err(|e| unusable(&layout.dir, e.to_string()))?;
    let mut lines = vec![
        format!(
            "# drivebench instance {}: rewritten at every start; included by data/postgresql.conf",
            name.escape_debug()
        ),
        "listen_addresses = '127.0.0.1'".to_string(),
        format!("port = {port}"),
        format!("unix_socket_directories = {socket_dirs}"),
        "logging_collector = off".to_string(),
    ];
    // Private-instance defaults, then the sized settings; `extra` replaces any of them.
    let optional = [
        ("cluster_name", Some(name.to_string())),
        (
            "shared_buffers",
            Some(memory(settings.shared_buffers_bytes)),
        ),
        (
            "max_connections",
            Some(settings.max_connections.to_string()),
        ),
        ("max_wal_size", settings.max_wal_size_bytes.map(memory)),
        ("synchronous_commit", settings.synchronous_commit.clone()),
        ("wal_sync_method", settings.wal_sync_method.clone()),
        (
            "checkpoint_timeout",
            settings.checkpoint_timeout_s.map(|s| format!("{s}s")),
        ),
        // The engine I/O figures' read and WAL sync times (schemas/engine_io/postgres.sql).
        ("track_io_timing", Some("on".to_string())),
        ("track_wal_io_timing", Some("on".to_string())),
    ];
    let overridden = |key: &str| settings.extra.keys().any(|k| k.eq_ignore_ascii_case(key));
    let settable = optional
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .filter(|(key, _)| !overridden(key));
    let extra = settings
        .extra
        .iter()
        .map(|(key, value)| (key.as_str(), value.clone()));
    for (key, value) in settable.chain(extra) {
        let value = quoted(&value).map_err(|e| unusable(&layout.config, e.to_string()))?;
        lines.push(format!("{key} = {value}"));
    }
    Ok(lines.join("\n") + "\n")
}

/// A socket path the kernel can bind, and `extra` keys that are setting names drivebench
/// does not manage itself.
fn check_paths_and_extra(
    layout: &Layout,
    settings: &PostgresSettings,
) -> Result<(), ProvisionError> {
    let longest_socket = layout.socket(u16::MAX);
    let socket_len = longest_socket.as_os_str().len();
    if socket_len > MAX_SOCKET_PATH_BYTES {
        return Err(ProvisionError::UnusablePath {
            path: longest_socket,
            reason: format!(
                "a unix socket path may be at most {MAX_SOCKET_PATH_BYTES} bytes, this one can \
                 be {socket_len}; use a shorter target path"
            ),
        });
    }
    if let Some(key) = settings.extra.keys().find(|key| !is_setting_name(key)) {
        return Err(ProvisionError::UnusablePath {
            path: layout.config.clone(),
            reason: format!(
                "extra key {key:?} is not a setting name (letters, digits, `_` and `.`)"
            ),
        });
    }
    if let Some(key) = settings
        .extra
        .keys()
        .find(|k| MANAGED.contains(&k.to_ascii_lowercase().as_str()))
    {
        return Err(ProvisionError::ManagedVariable { key: key.clone() });
    }
    Ok(())
}

/// A byte count in the largest unit that holds it exactly (the server's units are binary).
fn memory(bytes: u64) -> String {
    let units = [(1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "kB")];
    units
        .iter()
        .find(|(size, _)| bytes > 0 && bytes.is_multiple_of(*size))
        .map_or(format!("{bytes}B"), |(size, unit)| {
            format!("{}{unit}", bytes / size)
        })
}

/// A name the settings file parser reads as one setting (custom ones have a `.` prefix).
fn is_setting_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// A value with a line break or NUL, which a settings file line cannot hold.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} cannot be written into a settings file (line break or NUL)")]
struct Unwritable(String);

/// A value as a settings file string: single quotes, with quotes doubled and backslashes
/// escaped; line breaks cannot be written.
fn quoted(value: &str) -> Result<String, Unwritable> {
    if value.contains(['\n', '\r', '\0']) {
        return Err(Unwritable(value.to_string()));
    }
    Ok(format!(
        "'{}'",
        value.replace('\\', "\\\\").replace('\'', "''")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> PostgresSettings {
        PostgresSettings {
            shared_buffers_bytes: 1 << 30,
            max_wal_size_bytes: Some(4 << 30),
            synchronous_commit: Some("off".to_string()),
            wal_sync_method: Some("fdatasync".to_string()),
            checkpoint_timeout_s: Some(900),
            ..PostgresSettings::default()
        }
    }

    #[test]
    fn config_for_an_instance() {
        let layout = Layout::new(Path::new("/t/db 1,a"));
        let mut s = settings();
        s.extra
            .insert("Max_Connections".to_string(), "300".to_string());
        s.extra
            .insert("auto_explain.log_format".to_string(), "it's".to_string());
        s.extra
            .insert("full_page_writes".to_string(), "off".to_string());
        let text = render("db-1", &layout, 40123, &s).unwrap();
        let expected = r#"# drivebench instance db-1: rewritten at every start; included by data/postgresql.conf
listen_addresses = '127.0.0.1'
port = 40123
unix_socket_directories = '"/t/db 1,a"'
logging_collector = off
cluster_name = 'db-1'
shared_buffers = '1GB'
max_wal_size = '4GB'
synchronous_commit = 'off'
wal_sync_method = 'fdatasync'
checkpoint_timeout = '900s'
track_io_timing = 'on'
track_wal_io_timing = 'on'
Max_Connections = '300'
auto_explain.log_format = 'it''s'
full_page_writes = 'off'
"#;
        assert_eq!(text, expected);
    }

    #[test]
    fn defaults_leave_the_optional_settings_out() {
        let text = render(
            "x",
            &Layout::new(Path::new("/t")),
            1,
            &PostgresSettings::default(),
        );
        let text = text.unwrap();
        assert!(text.ends_with(
            "cluster_name = 'x'\nshared_buffers = '128MB'\nmax_connections = '100'\n\
                 track_io_timing = 'on'\ntrack_wal_io_timing = 'on'\n"
        ));
    }

    #[test]
    fn rejected_configs() {
        let long = "/x".repeat(47); // 94 bytes, 109 with "/.s.PGSQL.65535"
        let cases: [(&str, &str, &str, &str); 5] = [
            ("/t", "port", "1", "extra.port cannot be set"),
            (
                "/t",
                "Listen_Addresses",
                "*",
                "extra.Listen_Addresses cannot be set",
            ),
            ("/t", "a = 1\nport", "1", "is not a setting name"),
            ("/t", "work_mem", "1\n", "line break"),
            (&long, "", "", "at most 107 bytes"),
        ];
        for (dir, key, value, message) in cases {
            let mut s = settings();
            if !key.is_empty() {
                s.extra.insert(key.to_string(), value.to_string());
            }
            let err = render("x", &Layout::new(Path::new(dir)), 1, &s).unwrap_err();
            assert!(err.to_string().contains(message), "{dir} {key:?}: {err}");
        }
    }

    #[test]
    fn memory_units() {
        let cases = [
            (128 << 20, "128MB"),
            (1 << 30, "1GB"),
            (3 << 29, "1536MB"),
            (8 << 10, "8kB"),
            (1000, "1000B"),
            (0, "0B"),
        ];
        for (bytes, text) in cases {
            assert_eq!(memory(bytes), text, "{bytes}");
        }
    }

    #[test]
    fn quoting_values() {
        assert_eq!(quoted("on").unwrap(), "'on'");
        assert_eq!(quoted(r"a\b").unwrap(), r"'a\\b'");
        assert_eq!(quoted("it's").unwrap(), "'it''s'");
        assert!(quoted("a\nb").is_err());
    }
}
