//! Finding the server binary (MariaDB's `mariadbd` or MySQL's `mysqld`), telling which of the
//! two it is, and finding MariaDB's `mariadb-install-db` next to it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::engines::server::ProvisionError;
use crate::engines::server::locate::{is_executable, join_dirs, path_dirs};

/// Server binary names, in order of preference.
const SERVER_NAMES: [&str; 2] = ["mariadbd", "mysqld"];

/// Where distributions and tarballs put the server, searched after `PATH`.
const SERVER_DIRS: [&str; 3] = ["/usr/sbin", "/usr/libexec", "/usr/local/mysql/bin"];

/// MariaDB's data directory initialiser, current name first.
const INSTALL_TOOL_NAMES: [&str; 2] = ["mariadb-install-db", "mysql_install_db"];

/// Which server a binary is: they initialise data directories differently and name their
/// command-line client differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Mariadb,
    Mysql,
}

impl Flavor {
    /// The command-line client that ships with the server.
    pub fn client(self) -> &'static str {
        match self {
            Flavor::Mariadb => "mariadb",
            Flavor::Mysql => "mysql",
        }
    }
}

/// A server binary that runs, with what it says it is.
#[derive(Debug, Clone)]
pub struct Server {
    pub path: PathBuf,
    pub flavor: Flavor,
    /// The first line of `--version`, e.g. "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for ...".
    pub version: String,
}

/// The binary to use: `explicit` when given, else the first of `mariadbd`, `mysqld` found on
/// `PATH` or in the usual server directories.
pub fn server(explicit: Option<&Path>) -> Result<Server, ProvisionError> {
    let path = match explicit {
        Some(path) if is_executable(path) => path.to_path_buf(),
        Some(path) => {
            return Err(ProvisionError::ServerNotFound {
                names: "the configured server_bin".to_string(),
                searched: path.display().to_string(),
            });
        }
        None => {
            let dirs = server_dirs();
            find(&SERVER_NAMES, &dirs).ok_or_else(|| ProvisionError::ServerNotFound {
                names: SERVER_NAMES.join(", "),
                searched: join_dirs(&dirs),
            })?
        }
    };
    // Resolve links (/usr/sbin/mysqld -> mariadbd) so the installer is found next to the real file.
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    let output = Command::new(&path)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ProvisionError::Spawn {
            program: path.clone(),
            source,
        })?;
    let text = String::from_utf8_lossy(&output.stdout);
    let version = text.lines().next().unwrap_or_default().trim().to_string();
    let flavor = if version.contains("MariaDB") {
        Flavor::Mariadb
    } else {
        Flavor::Mysql
    };
    Ok(Server {
        path,
        flavor,
        version,
    })
}

/// `mariadb-install-db` for a MariaDB `server`: in the server's directory, its sibling `bin`
/// (`/usr/sbin/mariadbd` pairs with `/usr/bin/mariadb-install-db`), its `scripts` (tarballs),
/// then `PATH`.
pub fn install_tool(server: &Path) -> Result<PathBuf, ProvisionError> {
    let mut dirs = Vec::new();
    if let Some(bin) = server.parent() {
        dirs.push(bin.to_path_buf());
        if let Some(base) = bin.parent() {
            dirs.push(base.join("bin"));
            dirs.push(base.join("scripts"));
        }
    }
    dirs.extend(path_dirs());
    find(&INSTALL_TOOL_NAMES, &dirs).ok_or_else(|| ProvisionError::InstallToolNotFound {
        tool: INSTALL_TOOL_NAMES[0],
        server: server.to_path_buf(),
        searched: join_dirs(&dirs),
    })
}

/// The first `dir/name` that is an executable file, trying every directory for a name before
/// the next name.
fn find(names: &[&str], dirs: &[PathBuf]) -> Option<PathBuf> {
    names
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|path| is_executable(path))
}

fn server_dirs() -> Vec<PathBuf> {
    let mut dirs = path_dirs();
    for dir in SERVER_DIRS.map(PathBuf::from) {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn names_are_tried_in_order_across_all_directories() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let make = |dir: &Path, name: &str, mode: u32| {
            let path = dir.join(name);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            path
        };
        make(a.path(), "mysqld", 0o755);
        let mariadbd = make(b.path(), "mariadbd", 0o755);
        make(a.path(), "mariadbd", 0o644); // not executable: skipped
        let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
        assert_eq!(find(&SERVER_NAMES, &dirs), Some(mariadbd));
        assert_eq!(find(&SERVER_NAMES, &dirs[..0]), None);
    }

    #[test]
    fn a_missing_server_bin_says_what_to_do() {
        let err = server(Some(Path::new("/nonexistent/mariadbd"))).unwrap_err();
        let text = err.to_string();
        for needle in [
            "/nonexistent/mariadbd",
            "server_bin",
            "apt-get install -y mariadb-server",
        ] {
            assert!(text.contains(needle), "{needle:?} missing from: {text}");
        }
    }
}
