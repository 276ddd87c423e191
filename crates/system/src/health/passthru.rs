//! NVMe admin commands through the Linux admin passthrough ioctl on a controller's character
//! device: Get Log Page for the health log here, and any other admin command with its data
//! buffer ([`admin`]: Identify, Format NVM, Sanitize for a device's start state). The one
//! `unsafe` call of the passthrough is here.
//!
//! The ioctl is `NVME_IOCTL_ADMIN_CMD`, `_IOWR('N', 0x41, struct nvme_admin_cmd)`: the
//! command block below (72 bytes, the kernel UAPI's layout) goes in, the kernel writes the
//! completion's result dword back into it and the data into the buffer it points to. The
//! call returns 0 on success, the NVMe status code (> 0) when the controller refused the
//! command, and -1 with errno when the kernel did (a device that is not an NVMe controller
//! answers ENOTTY).

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::page::{PAGE_BYTES, Page};

/// Get Log Page's admin opcode.
const GET_LOG_PAGE: u8 = 0x02;

/// Every namespace: the log pages read here are the controller's.
const ALL_NAMESPACES: u32 = 0xFFFF_FFFF;

/// How long the controller may take, ms.
const TIMEOUT_MS: u32 = 5_000;

/// The kernel's `struct nvme_admin_cmd` (its `nvme_passthru_cmd`).
#[repr(C)]
#[derive(Debug, Default)]
struct AdminCmd {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw10: u32,
    cdw11: u32,
    cdw12: u32,
    cdw13: u32,
    cdw14: u32,
    cdw15: u32,
    timeout_ms: u32,
    result: u32,
}

const CMD_BYTES: u32 = 72;
const _: () = assert!(std::mem::size_of::<AdminCmd>() == CMD_BYTES as usize);

/// `_IOWR('N', 0x41, struct nvme_admin_cmd)`: direction read|write (3) in bits 30-31, the
/// argument's size in bits 16-29, the type 'N' in bits 8-15, the number in bits 0-7.
const NVME_IOCTL_ADMIN_CMD: u32 = (3 << 30) | (CMD_BYTES << 16) | ((b'N' as u32) << 8) | 0x41;

/// Why an admin command (a log page read among them) did not complete.
#[derive(Debug, thiserror::Error)]
pub enum PassthruError {
    #[error("cannot open {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} refused the NVMe admin command {opcode:#04x} (cdw10 {cdw10:#x}): {source}")]
    Refused {
        path: PathBuf,
        opcode: u8,
        cdw10: u32,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: the controller failed admin command {opcode:#04x} (cdw10 {cdw10:#x}) with status {status:#x}"
    )]
    Status {
        path: PathBuf,
        opcode: u8,
        cdw10: u32,
        status: i32,
    },
}

/// One admin command as the passthrough sends it: its opcode, the namespace it names
/// (`0xFFFF_FFFF` for every one, 0 for none), command dwords 10 and 11, and how long the
/// controller may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdminCommand {
    pub opcode: u8,
    pub nsid: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub timeout_ms: u32,
}

/// Get Log Page's command dword 10: the number of dwords to read less one (bits 16-31), the
/// log id (bits 0-7).
fn cdw10(log_id: u8) -> u32 {
    let dwords = (PAGE_BYTES / 4) as u32;
    ((dwords - 1) << 16) | u32::from(log_id)
}

/// Read the 512-byte log page `log_id` of the controller at `path` (`/dev/nvme0`).
pub fn log_page(path: &Path, log_id: u8) -> Result<Box<Page>, PassthruError> {
    let mut buf: Box<Page> = Box::new([0u8; PAGE_BYTES]);
    let command = AdminCommand {
        opcode: GET_LOG_PAGE,
        nsid: ALL_NAMESPACES,
        cdw10: cdw10(log_id),
        cdw11: 0,
        timeout_ms: TIMEOUT_MS,
    };
    admin(path, &command, &mut buf[..])?;
    Ok(buf)
}

/// Send `command` to the controller at `path` (`/dev/nvme0`) with `data` as its data buffer
/// (empty for a command without data): the controller reads it or writes into it, as the
/// opcode says. Gives the completion's result dword.
///
/// Get Log Page, Identify and Format NVM have gone through here to QEMU's emulated NVMe
/// controller (bench/nvme-qemu.sh), none yet to a physical drive; Sanitize is tested for its
/// bytes and refusals only (that controller has none).
pub fn admin(path: &Path, command: &AdminCommand, data: &mut [u8]) -> Result<u32, PassthruError> {
    let file = std::fs::File::open(path).map_err(|source| PassthruError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let data_len = u32::try_from(data.len()).expect("an admin command's buffer is a few KiB");
    let mut cmd = AdminCmd {
        opcode: command.opcode,
        nsid: command.nsid,
        addr: if data.is_empty() {
            0
        } else {
            data.as_mut_ptr() as u64
        },
        data_len,
        cdw10: command.cdw10,
        cdw11: command.cdw11,
        timeout_ms: command.timeout_ms,
        ..AdminCmd::default()
    };
    // SAFETY: `file` is open for the whole call; `cmd` is a live, exclusively borrowed
    // `nvme_admin_cmd` of the size the request number encodes; its `addr` points to `data`
    // (or is null with a zero length), which is `data_len` bytes long, exclusively borrowed
    // and not touched until the call returns, so the kernel writes only inside memory this
    // function was lent. On any other device the kernel rejects the request number without
    // touching either.
    let ret = unsafe {
        libc::ioctl(
            file.as_raw_fd(),
            NVME_IOCTL_ADMIN_CMD as libc::Ioctl,
            &mut cmd as *mut AdminCmd,
        )
    };
    match ret {
        0 => Ok(cmd.result),
        r if r < 0 => Err(PassthruError::Refused {
            path: path.to_path_buf(),
            opcode: command.opcode,
            cdw10: command.cdw10,
            source: std::io::Error::last_os_error(),
        }),
        status => Err(PassthruError::Status {
            path: path.to_path_buf(),
            opcode: command.opcode,
            cdw10: command.cdw10,
            status,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_number_and_command_dword() {
        assert_eq!(NVME_IOCTL_ADMIN_CMD, 0xC048_4E41);
        assert_eq!(cdw10(0x02), 0x007F_0002);
        assert_eq!(cdw10(0xC0), 0x007F_00C0);
    }

    #[test]
    fn a_regular_file_refuses_the_command() {
        let f = tempfile::NamedTempFile::new().unwrap();
        match log_page(f.path(), 0x02) {
            Err(PassthruError::Refused {
                opcode: GET_LOG_PAGE,
                cdw10: 0x007F_0002,
                source,
                ..
            }) => {
                assert_eq!(source.raw_os_error(), Some(libc::ENOTTY), "{source}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_character_device_that_is_not_nvme_refuses_it() {
        let e = log_page(Path::new("/dev/null"), 0x02).unwrap_err();
        assert!(matches!(e, PassthruError::Refused { .. }), "{e}");
    }

    #[test]
    fn a_command_without_data_is_refused_by_a_device_that_is_not_nvme() {
        let command = AdminCommand {
            opcode: 0x80,
            nsid: 1,
            cdw10: 0x200,
            cdw11: 0,
            timeout_ms: TIMEOUT_MS,
        };
        match admin(Path::new("/dev/null"), &command, &mut []) {
            Err(PassthruError::Refused {
                opcode: 0x80,
                cdw10: 0x200,
                source,
                ..
            }) => assert_eq!(source.raw_os_error(), Some(libc::ENOTTY), "{source}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_missing_device_is_an_open_error() {
        let e = log_page(Path::new("/dev/nvme-drivebench-none"), 0x02).unwrap_err();
        assert!(matches!(e, PassthruError::Open { .. }), "{e}");
    }
}
