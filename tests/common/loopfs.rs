//! A drive made for one test: an ext4 filesystem on a loop device over a file in /var/tmp
//! (the system disk), mounted, removed on every path (`LoopFs`); a bare loop device over such
//! a file, for a run that makes its own filesystem (`LoopDev`); and a cgroup-v1 blkio
//! throttle that slows that loop device for the processes put in it (`Throttle`), so a test
//! can make a slow drive on this host. Both need root; `new` says why not where they cannot be.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{servers_under, text};

/// An ext4 filesystem on a loop device, mounted for one test.
pub struct LoopFs {
    _dir: tempfile::TempDir,
    pub mnt: PathBuf,
    pub dev: String,
}

impl LoopFs {
    /// `mib` MiB with no reserved blocks, or why not here (not root, no loop devices).
    pub fn new(mib: u64) -> Result<Self, String> {
        if !rustix::process::geteuid().is_root() || !Path::new("/dev/loop-control").exists() {
            return Err("needs root and loop devices".into());
        }
        let dir = tempfile::tempdir_in("/var/tmp").map_err(|e| e.to_string())?;
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(mib << 20))
            .map_err(|e| e.to_string())?;
        let dev = sh(&["losetup", "--find", "--show", image.to_str().unwrap()])?;
        let mnt = dir.path().join("mnt");
        let fs = LoopFs {
            _dir: dir,
            mnt: mnt.clone(),
            dev,
        };
        sh(&["mkfs.ext4", "-q", "-F", "-m", "0", &fs.dev])?;
        std::fs::create_dir(&mnt).map_err(|e| e.to_string())?;
        sh(&["mount", &fs.dev, mnt.to_str().unwrap()])?;
        std::fs::set_permissions(&mnt, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        Ok(fs)
    }

    /// The loop device's `MAJ:MIN`.
    pub fn maj_min(&self) -> Result<String, String> {
        let name = Path::new(&self.dev)
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{}: not a device path", self.dev))?;
        std::fs::read_to_string(format!("/sys/block/{name}/dev"))
            .map(|s| s.trim().to_string())
            .map_err(|e| format!("{name}: {e}"))
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        for pid in servers_under(&self.mnt) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        std::thread::sleep(Duration::from_millis(300));
        let _ = sh(&["umount", "-l", self.mnt.to_str().unwrap()]);
        let _ = sh(&["losetup", "-d", &self.dev]);
    }
}

/// A loop device over a file of its own in /var/tmp, with nothing on it; whatever is mounted
/// from it is detached and the device released on drop.
pub struct LoopDev {
    _dir: tempfile::TempDir,
    pub image: PathBuf,
    pub dev: String,
}

impl LoopDev {
    /// `mib` MiB, or why not here (not root, no loop devices, no losetup or mkfs.ext4).
    pub fn new(mib: u64) -> Result<Self, String> {
        if !rustix::process::geteuid().is_root() || !Path::new("/dev/loop-control").exists() {
            return Err("needs root and loop devices".into());
        }
        for tool in ["losetup", "mkfs.ext4"] {
            sh(&["sh", "-c", &format!("command -v {tool}")]).map_err(|_| {
                format!("{tool} is missing (install: apt-get install util-linux e2fsprogs)")
            })?;
        }
        let dir = tempfile::tempdir_in("/var/tmp").map_err(|e| e.to_string())?;
        let image = dir.path().join("device.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(mib << 20))
            .map_err(|e| e.to_string())?;
        let dev = sh(&["losetup", "--find", "--show", image.to_str().unwrap()])?;
        Ok(LoopDev {
            _dir: dir,
            image,
            dev,
        })
    }

    /// Bytes of the backing file that hold data (allocated blocks): a discard frees them.
    pub fn allocated_bytes(&self) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(&self.image).map_or(0, |m| m.blocks() * 512)
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
        for line in mounts.lines() {
            let mut fields = line.split(' ');
            if fields.next() == Some(self.dev.as_str())
                && let Some(point) = fields.next()
            {
                let _ = sh(&["umount", "-l", point]);
            }
        }
        let _ = sh(&["losetup", "-d", &self.dev]);
    }
}

/// A cgroup-v1 blkio group that limits one device to so many reads and writes per second for
/// the processes put in it (and their children); removed when dropped.
pub struct Throttle {
    dir: PathBuf,
    /// A cgroup-v1 memory group of the same name, when the page cache is limited too.
    memory: Option<PathBuf>,
}

const BLKIO: &str = "/sys/fs/cgroup/blkio";

impl Throttle {
    /// A group limiting `maj_min` to `read_iops` and `write_iops`, or why not here.
    pub fn new(maj_min: &str, read_iops: u32, write_iops: u32) -> Result<Self, String> {
        if !Path::new(BLKIO)
            .join("blkio.throttle.read_iops_device")
            .exists()
        {
            return Err(format!("no cgroup-v1 blkio throttling at {BLKIO}"));
        }
        let dir = Path::new(BLKIO).join(format!(
            "drivebench-test-{}-{}",
            std::process::id(),
            maj_min.replace(':', "-")
        ));
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let group = Throttle { dir, memory: None };
        for (file, iops) in [
            ("blkio.throttle.read_iops_device", read_iops),
            ("blkio.throttle.write_iops_device", write_iops),
        ] {
            std::fs::write(group.dir.join(file), format!("{maj_min} {iops}"))
                .map_err(|e| format!("{file}: {e}"))?;
        }
        Ok(group)
    }

    /// The write limit on `maj_min` changed to `iops` from now, for the processes already in
    /// the group (a drive that turns slow part-way through a run).
    pub fn set_write_iops(&self, maj_min: &str, iops: u32) -> Result<(), String> {
        let file = "blkio.throttle.write_iops_device";
        std::fs::write(self.dir.join(file), format!("{maj_min} {iops}"))
            .map_err(|e| format!("{file}: {e}"))
    }

    /// The group's processes limited to `bytes` of memory, the page cache they fill included
    /// (a cgroup-v1 memory group beside the blkio one), so reads go to the drive; or why not.
    pub fn limit_memory(mut self, bytes: u64) -> Result<Self, String> {
        let root = Path::new("/sys/fs/cgroup/memory");
        if !root.join("memory.limit_in_bytes").exists() {
            return Err(format!(
                "no cgroup-v1 memory controller at {}",
                root.display()
            ));
        }
        let dir = root.join(self.dir.file_name().unwrap());
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        self.memory = Some(dir.clone());
        std::fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string())
            .map_err(|e| format!("memory.limit_in_bytes: {e}"))?;
        Ok(self)
    }

    /// `cmd` made to start inside the group(s): a shell puts itself in, then execs the program.
    pub fn wrap(&self, cmd: &Command) -> Command {
        let mut inner = vec![cmd.get_program().to_string_lossy().into_owned()];
        inner.extend(cmd.get_args().map(|a| a.to_string_lossy().into_owned()));
        let groups: Vec<String> = std::iter::once(&self.dir)
            .chain(&self.memory)
            .map(|d| d.display().to_string())
            .collect();
        let mut out = Command::new("sh");
        out.arg("-c")
            .arg(
                "IFS=:; for g in $0; do echo $$ > \"$g/cgroup.procs\" || exit 1; done; exec \"$@\"",
            )
            .arg(groups.join(":"))
            .args(inner);
        if let Some(dir) = cmd.get_current_dir() {
            out.current_dir(dir);
        }
        for (k, v) in cmd.get_envs() {
            match v {
                Some(v) => out.env(k, v),
                None => out.env_remove(k),
            };
        }
        out
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        // A group can be removed once its processes are gone; a server still stopping holds
        // it for a moment.
        'groups: for dir in std::iter::once(&self.dir).chain(&self.memory) {
            for _ in 0..50 {
                if std::fs::remove_dir(dir).is_ok() {
                    continue 'groups;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            eprintln!("could not remove {}", dir.display());
        }
    }
}

pub fn sh(args: &[&str]) -> Result<String, String> {
    let out = Command::new(args[0])
        .args(&args[1..])
        .output()
        .map_err(|e| format!("{args:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{args:?}: {}", text(&out.stderr).trim()));
    }
    Ok(text(&out.stdout).trim().to_string())
}

/// `made`, or None after the skip line naming why it could not be made here; under CI=true a
/// failure that says CI must be able to make `what`.
pub fn or_skip<T>(made: Result<T, String>, what: &str) -> Option<T> {
    match made {
        Ok(it) => Some(it),
        Err(why) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI must be able to {what}: {why}"
            );
            eprintln!("skipped: {why}");
            None
        }
    }
}
