//! Generated passwords of private servers, and the files that keep them (mode 0600).

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// `bytes` random bytes from the kernel, as lowercase hex (letters and digits only, so the
/// text needs no quoting in SQL or a URL).
pub fn random_hex(bytes: usize) -> std::io::Result<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Write a password to a file only its owner can read (a file already there is replaced, so
/// its old mode does not survive).
pub fn save_password(file: &Path, password: &str) -> std::io::Result<()> {
    match std::fs::remove_file(file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(file)?
        .write_all(password.as_bytes())
}
