//! What the drive itself counted: its health log, read before and after a phase where the
//! drive has one.
//!
//! # What is read, and from where
//!
//! - **NVMe**: the SMART / Health Information log page (log id 0x02, 512 bytes) through the
//!   admin passthrough ioctl on the namespace's controller (`/dev/nvmeX`) ([`nvme`],
//!   [`passthru`]); and, where the drive has it, the OCP Datacenter NVMe SSD extended SMART
//!   log (log id 0xC0), whose physical media bytes written make write amplification
//!   measurable ([`ocp`]). A page whose OCP GUID does not match is not taken for one.
//! - **ATA**: the SMART attribute table ([`ata`]) read by SMART READ DATA as an ATA
//!   PASS-THROUGH (16) command through the SCSI generic ioctl on `/dev/sdX` ([`sgio`]).
//! - **Anything else** (virtio, loop, zram, SCSI, device-mapper): no health log, with the
//!   reason ([`interface`]).
//!
//! [`read::read`] goes from a block device to a [`read::HealthRead`]: a log, or why there is
//! none. [`delta::HealthDelta`] is what changed between two readings (host and media bytes,
//! write amplification, temperature, thermal throttling); [`interval`] marks each report
//! interval from the readings at its boundaries (throttled, clear, or not read).

pub mod ata;
pub mod delta;
pub mod interface;
pub mod interval;
pub mod nvme;
pub mod ocp;
pub mod passthru;
pub mod read;
pub mod sgio;

mod page;

pub use delta::HealthDelta;
pub use page::PageError;
pub use read::{HealthLog, HealthRead};
