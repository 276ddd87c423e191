//! Where a private instance keeps its files, and the `my.cnf` it runs with (passed as
//! `--defaults-file`, so no system option file is read). Rendering is pure.

use std::path::{Path, PathBuf};

use super::MysqlSettings;
use super::locate::Flavor;
use crate::engines::server::ProvisionError;

/// Longest unix socket path the kernel accepts (`sun_path` is 108 bytes with its NUL).
const MAX_SOCKET_PATH_BYTES: usize = 107;

/// Variables drivebench sets itself: the readiness check, teardown and the connection URL
/// depend on them, so `extra` may not change them.
const MANAGED: [&str; 8] = [
    "datadir",
    "socket",
    "port",
    "bind_address",
    "pid_file",
    "log_error",
    "user",
    "skip_networking",
];

/// The `[mysqld]` lines of performance_schema in a private instance: the file-wait timings of
/// InnoDB's data files (and its redo log, where the server instruments it), nothing else.
const PERFORMANCE_SCHEMA: [&str; 8] = [
    "performance_schema = ON",
    "performance-schema-instrument = '%=OFF'",
    "performance-schema-instrument = 'wait/io/file/innodb/%=ON'",
    "loose-performance-schema-consumer-global-instrumentation = ON",
    "loose-performance-schema-consumer-thread-instrumentation = OFF",
    "loose-performance-schema-consumer-statements-digest = OFF",
    "loose-performance-schema-consumer-events-statements-current = OFF",
    "loose-performance-schema-consumer-events-transactions-current = OFF",
];

/// The files of one instance, all under its directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub dir: PathBuf,
    pub data: PathBuf,
    /// Where a new data directory is initialised before it is renamed to `data`, so that `data`
    /// only ever exists fully initialised.
    pub data_init: PathBuf,
    pub config: PathBuf,
    pub socket: PathBuf,
    pub pid_file: PathBuf,
    pub error_log: PathBuf,
    pub install_log: PathBuf,
    pub tmp: PathBuf,
}

/// The server's pid file, relative to the instance's directory.
pub const PID_FILE: &str = "mysqld.pid";

impl Layout {
    /// The layout under `dir`, which should be absolute.
    pub fn new(dir: &Path) -> Self {
        Layout {
            dir: dir.to_path_buf(),
            data: dir.join("data"),
            data_init: dir.join("data.init"),
            config: dir.join("my.cnf"),
            socket: dir.join("mysqld.sock"),
            pid_file: dir.join(PID_FILE),
            error_log: dir.join("error.log"),
            install_log: dir.join("install.log"),
            tmp: dir.join("tmp"),
        }
    }
}

/// The `my.cnf` text for an instance listening on `port`. Fails on paths an option file or a
/// unix socket cannot hold, and on `extra` variables drivebench manages itself.
pub fn render(
    name: &str,
    layout: &Layout,
    port: u16,
    flavor: Flavor,
    settings: &MysqlSettings,
) -> Result<String, ProvisionError> {
    check_paths_and_extra(layout, settings)?;
    let overridden = |key: &str| settings.extra.keys().any(|k| normalise(k) == key);
    let mut lines = vec![
        format!(
            "# drivebench instance {}: rewritten at every start",
            name.escape_debug()
        ),
        "[mysqld]".to_string(),
        format!("datadir = {}", quoted(&layout.data)?),
        format!("socket = {}", quoted(&layout.socket)?),
        format!("port = {port}"),
        match settings.also_listen {
            Some(addr) if !addr.is_loopback() => format!("bind-address = 127.0.0.1,{addr}"),
            _ => "bind-address = 127.0.0.1".to_string(),
        },
        format!("pid-file = {}", quoted(&layout.pid_file)?),
        format!("log-error = {}", quoted(&layout.error_log)?),
        "skip-name-resolve".to_string(),
    ];
    lines.extend(
        settable(layout, flavor, settings)?
            .into_iter()
            .filter(|(key, _)| !overridden(key))
            .map(|(_, line)| line),
    );
    lines.extend(
        settings
            .extra
            .iter()
            .map(|(key, value)| format!("{key} = {value}")),
    );
    lines.extend([
        String::new(),
        "[client]".to_string(),
        format!("socket = {}", quoted(&layout.socket)?),
        format!("port = {port}"),
        "user = root".to_string(),
    ]);
    Ok(lines.join("\n") + "\n")
}

/// A socket path the kernel can bind, and no `extra` variable drivebench manages itself.
fn check_paths_and_extra(layout: &Layout, settings: &MysqlSettings) -> Result<(), ProvisionError> {
    let socket_len = layout.socket.as_os_str().len();
    if socket_len > MAX_SOCKET_PATH_BYTES {
        return Err(ProvisionError::UnusablePath {
            path: layout.socket.clone(),
            reason: format!(
                "a unix socket path may be at most {MAX_SOCKET_PATH_BYTES} bytes, this one is \
                 {socket_len}; use a shorter target path"
            ),
        });
    }
    match settings
        .extra
        .keys()
        .find(|k| MANAGED.contains(&normalise(k).as_str()))
    {
        Some(key) => Err(ProvisionError::ManagedVariable { key: key.clone() }),
        None => Ok(()),
    }
}

/// The `[mysqld]` lines `extra` may replace, by variable: private-instance defaults, then the
/// settings sized for the plan, then those the scenario set.
fn settable(
    layout: &Layout,
    flavor: Flavor,
    settings: &MysqlSettings,
) -> Result<Vec<(&'static str, String)>, ProvisionError> {
    let mut settable = vec![
        ("log_bin", "skip-log-bin".to_string()),
        // Only what the engine I/O figures read (schemas/engine_io/mysql.sql's file_waits):
        // InnoDB's file instruments and the global consumer; every other instrument and
        // consumer off. `loose-` keeps a server without one of the options starting.
        ("performance_schema", PERFORMANCE_SCHEMA.join("\n")),
        // No background buffer-pool reload competing with the first phase's I/O.
        (
            "innodb_buffer_pool_load_at_startup",
            "innodb_buffer_pool_load_at_startup = OFF".to_string(),
        ),
        (
            "innodb_buffer_pool_dump_at_shutdown",
            "innodb_buffer_pool_dump_at_shutdown = OFF".to_string(),
        ),
        // Temporary files on the drive under test too.
        ("tmpdir", format!("tmpdir = {}", quoted(&layout.tmp)?)),
    ];
    if flavor == Flavor::Mysql {
        // Side-by-side instances would all want the X protocol's port 33060.
        settable.push(("mysqlx", "mysqlx = OFF".to_string()));
    }
    let sized = [
        ("innodb_buffer_pool_size", Some(settings.buffer_pool_bytes)),
        ("max_connections", Some(u64::from(settings.max_connections))),
        (
            "max_prepared_stmt_count",
            Some(settings.max_prepared_stmt_count),
        ),
        (
            "table_open_cache",
            Some(u64::from(settings.table_open_cache)),
        ),
    ]
    .map(|(key, v)| (key, v.map(|v| v.to_string())));
    let optional = [
        (
            "innodb_log_file_size",
            settings.log_file_size_bytes.map(|v| v.to_string()),
        ),
        (
            "innodb_flush_log_at_trx_commit",
            settings.flush_log_at_trx_commit.map(|v| v.to_string()),
        ),
        ("innodb_flush_method", settings.flush_method.clone()),
        (
            "innodb_io_capacity",
            settings.io_capacity.map(|v| v.to_string()),
        ),
    ];
    for (key, value) in sized.into_iter().chain(optional) {
        if let Some(value) = value {
            settable.push((key, format!("{key} = {value}")));
        }
    }
    Ok(settable)
}

/// A variable name as the server compares it: `-` and `_` are the same, `loose-` and `skip-`
/// prefixes refer to the variable itself.
fn normalise(key: &str) -> String {
    let key = key.trim().to_ascii_lowercase().replace('-', "_");
    let key = key.strip_prefix("loose_").unwrap_or(&key);
    key.strip_prefix("skip_").unwrap_or(key).to_string()
}

/// A path as an option-file value: quoted, with backslashes escaped.
fn quoted(path: &Path) -> Result<String, ProvisionError> {
    let unusable = |reason: &str| ProvisionError::UnusablePath {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let text = path.to_str().ok_or_else(|| unusable("not valid UTF-8"))?;
    if text.contains(['\n', '\r']) || (text.contains('"') && text.contains('\'')) {
        return Err(unusable(
            "cannot be written into my.cnf (line break, or both quote kinds)",
        ));
    }
    let quote = if text.contains('"') { '\'' } else { '"' };
    Ok(format!("{quote}{}{quote}", text.replace('\\', "\\\\")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> MysqlSettings {
        MysqlSettings {
            buffer_pool_bytes: 1 << 30,
            flush_method: Some("O_DIRECT".to_string()),
            ..MysqlSettings::default()
        }
    }

    #[test]
    fn config_for_a_mariadb_instance() {
        let layout = Layout::new(Path::new("/t/db 1"));
        let mut s = settings();
        s.extra
            .insert("performance-schema".to_string(), "ON".to_string());
        s.extra
            .insert("innodb_doublewrite".to_string(), "0".to_string());
        let text = render("db-1", &layout, 40123, Flavor::Mariadb, &s).unwrap();
        let expected = r#"# drivebench instance db-1: rewritten at every start
[mysqld]
datadir = "/t/db 1/data"
socket = "/t/db 1/mysqld.sock"
port = 40123
bind-address = 127.0.0.1
pid-file = "/t/db 1/mysqld.pid"
log-error = "/t/db 1/error.log"
skip-name-resolve
skip-log-bin
innodb_buffer_pool_load_at_startup = OFF
innodb_buffer_pool_dump_at_shutdown = OFF
tmpdir = "/t/db 1/tmp"
innodb_buffer_pool_size = 1073741824
max_connections = 151
max_prepared_stmt_count = 16382
table_open_cache = 2000
innodb_flush_method = O_DIRECT
innodb_doublewrite = 0
performance-schema = ON

[client]
socket = "/t/db 1/mysqld.sock"
port = 40123
user = root
"#;
        assert_eq!(text, expected);
    }

    #[test]
    fn mysql_gets_its_x_protocol_turned_off() {
        let text = render(
            "m",
            &Layout::new(Path::new("/t")),
            1,
            Flavor::Mysql,
            &settings(),
        );
        assert!(text.unwrap().contains("\nmysqlx = OFF\n"));
    }

    #[test]
    fn rejected_configs() {
        let cases: [(&str, &str, &str); 4] = [
            ("/t", "port", "extra.port cannot be set"),
            ("/t", "Bind-Address", "extra.Bind-Address cannot be set"),
            ("/t/a\"b'c", "", "both quote kinds"),
            (&"/x".repeat(60), "", "at most 107 bytes"),
        ];
        for (dir, extra, message) in cases {
            let mut s = settings();
            if !extra.is_empty() {
                s.extra.insert(extra.to_string(), "1".to_string());
            }
            let err =
                render("x", &Layout::new(Path::new(dir)), 1, Flavor::Mariadb, &s).unwrap_err();
            assert!(err.to_string().contains(message), "{dir} {extra}: {err}");
        }
    }

    #[test]
    fn quoting_paths() {
        assert_eq!(quoted(Path::new("/a/b")).unwrap(), r#""/a/b""#);
        assert_eq!(quoted(Path::new(r"/a\b")).unwrap(), r#""/a\\b""#);
        assert_eq!(quoted(Path::new(r#"/a"b"#)).unwrap(), r#"'/a"b'"#);
    }
}
