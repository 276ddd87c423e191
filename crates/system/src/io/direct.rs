//! What O_DIRECT needs: the alignment of offsets, lengths and buffer addresses (statx
//! STATX_DIOALIGN where the kernel reports it, else the logical block size), and buffers
//! allocated on that alignment.

use std::alloc::Layout;
use std::fs::File;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Where an alignment came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlignmentSource {
    /// statx with STATX_DIOALIGN (Linux 6.1+).
    Statx,
    /// The logical block size of the device (BLKSSZGET or sysfs).
    LogicalBlockSize,
    /// Nothing answered; 4096 bytes assumed.
    Assumed,
}

/// Alignment rules for direct I/O on one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectAlignment {
    /// Buffer addresses must be multiples of this.
    pub memory_bytes: u64,
    /// File offsets and lengths must be multiples of this.
    pub offset_bytes: u64,
    /// How it was found.
    pub source: AlignmentSource,
}

/// Bytes assumed when nothing reports an alignment.
const ASSUMED_BYTES: u64 = 4096;

/// The direct-I/O alignment of an open target.
pub fn discover(file: &File, is_block_device: bool) -> DirectAlignment {
    use rustix::fs::{AtFlags, StatxFlags};
    if let Ok(stx) = rustix::fs::statx(file, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN)
        && stx.stx_mask & StatxFlags::DIOALIGN.bits() != 0
        && stx.stx_dio_offset_align != 0
        && stx.stx_dio_mem_align != 0
    {
        return DirectAlignment {
            memory_bytes: u64::from(stx.stx_dio_mem_align),
            offset_bytes: u64::from(stx.stx_dio_offset_align),
            source: AlignmentSource::Statx,
        };
    }
    let logical = if is_block_device {
        rustix::fs::ioctl_blksszget(file).ok().map(u64::from)
    } else {
        rustix::fs::fstat(file).ok().and_then(|st| {
            let (major, minor) = (rustix::fs::major(st.st_dev), rustix::fs::minor(st.st_dev));
            let path = format!("/sys/dev/block/{major}:{minor}/queue/logical_block_size");
            read_u64(Path::new(&path))
        })
    };
    match logical.filter(|b| b.is_power_of_two()) {
        Some(bytes) => DirectAlignment {
            memory_bytes: bytes,
            offset_bytes: bytes,
            source: AlignmentSource::LogicalBlockSize,
        },
        None => DirectAlignment {
            memory_bytes: ASSUMED_BYTES,
            offset_bytes: ASSUMED_BYTES,
            source: AlignmentSource::Assumed,
        },
    }
}

fn read_u64(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Zeroed memory on a chosen alignment, freed on drop; `slots` equal slices of `slot_bytes`.
pub struct AlignedBuf {
    ptr: std::ptr::NonNull<u8>,
    layout: Layout,
    slot_bytes: usize,
}

// SAFETY: the buffer is plain memory owned by this value; nothing else aliases it.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// `slots` slices of `slot_bytes` each, the whole aligned to `align` (a power of two, at
    /// least a page); `None` when the size overflows or memory is short.
    pub fn new(slots: usize, slot_bytes: usize, align: usize) -> Option<AlignedBuf> {
        let align = align.max(4096);
        let size = slots.checked_mul(slot_bytes)?.max(1);
        let layout = Layout::from_size_align(size, align).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = std::ptr::NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
        Some(AlignedBuf {
            ptr,
            layout,
            slot_bytes,
        })
    }

    /// Start of slot `i`.
    pub fn slot_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!((i + 1) * self.slot_bytes <= self.layout.size());
        // SAFETY: within the allocation for every slot index the caller was given.
        unsafe { self.ptr.as_ptr().add(i * self.slot_bytes) }
    }

    /// Slot `i` as a slice (for pread/pwrite).
    pub fn slot_mut(&mut self, i: usize) -> &mut [u8] {
        let (start, len) = (i * self.slot_bytes, self.slot_bytes);
        &mut self.as_mut_slice()[start..start + len]
    }

    /// The whole buffer.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: the allocation is `layout.size()` initialised (zeroed) bytes owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_and_slotted() {
        for align in [512usize, 4096, 65536] {
            let mut buf = AlignedBuf::new(3, 8192, align).expect("allocate");
            assert_eq!(buf.slot_ptr(0) as usize % align.max(4096), 0);
            assert_eq!(buf.slot_ptr(2) as usize - buf.slot_ptr(0) as usize, 16384);
            assert_eq!(buf.slot_mut(1).len(), 8192);
            assert!(buf.as_mut_slice().iter().all(|b| *b == 0));
        }
        assert!(AlignedBuf::new(usize::MAX, 2, 4096).is_none());
    }

    #[test]
    fn a_regular_file_reports_a_power_of_two_alignment() {
        let file = tempfile::tempfile_in("/var/tmp").expect("temp file");
        let a = discover(&file, false);
        assert!(
            a.offset_bytes.is_power_of_two() && a.memory_bytes.is_power_of_two(),
            "{a:?}"
        );
    }
}
