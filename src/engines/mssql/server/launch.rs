//! What the private-server lifecycle needs to know of sqlservr: its environment (SQL Server's documented `MSSQL_*` variables, the same a
//! SQL Server container takes), a random `sa` password, its ready line and port, its stop signal,
//! and the `sp_configure` settings applied once it accepts connections.

use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rustix::process::Signal;

use super::{Layout, MssqlSettings, READY_LINE};
use crate::engines::server::ProvisionError;
use crate::engines::server::private::{Ladder, ServerKind};
use crate::engines::server::process::KillTarget;
use crate::engines::server::secret::{random_hex, save_password};

/// The process memory limit (MSSQL_MEMORY_LIMIT_MB) above `max server memory`: the server's
/// other allocations (threads, CLR, connections) live outside the buffer pool.
const MEMORY_HEADROOM_MB: u64 = 2048;

/// The environment sqlservr starts with: every directory on the target, the port, the edition,
/// and the `sa` password (set on the first start, when the system databases are created).
pub fn environment(
    layout: &Layout,
    settings: &MssqlSettings,
    port: u16,
    password: &str,
) -> Vec<(&'static str, String)> {
    let p = |path: &Path| path.display().to_string();
    let mut env = vec![
        ("ACCEPT_EULA", "Y".to_string()),
        ("MSSQL_PID", settings.edition.clone()),
        ("MSSQL_SA_PASSWORD", password.to_string()),
        ("MSSQL_TCP_PORT", port.to_string()),
        ("MSSQL_IP_ADDRESS", "127.0.0.1".to_string()),
        ("MSSQL_DATA_DIR", p(&layout.data)),
        ("MSSQL_LOG_DIR", p(&layout.log)),
        ("MSSQL_BACKUP_DIR", p(&layout.backup)),
        ("MSSQL_DUMP_DIR", p(&layout.dump)),
        ("MSSQL_MASTER_DATA_FILE", p(&layout.data.join("master.mdf"))),
        ("MSSQL_MASTER_LOG_FILE", p(&layout.log.join("mastlog.ldf"))),
        ("MSSQL_ERROR_LOG_FILE", p(&layout.log.join("errorlog"))),
        ("MSSQL_AGENT_ENABLED", "false".to_string()),
    ];
    if let Some(mb) = settings.max_server_memory_mb {
        env.push((
            "MSSQL_MEMORY_LIMIT_MB",
            (mb + MEMORY_HEADROOM_MB).to_string(),
        ));
    }
    env
}

/// `sp_configure` batch applied after start.
pub fn configure_sql(settings: &MssqlSettings) -> Option<String> {
    settings.max_server_memory_mb.map(|mb| {
        format!(
            "EXEC sp_configure 'show advanced options', 1; RECONFIGURE; \
             EXEC sp_configure 'max server memory (MB)', {mb}; RECONFIGURE;"
        )
    })
}

/// A random password meeting SQL Server's complexity rule (upper, lower, digit, symbol).
pub fn new_password() -> Result<String, ProvisionError> {
    let hex = random_hex(16).map_err(ProvisionError::io("read", Path::new("/dev/urandom")))?;
    Ok(format!("Db{hex}!9"))
}

/// The file in the instance directory holding its `sa` password (mode 0600).
pub const PASSWORD_FILE: &str = "sa.password";

/// The `sa` password of the instance in `layout`: the one its system databases were created
/// with, or a new one (saved) when they do not exist yet.
pub fn instance_password(layout: &Layout) -> Result<String, ProvisionError> {
    let file = layout.dir.join(PASSWORD_FILE);
    if layout.data.join("master.mdf").exists() {
        return match std::fs::read_to_string(&file) {
            Ok(p) if !p.trim().is_empty() => Ok(p.trim().to_string()),
            _ => Err(ProvisionError::UnusablePath {
                path: layout.dir.clone(),
                reason: format!(
                    "it holds a SQL Server instance but not its password ({PASSWORD_FILE}); \
                     remove the directory to start afresh"
                ),
            }),
        };
    }
    let password = new_password()?;
    save_password(&file, &password).map_err(ProvisionError::io("write", &file))?;
    Ok(password)
}

/// A SQL Server instance: its files, its sqlservr, its settings and its `sa` password.
#[derive(Debug, Clone)]
pub struct MssqlKind {
    pub(super) layout: Layout,
    pub(super) server: PathBuf,
    pub(super) settings: MssqlSettings,
    pub(super) password: String,
}

impl ServerKind for MssqlKind {
    /// SIGTERM (SQL Server's clean shutdown), 120 s, then SIGKILL to the process group; 30 s
    /// for a server that missed its start-up deadline.
    const LADDER: Ladder = Ladder {
        signal: Signal::TERM,
        signal_name: "SIGTERM",
        grace: Duration::from_secs(120),
        then: None,
        kill: KillTarget::Group,
        abandon_grace: Duration::from_secs(30),
    };
    const RESERVED_PORTS: &'static [u16] = &[];
    const BIND_FAILURE: &'static str = "already in use";

    fn program(&self) -> &Path {
        &self.server
    }

    fn dir(&self) -> &Path {
        &self.layout.dir
    }

    fn output_log(&self) -> &Path {
        &self.layout.server_log
    }

    fn command(&self, port: u16) -> Result<Command, ProvisionError> {
        let mut command = Command::new(&self.server);
        command.current_dir(&self.layout.dir).envs(environment(
            &self.layout,
            &self.settings,
            port,
            &self.password,
        ));
        Ok(command)
    }

    /// Its ready line is in the log (since this start), then a TCP connect succeeds.
    fn ready(&self, port: u16, log_from: u64) -> bool {
        let logged = std::fs::read_to_string(&self.layout.server_log).is_ok_and(|t| {
            usize::try_from(log_from)
                .ok()
                .and_then(|from| t.get(from..))
                .is_some_and(|t| t.contains(READY_LINE))
        });
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        logged && TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_ok()
    }

    fn url(&self, port: u16) -> String {
        format!("mssql://sa@127.0.0.1:{port}/sbtest?encrypt=off&trust_server_certificate=true")
    }

    /// The password stays in `dir/sa.password`.
    fn how_to_connect(&self, port: u16, pid: u32) -> String {
        format!(
            "{} on 127.0.0.1:{port} (pid {pid}), user sa, password in {}",
            self.server.display(),
            self.layout.dir.join(PASSWORD_FILE).display()
        )
    }

    fn escalated(grace: Duration, _ended_by: Option<usize>) -> String {
        format!("it did not exit within {grace:?} of SIGTERM and was killed")
    }
}

/// Apply the `sp_configure` settings over a client connection. Runs its own runtime on a
/// thread of its own, since the caller is a blocking task.
pub fn configure(
    port: u16,
    password: &str,
    settings: &MssqlSettings,
) -> Result<(), ConfigureError> {
    let Some(sql) = configure_sql(settings) else {
        return Ok(());
    };
    let password = password.to_string();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ConfigureError::Runtime)?;
        rt.block_on(async {
            let url = format!(
                "mssql://sa@127.0.0.1:{port}/master?encrypt=off&trust_server_certificate=true"
            );
            let url = crate::engines::mssql::MssqlUrl::parse(&url)?;
            crate::engines::mssql::run_batch(&url, &password, &sql).await?;
            Ok(())
        })
    })
    .join()
    .map_err(|_| ConfigureError::Panicked)?
}

/// Why the `sp_configure` settings could not be applied to a new server.
#[derive(Debug, thiserror::Error)]
pub enum ConfigureError {
    #[error("{0}")]
    Runtime(#[source] std::io::Error),
    #[error(transparent)]
    Url(#[from] crate::engines::mssql::url::UrlError),
    #[error(transparent)]
    Batch(#[from] crate::engines::EngineError),
    #[error("the configuration thread panicked")]
    Panicked,
}
