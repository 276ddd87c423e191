//! Finding the PostgreSQL server binaries: `postgres` and the `initdb` of the same
//! installation, and the version the server reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::engines::server::ProvisionError;
use crate::engines::server::locate::{is_executable, join_dirs, path_dirs};

/// Where Debian and Ubuntu install each major version (`/usr/lib/postgresql/15/bin`).
const VERSIONED_ROOT: &str = "/usr/lib/postgresql";

/// A server binary that runs, with the `initdb` next to it.
#[derive(Debug, Clone)]
pub struct Server {
    pub postgres: PathBuf,
    pub initdb: PathBuf,
    /// The version number `postgres --version` reports, e.g. "15.20".
    pub version: String,
}

/// The binaries to use: in `explicit` when given (the `bin` directory or the `postgres` binary
/// itself), else the first `postgres` on `PATH`, then in /usr/lib/postgresql/*/bin, highest
/// version first.
pub fn server(explicit: Option<&Path>) -> Result<Server, ProvisionError> {
    let postgres = match explicit {
        Some(path) if path.is_dir() && is_executable(&path.join("postgres")) => {
            path.join("postgres")
        }
        Some(path) if is_executable(path) && !path.is_dir() => path.to_path_buf(),
        Some(path) => {
            return Err(ProvisionError::PostgresNotFound {
                tool: "postgres",
                searched: format!("the configured server_bin {}", path.display()),
            });
        }
        None => {
            let mut dirs = path_dirs();
            dirs.extend(versioned_dirs(Path::new(VERSIONED_ROOT)));
            dirs.iter()
                .map(|dir| dir.join("postgres"))
                .find(|path| is_executable(path))
                .ok_or_else(|| ProvisionError::PostgresNotFound {
                    tool: "postgres",
                    searched: join_dirs(&dirs),
                })?
        }
    };
    // Resolve links (/usr/local/bin/postgres -> /usr/lib/postgresql/15/bin/postgres) so that
    // initdb is found next to the real file.
    let postgres = std::fs::canonicalize(&postgres).unwrap_or(postgres);
    let bin = postgres.parent().unwrap_or(Path::new("/"));
    let initdb = bin.join("initdb");
    if !is_executable(&initdb) {
        return Err(ProvisionError::PostgresNotFound {
            tool: "initdb",
            searched: bin.display().to_string(),
        });
    }
    let output = Command::new(&postgres)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ProvisionError::Spawn {
            program: postgres.clone(),
            source,
        })?;
    let version = version_number(&String::from_utf8_lossy(&output.stdout));
    Ok(Server {
        postgres,
        initdb,
        version,
    })
}

/// "15.20" from "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"; the first line as it
/// is when it does not look like that.
fn version_number(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    line.split_once("(PostgreSQL)")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or(line)
        .to_string()
}

/// `root/<version>/bin` for every version directory under `root`, highest version first.
fn versioned_dirs(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut versions: Vec<(Vec<u64>, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let key = name
                .split('.')
                .map(str::parse)
                .collect::<Result<Vec<u64>, _>>()
                .ok()?;
            Some((key, entry.path().join("bin")))
        })
        .collect();
    versions.sort_by(|a, b| b.0.cmp(&a.0));
    versions.into_iter().map(|(_, dir)| dir).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_directories_highest_first() {
        let root = tempfile::tempdir().unwrap();
        for name in ["9.6", "15", "16", "13", "main", "10"] {
            std::fs::create_dir(root.path().join(name)).unwrap();
        }
        let found: Vec<PathBuf> = versioned_dirs(root.path());
        let names: Vec<&str> = found
            .iter()
            .map(|dir| dir.parent().unwrap().file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["16", "15", "13", "10", "9.6"]);
        assert!(found.iter().all(|dir| dir.ends_with("bin")));
        assert!(versioned_dirs(&root.path().join("absent")).is_empty());
    }

    #[test]
    fn version_numbers() {
        let cases = [
            (
                "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)\n",
                "15.20",
            ),
            ("postgres (PostgreSQL) 17.2\n", "17.2"),
            ("something else\n", "something else"),
            ("", ""),
        ];
        for (text, version) in cases {
            assert_eq!(version_number(text), version, "{text:?}");
        }
    }

    #[test]
    fn a_missing_server_bin_says_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        for path in [Path::new("/nonexistent/postgres"), dir.path()] {
            let text = server(Some(path)).unwrap_err().to_string();
            for needle in [
                &path.display().to_string(),
                "server_bin",
                "apt-get install -y postgresql",
            ] {
                assert!(text.contains(needle), "{needle:?} missing from: {text}");
            }
        }
    }
}
