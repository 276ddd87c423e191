//! Where the instances' files lie on the traced disks: every regular file under each instance
//! directory, its extents from the `FS_IOC_FIEMAP` ioctl (with `FIEMAP_FLAG_SYNC`, so delayed
//! allocations are flushed and placed first), turned into whole-disk byte ranges: FIEMAP gives
//! offsets on the filesystem's device, so a partition's start (`/sys/class/block/PART/start`,
//! in 512-byte sectors) is added and the extent is put on the partition's disk. A file on a
//! device that was not traced, or on a device with no linear mapping to one (device-mapper,
//! md, btrfs's anonymous device), is counted, not mapped. Files that cannot be opened, or whose
//! filesystem has no FIEMAP (tmpfs), are counted as skipped.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::model::CapturedDevice;
use drivebench_system::sysfs::BlockDevice;

/// `_IOWR('f', 11, struct fiemap)`.
const FS_IOC_FIEMAP: u64 = 0xC020_660B;
/// `fm_flags`: sync the file before mapping it.
const FIEMAP_FLAG_SYNC: u32 = 0x1;
/// `fe_flags` of the last extent of the file.
pub const FIEMAP_EXTENT_LAST: u32 = 0x1;
/// `fe_flags` of extents whose physical place is not (yet) known or not a block of its own:
/// UNKNOWN, DELALLOC, DATA_INLINE, DATA_TAIL.
const NO_PLACE: u32 = 0x2 | 0x4 | 0x200 | 0x400;
/// Extents asked for per ioctl call.
const BATCH: usize = 256;

/// `struct fiemap_extent` of the kernel's uapi.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct FiemapExtent {
    fe_logical: u64,
    fe_physical: u64,
    fe_length: u64,
    fe_reserved64: [u64; 2],
    fe_flags: u32,
    fe_reserved: [u32; 3],
}

/// `struct fiemap` followed by room for [`BATCH`] extents.
#[repr(C)]
struct FiemapRequest {
    fm_start: u64,
    fm_length: u64,
    fm_flags: u32,
    fm_mapped_extents: u32,
    fm_extent_count: u32,
    fm_reserved: u32,
    fm_extents: [FiemapExtent; BATCH],
}

/// One extent of a file as FIEMAP reports it (offsets on the filesystem's device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileExtent {
    pub logical: u64,
    pub physical: u64,
    pub length: u64,
    pub flags: u32,
}

/// Every extent of an open file, in file order.
pub fn file_extents(file: &File) -> std::io::Result<Vec<FileExtent>> {
    use std::os::fd::AsRawFd;
    let mut req = Box::new(FiemapRequest {
        fm_start: 0,
        fm_length: u64::MAX,
        fm_flags: FIEMAP_FLAG_SYNC,
        fm_mapped_extents: 0,
        fm_extent_count: BATCH as u32,
        fm_reserved: 0,
        fm_extents: [FiemapExtent::default(); BATCH],
    });
    let mut out = Vec::new();
    loop {
        // SAFETY: `req` is a live, writable `struct fiemap` with room for `fm_extent_count`
        // extents after it, as FS_IOC_FIEMAP requires; the fd is open for the whole call.
        let rc = unsafe {
            libc::ioctl(
                file.as_raw_fd(),
                FS_IOC_FIEMAP as _,
                &mut *req as *mut FiemapRequest,
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let n = (req.fm_mapped_extents as usize).min(BATCH);
        let got = &req.fm_extents[..n];
        out.extend(got.iter().map(|e| FileExtent {
            logical: e.fe_logical,
            physical: e.fe_physical,
            length: e.fe_length,
            flags: e.fe_flags,
        }));
        match got.last() {
            Some(last) if last.fe_flags & FIEMAP_EXTENT_LAST == 0 => {
                req.fm_start = last.fe_logical.saturating_add(last.fe_length);
                req.fm_length = u64::MAX - req.fm_start;
                req.fm_flags = 0;
            }
            _ => return Ok(out),
        }
    }
}

/// A mapped byte range of a file on a traced disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Index into the capture's devices.
    pub device: u16,
    /// First byte on the whole disk.
    pub start: u64,
    pub length: u64,
    /// Index into [`FileMap::files`].
    pub file: u32,
}

/// A file found under an instance directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEntry {
    /// The instance directory it was found under, as given.
    pub instance: PathBuf,
    /// Its path relative to that directory.
    pub path: PathBuf,
    /// Extents mapped onto a traced disk.
    pub extents: u32,
    /// Bytes those extents cover.
    pub bytes: u64,
}

/// The instances' files and their extents on the traced disks.
#[derive(Debug, Clone, Default)]
pub struct FileMap {
    pub files: Vec<FileEntry>,
    /// Sorted by (device, start).
    extents: Vec<Extent>,
    /// For each extent, the largest end among it and those before it on its device: lets a
    /// lookup stop early even when extents overlap (shared, reflinked blocks).
    max_end: Vec<u64>,
    /// Entries that could not be opened or mapped (permissions, no FIEMAP).
    pub skipped: u64,
    /// Files on a device that was not traced or does not map linearly onto one.
    pub off_device: u64,
}

/// Where a filesystem device's byte 0 is: (device index, byte offset on that disk).
type Placement = Option<(u16, u64)>;

impl FileMap {
    /// Map every regular file under `dirs` (recursively, symbolic links not followed) onto
    /// `devices`. What cannot be read, one of `dirs` included, is counted in `skipped`.
    pub fn build(dirs: &[PathBuf], devices: &[CapturedDevice]) -> FileMap {
        let mut map = FileMap::default();
        let mut placements: HashMap<u64, Placement> = HashMap::new();
        for dir in dirs {
            let mut stack = vec![dir.clone()];
            while let Some(d) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&d) else {
                    map.skipped += 1;
                    continue;
                };
                for entry in entries {
                    let Ok(entry) = entry else {
                        map.skipped += 1;
                        continue;
                    };
                    map.visit(dir, &entry.path(), &mut stack, &mut placements, devices);
                }
            }
        }
        map.index();
        map
    }

    /// Map one directory entry (or queue it, for a directory).
    fn visit(
        &mut self,
        root: &Path,
        path: &Path,
        stack: &mut Vec<PathBuf>,
        placements: &mut HashMap<u64, Placement>,
        devices: &[CapturedDevice],
    ) {
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            self.skipped += 1;
            return;
        };
        if meta.is_dir() {
            stack.push(path.to_owned());
            return;
        }
        if !meta.is_file() {
            return;
        }
        let placement = *placements
            .entry(meta.dev())
            .or_insert_with(|| placement(meta.dev(), devices));
        let Some((device, base)) = placement else {
            self.off_device += 1;
            return;
        };
        let Ok(extents) = File::open(path).and_then(|f| file_extents(&f)) else {
            self.skipped += 1;
            return;
        };
        self.add(root, path, device, base, &extents);
    }

    /// Record a file and its placed extents.
    fn add(&mut self, root: &Path, path: &Path, device: u16, base: u64, extents: &[FileExtent]) {
        let file = self.files.len() as u32;
        let mut entry = FileEntry {
            instance: root.to_owned(),
            path: path.strip_prefix(root).unwrap_or(path).to_owned(),
            extents: 0,
            bytes: 0,
        };
        for e in extents
            .iter()
            .filter(|e| e.flags & NO_PLACE == 0 && e.length > 0)
        {
            entry.extents += 1;
            entry.bytes += e.length;
            self.extents.push(Extent {
                device,
                start: base.saturating_add(e.physical),
                length: e.length,
                file,
            });
        }
        self.files.push(entry);
    }

    /// A map of given files and extents (e.g. made in tests, or read back from elsewhere).
    pub fn from_parts(files: Vec<FileEntry>, extents: Vec<Extent>) -> FileMap {
        let mut map = FileMap {
            files,
            extents,
            ..FileMap::default()
        };
        map.index();
        map
    }

    /// Sort the extents and compute the running maximum of their ends.
    fn index(&mut self) {
        self.extents.sort_by_key(|e| (e.device, e.start));
        let mut max_end = Vec::with_capacity(self.extents.len());
        let mut running = (u16::MAX, 0u64);
        for e in &self.extents {
            let end = e.start.saturating_add(e.length);
            running = if running.0 == e.device {
                (e.device, running.1.max(end))
            } else {
                (e.device, end)
            };
            max_end.push(running.1);
        }
        self.max_end = max_end;
    }

    /// Every extent, sorted by (device, start).
    pub fn extents(&self) -> &[Extent] {
        &self.extents
    }

    /// Each extent overlapping `[start, start + length)` on `device`, with the bytes in common.
    pub fn overlaps(&self, device: u16, start: u64, length: u64) -> Vec<(&Extent, u64)> {
        let end = start.saturating_add(length);
        let upto = self
            .extents
            .partition_point(|e| (e.device, e.start) < (device, end));
        let mut found = Vec::new();
        for i in (0..upto).rev() {
            let e = &self.extents[i];
            if e.device != device || self.max_end[i] <= start {
                break;
            }
            let common = end
                .min(e.start.saturating_add(e.length))
                .saturating_sub(start.max(e.start));
            if common > 0 {
                found.push((e, common));
            }
        }
        found
    }
}

/// Where the filesystem device `st_dev` lies on the traced devices: itself, or a partition of
/// one (shifted by the partition's start). `None` when it is neither.
fn placement(st_dev: u64, devices: &[CapturedDevice]) -> Placement {
    let (major, minor) = (rustix::fs::major(st_dev), rustix::fs::minor(st_dev));
    let index = |major: u32, minor: u32| {
        devices
            .iter()
            .position(|d| (d.major, d.minor) == (major, minor))
            .map(|i| i as u16)
    };
    if let Some(i) = index(major, minor) {
        return Some((i, 0));
    }
    let node = BlockDevice::open(Path::new("/sys"), major, minor).ok()?;
    if !node.is_partition() {
        return None;
    }
    let start = node.number("start").ok()?;
    let (disk_major, disk_minor) = node.disk().number_pair().ok()?;
    Some((index(disk_major, disk_minor)?, start.saturating_mul(512)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn map_of(extents: &[(u16, u64, u64)]) -> FileMap {
        let extents = extents
            .iter()
            .enumerate()
            .map(|(i, &(device, start, length))| Extent {
                device,
                start,
                length,
                file: i as u32,
            })
            .collect();
        FileMap::from_parts(Vec::new(), extents)
    }

    #[test]
    fn overlaps_are_found_even_behind_a_long_extent() {
        // File 0 is long and covers file 1's extent (as shared blocks can).
        let m = map_of(&[
            (0, 0, 1 << 20),
            (0, 4096, 4096),
            (0, 2 << 20, 8192),
            (1, 0, 4096),
        ]);
        let hits = |d, s, l| -> Vec<(u32, u64)> {
            let mut v: Vec<_> = m
                .overlaps(d, s, l)
                .into_iter()
                .map(|(e, n)| (e.file, n))
                .collect();
            v.sort();
            v
        };
        assert_eq!(hits(0, 6144, 4096), [(0, 4096), (1, 2048)]);
        assert_eq!(hits(0, (2 << 20) - 512, 1024), [(2, 512)]);
        assert_eq!(hits(0, 1 << 20, 4096), []);
        assert_eq!(hits(1, 0, 512), [(3, 512)]);
        assert_eq!(hits(2, 0, 512), []);
    }

    #[test]
    fn a_written_file_has_extents_that_cover_it() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join("f");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 256 * 1024]).unwrap();
        drop(f);
        let extents = match file_extents(&File::open(&path).unwrap()) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("skipped: no FIEMAP on /var/tmp: {e}");
                return;
            }
        };
        let bytes: u64 = extents.iter().map(|e| e.length).sum();
        assert!(bytes >= 256 * 1024, "{extents:?}");
        assert!(extents.last().unwrap().flags & FIEMAP_EXTENT_LAST != 0);
        assert!(extents.iter().all(|e| e.physical > 0));
    }
}
