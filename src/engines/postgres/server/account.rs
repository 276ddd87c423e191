//! The system account a private PostgreSQL runs as when drivebench runs as root (initdb and
//! the server refuse root): `postgres`, else `nobody`. The instance's directories are handed
//! over to it, and every path leading to them must let it through.

use std::os::unix::fs::{MetadataExt, lchown};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use super::config::Layout;
use crate::engines::server::ProvisionError;

/// Accounts tried in order.
const NAMES: [&str; 2] = ["postgres", "nobody"];

const PASSWD: &str = "/etc/passwd";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

impl Account {
    /// The account to run the server as: `None` when drivebench is not root (the server runs
    /// as drivebench's own user).
    pub fn for_server() -> Result<Option<Account>, ProvisionError> {
        if !rustix::process::getuid().is_root() {
            return Ok(None);
        }
        let passwd = std::fs::read_to_string(PASSWD)
            .map_err(ProvisionError::io("read", Path::new(PASSWD)))?;
        NAMES
            .iter()
            .find_map(|name| lookup(&passwd, name))
            .map(Some)
            .ok_or_else(|| ProvisionError::UnusablePath {
                path: PASSWD.into(),
                reason: "drivebench runs as root, PostgreSQL refuses to, and neither a \
                         `postgres` nor a `nobody` account exists to run it as"
                    .to_string(),
            })
    }

    /// Make `command` run as this account, without root's supplementary groups.
    pub fn apply(&self, command: &mut Command) {
        command.uid(self.uid).gid(self.gid);
    }

    /// Fail unless every directory above `path` lets this account through (checked against
    /// the mode bits; the server runs with its primary group only).
    pub fn check_reachable(&self, path: &Path) -> Result<(), ProvisionError> {
        for ancestor in path.ancestors().skip(1) {
            // Directories not there yet are created by drivebench, open to everyone.
            if !ancestor.exists() && ancestor != path {
                continue;
            }
            let meta =
                std::fs::metadata(ancestor).map_err(ProvisionError::io("inspect", ancestor))?;
            let mode = meta.mode();
            let passes = if meta.uid() == self.uid {
                mode & 0o100 != 0
            } else if meta.gid() == self.gid {
                mode & 0o010 != 0
            } else {
                mode & 0o001 != 0
            };
            if !passes {
                return Err(ProvisionError::UnusablePath {
                    path: path.to_path_buf(),
                    reason: format!(
                        "PostgreSQL runs as `{}` (uid {}), which cannot reach it: {} is mode {:o} \
                         owned by uid {}; allow it through (`chmod o+x`) or use another \
                         directory",
                        self.name,
                        self.uid,
                        ancestor.display(),
                        mode & 0o7777,
                        meta.uid()
                    ),
                });
            }
        }
        Ok(())
    }

    /// Make the instance in `layout` (and its WAL directory, if apart) this account's: its logs
    /// created (written through descriptors drivebench opens, but they belong with the rest),
    /// every directory reachable and handed over.
    pub fn take_over(&self, layout: &Layout, wal_dir: Option<&Path>) -> Result<(), ProvisionError> {
        for log in [&layout.server_log, &layout.initdb_log] {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .map_err(ProvisionError::io("create", log))?;
        }
        for path in std::iter::once(layout.dir.as_path()).chain(wal_dir) {
            self.check_reachable(path)?;
            self.hand_over(path)?;
        }
        Ok(())
    }

    /// Give `path` and everything below it to this account (`chown -R`, not following links).
    pub fn hand_over(&self, path: &Path) -> Result<(), ProvisionError> {
        let meta = std::fs::symlink_metadata(path).map_err(ProvisionError::io("inspect", path))?;
        if meta.uid() != self.uid || meta.gid() != self.gid {
            lchown(path, Some(self.uid), Some(self.gid))
                .map_err(ProvisionError::io("change the owner of", path))?;
        }
        if meta.is_dir() {
            let entries =
                std::fs::read_dir(path).map_err(ProvisionError::io("read directory", path))?;
            for entry in entries {
                let entry = entry.map_err(ProvisionError::io("read directory", path))?;
                self.hand_over(&entry.path())?;
            }
        }
        Ok(())
    }
}

/// The account `name` in `/etc/passwd` text.
fn lookup(passwd: &str, name: &str) -> Option<Account> {
    passwd.lines().find_map(|line| {
        let mut fields = line.split(':');
        if fields.next()? != name {
            return None;
        }
        let _password = fields.next()?;
        Some(Account {
            name: name.to_string(),
            uid: fields.next()?.parse().ok()?,
            gid: fields.next()?.parse().ok()?,
        })
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    const PASSWD_TEXT: &str = "root:x:0:0:root:/root:/bin/bash\n\
        nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n\
        postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n\
        broken:x:abc:1::/:/bin/sh\n";

    #[test]
    fn accounts_from_passwd() {
        let account = |name: &str, uid, gid| Account {
            name: name.to_string(),
            uid,
            gid,
        };
        assert_eq!(
            lookup(PASSWD_TEXT, "postgres"),
            Some(account("postgres", 101, 104))
        );
        assert_eq!(
            lookup(PASSWD_TEXT, "nobody"),
            Some(account("nobody", 65534, 65534))
        );
        assert_eq!(lookup(PASSWD_TEXT, "postgre"), None);
        assert_eq!(lookup(PASSWD_TEXT, "broken"), None);
    }

    #[test]
    fn a_closed_directory_on_the_way_is_named() {
        let top = tempfile::tempdir().unwrap();
        let closed = top.path().join("closed");
        let inside = closed.join("pg");
        std::fs::create_dir_all(&inside).unwrap();
        // An account that owns nothing here and is in no group that does.
        let stranger = Account {
            name: "stranger".to_string(),
            uid: 4_000_000_000,
            gid: 4_000_000_000,
        };
        let mode = |path: &Path, mode: u32| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        mode(top.path(), 0o755);
        mode(&closed, 0o750);
        let text = stranger.check_reachable(&inside).unwrap_err().to_string();
        assert!(
            text.contains(&format!("{} is mode 750", closed.display())),
            "{text}"
        );
        mode(&closed, 0o711);
        stranger.check_reachable(&inside).unwrap();
    }
}
