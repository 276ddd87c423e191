//! A purge of an NVMe namespace by the drive itself: Format NVM with a user data erase on the
//! namespace, keeping its LBA format and protection settings, or Sanitize of the whole
//! controller (block erase where the drive has it, else crypto erase), waited for on its
//! status log. Both go through the admin passthrough of [`crate::health::passthru`].
//!
//! - [`command`]: the bytes: Identify Namespace's and Identify Controller's fields, the
//!   command dwords of Format NVM and Sanitize, the Sanitize Status log. Pure.
//! - [`namespace`]: which namespace and controller a device node is, from sysfs, and the
//!   refusals that need nothing but sysfs (not an NVMe namespace, a partition, a controller
//!   with other namespaces a sanitize would erase too). Touches nothing.
//! - [`send`]: the commands sent and the sanitize waited for.
//!
//! No physical NVMe drive was at hand where this was written: the sending paths are tested
//! for their refusals and their commands' byte layout; Identify and Format NVM have also gone
//! to QEMU's emulated controller (bench/nvme-qemu.sh), Sanitize not (it has none).

pub mod command;
pub mod namespace;
pub mod send;
