//! SMART READ DATA through the SCSI generic ioctl (`SG_IO`) as an ATA PASS-THROUGH (16)
//! command, the way the kernel's SCSI-ATA translation (libata) lets a host reach an ATA
//! disk's SMART table behind `/dev/sdX`. The one `unsafe` call of the ATA path is here.
//!
//! The command block (SAT: ATA PASS-THROUGH (16), operation code 0x85): protocol PIO Data-In
//! (4, in bits 1-4 of byte 1); byte 2 says the data comes from the device, is counted in
//! blocks and its length is in the sector count field; the ATA registers: features 0xD0
//! (SMART READ DATA), sector count 1, LBA mid 0x4F and high 0xC2 (the SMART signature),
//! command 0xB0 (SMART). The page's own checksum (see `ata`) is the last check of what came
//! back.

use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::page::{PAGE_BYTES, Page};

/// The kernel's `struct sg_io_hdr` (the SCSI generic v3 interface), 88 bytes on 64-bit.
#[repr(C)]
#[derive(Debug)]
struct SgIoHdr {
    interface_id: i32,
    dxfer_direction: i32,
    cmd_len: u8,
    mx_sb_len: u8,
    iovec_count: u16,
    dxfer_len: u32,
    dxferp: *mut u8,
    cmdp: *const u8,
    sbp: *mut u8,
    timeout: u32,
    flags: u32,
    pack_id: i32,
    usr_ptr: *mut u8,
    status: u8,
    masked_status: u8,
    msg_status: u8,
    sb_len_wr: u8,
    host_status: u16,
    driver_status: u16,
    resid: i32,
    duration: u32,
    info: u32,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SgIoHdr>() == 88);

/// `SG_IO`, the SCSI generic ioctl's request number.
const SG_IO: u32 = 0x2285;
/// `SG_DXFER_FROM_DEV`: data flows from the device.
const SG_DXFER_FROM_DEV: i32 = -3;
/// How long the disk may take, ms.
const TIMEOUT_MS: u32 = 5_000;
/// SCSI status CHECK CONDITION: sense data follows.
const CHECK_CONDITION: u8 = 0x02;
/// Sense key RECOVERED ERROR: some translations report a pass-through's success so.
const RECOVERED_ERROR: u8 = 0x01;

/// ATA PASS-THROUGH (16) carrying SMART READ DATA.
const SMART_READ_DATA: [u8; 16] = [
    0x85, 0x08, 0x0e, 0x00, 0xd0, 0x00, 0x01, 0x00, 0x00, 0x00, 0x4f, 0x00, 0xc2, 0x00, 0xb0, 0x00,
];

/// Why the SMART table could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SgIoError {
    #[error("cannot open {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} refused the SCSI generic ioctl: {source}")]
    Refused {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: ATA pass-through failed (SCSI status {status:#04x}, sense key {sense_key:#x}, host {host:#x}, driver {driver:#x})"
    )]
    Failed {
        path: PathBuf,
        status: u8,
        sense_key: u8,
        host: u16,
        driver: u16,
    },
}

/// Read the 512-byte SMART data of the ATA disk at `path` (`/dev/sda`).
pub fn smart_data(path: &Path) -> Result<Box<Page>, SgIoError> {
    let file = std::fs::File::open(path).map_err(|source| SgIoError::Open {
        path: path.to_path_buf(),
        source,
    })?;
    let mut buf: Box<Page> = Box::new([0u8; PAGE_BYTES]);
    let mut sense = [0u8; 32];
    let mut hdr = SgIoHdr {
        interface_id: i32::from(b'S'),
        dxfer_direction: SG_DXFER_FROM_DEV,
        cmd_len: SMART_READ_DATA.len() as u8,
        mx_sb_len: sense.len() as u8,
        iovec_count: 0,
        dxfer_len: PAGE_BYTES as u32,
        dxferp: buf.as_mut_ptr(),
        cmdp: SMART_READ_DATA.as_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: TIMEOUT_MS,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: `file` is open for the whole call; `hdr` is a live, exclusively borrowed
    // `sg_io_hdr` whose pointers name `buf` (`dxfer_len` bytes), `sense` (`mx_sb_len` bytes)
    // and the constant command block (`cmd_len` bytes), all owned here and untouched until
    // the call returns, so the kernel reads and writes only memory this function owns. A
    // device without SCSI generic support rejects the request number without touching them.
    let ret = unsafe {
        libc::ioctl(
            file.as_raw_fd(),
            SG_IO as libc::Ioctl,
            &mut hdr as *mut SgIoHdr,
        )
    };
    if ret < 0 {
        return Err(SgIoError::Refused {
            path: path.to_path_buf(),
            source: std::io::Error::last_os_error(),
        });
    }
    let sense_key = sense_key(&sense[..usize::from(hdr.sb_len_wr).min(sense.len())]);
    let ok = hdr.host_status == 0
        && (hdr.status == 0 || (hdr.status == CHECK_CONDITION && sense_key == RECOVERED_ERROR));
    if !ok {
        return Err(SgIoError::Failed {
            path: path.to_path_buf(),
            status: hdr.status,
            sense_key,
            host: hdr.host_status,
            driver: hdr.driver_status,
        });
    }
    Ok(buf)
}

/// The sense key of fixed (0x70/0x71: byte 2) or descriptor (0x72/0x73: byte 1) sense data.
fn sense_key(sense: &[u8]) -> u8 {
    match sense.first().map(|b| b & 0x7f) {
        Some(0x70 | 0x71) => sense.get(2).map_or(0, |b| b & 0x0f),
        Some(0x72 | 0x73) => sense.get(1).map_or(0, |b| b & 0x0f),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_block_is_smart_read_data() {
        let c = SMART_READ_DATA;
        assert_eq!(c[0], 0x85, "ATA PASS-THROUGH (16)");
        assert_eq!((c[1] >> 1) & 0x0f, 4, "PIO Data-In");
        assert_eq!(c[2] & 0x08, 0x08, "from the device");
        assert_eq!(c[2] & 0x03, 2, "length in the sector count");
        assert_eq!(
            (c[4], c[6], c[10], c[12], c[14]),
            (0xd0, 1, 0x4f, 0xc2, 0xb0)
        );
    }

    #[test]
    fn sense_keys_of_both_formats() {
        assert_eq!(sense_key(&[0x70, 0, 0x05]), 5);
        assert_eq!(sense_key(&[0x72, 0x01, 0]), 1);
        assert_eq!(sense_key(&[]), 0);
    }

    #[test]
    fn a_device_without_scsi_generic_refuses_the_ioctl() {
        let e = smart_data(Path::new("/dev/null")).unwrap_err();
        assert!(matches!(e, SgIoError::Refused { .. }), "{e}");
        let f = tempfile::NamedTempFile::new().unwrap();
        let e = smart_data(f.path()).unwrap_err();
        assert!(matches!(e, SgIoError::Refused { .. }), "{e}");
    }
}
