//! Picking a 127.0.0.1 port for a new server, and retrying a start on another port when some
//! other process takes the picked one first; shared by every engine.

use std::net::{Ipv4Addr, TcpListener};

use super::ProvisionError;

/// A port on 127.0.0.1 that nothing listens on right now, never one of `reserved`.
pub fn free_port(reserved: &[u16]) -> Result<u16, ProvisionError> {
    loop {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .map_err(|source| ProvisionError::NoFreePort { source })?;
        let port = listener
            .local_addr()
            .map_err(|source| ProvisionError::NoFreePort { source })?
            .port();
        if !reserved.contains(&port) {
            return Ok(port);
        }
    }
}

/// Run `start` on ports from `pick`, up to `attempts` times, while it fails to start with a
/// log that contains `bind_failure` (another process took the port first).
pub fn start_on_free_port<T>(
    attempts: u32,
    bind_failure: &str,
    pick: impl Fn() -> Result<u16, ProvisionError>,
    mut start: impl FnMut(u16) -> Result<T, ProvisionError>,
) -> Result<T, ProvisionError> {
    let mut attempt = 1;
    loop {
        let port = pick()?;
        match start(port) {
            Err(ProvisionError::StartFailed { log_tail, .. })
                if attempt < attempts && log_tail.contains(bind_failure) =>
            {
                tracing::debug!(port, "another process took the port first; picking another");
                attempt += 1;
            }
            other => return other,
        }
    }
}
