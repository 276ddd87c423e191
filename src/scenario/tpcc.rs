//! The `[workload]` keys of `benchmark = "tpcc"`: warehouses, pacing, terminals per warehouse,
//! the mix, the isolation level, and the number of virtual users they imply.

use super::bounds::{MAX_CLIENTS, int_in};
use super::file::WorkloadSection;
use super::plan::{TpccMix, TpccOptions, TpccPacing};
use crate::engines::isolation::Isolation;
use drivebench_core::config::error::{Invalid, KeyPath};

/// Most warehouses one instance may have (about 10 TB of data).
pub const MAX_WAREHOUSES: i64 = 100_000;

/// Virtual users per instance and the TPC-C options.
pub fn resolve(w: &WorkloadSection, key: &KeyPath) -> Result<(u32, TpccOptions), Invalid> {
    let warehouses = int_in(w.warehouses, 1, 1, MAX_WAREHOUSES, key.key("warehouses"))?;
    let pacing = match w.pacing.as_deref() {
        None | Some("spec") => TpccPacing::Spec,
        Some("none") => TpccPacing::None,
        Some(other) => {
            return Err(Invalid::new(
                key.key("pacing"),
                format!("unknown pacing {other:?}; known: spec, none"),
            ));
        }
    };
    let (mix, isolation) = mix_and_isolation(w, key)?;
    let terminals_per_warehouse = int_in(
        w.terminals_per_warehouse,
        10,
        1,
        MAX_CLIENTS,
        key.key("terminals_per_warehouse"),
    )?;
    let clients = match pacing {
        TpccPacing::Spec => {
            if w.rate.is_some() {
                return Err(Invalid::new(
                    key.key("rate"),
                    "spec pacing paces each terminal itself; use pacing = \"none\" with a rate",
                ));
            }
            let n = i64::from(warehouses) * i64::from(terminals_per_warehouse);
            if n > MAX_CLIENTS {
                return Err(Invalid::new(
                    key.key("warehouses"),
                    format!(
                        "{warehouses} warehouses x {terminals_per_warehouse} terminals = {n} virtual users, more than {MAX_CLIENTS} per instance; use more instances or fewer terminals_per_warehouse"
                    ),
                ));
            }
            if let Some(c) = w.clients
                && c != n
            {
                return Err(Invalid::new(
                    key.key("clients"),
                    format!(
                        "under spec pacing the virtual users are warehouses x terminals_per_warehouse = {n}, got {c}; remove clients or change terminals_per_warehouse"
                    ),
                ));
            }
            n as u32
        }
        TpccPacing::None => {
            if w.terminals_per_warehouse.is_some() {
                return Err(Invalid::new(
                    key.key("terminals_per_warehouse"),
                    "applies to pacing = \"spec\" only; set clients for pacing = \"none\"",
                ));
            }
            int_in(
                w.clients,
                i64::from(warehouses).min(MAX_CLIENTS),
                1,
                MAX_CLIENTS,
                key.key("clients"),
            )?
        }
    };
    Ok((
        clients,
        TpccOptions {
            warehouses,
            pacing,
            terminals_per_warehouse,
            procedures: w.procedures.unwrap_or(false),
            mix,
            isolation,
        },
    ))
}

/// `mix` and `isolation` as written: a known name or absent.
fn mix_and_isolation(
    w: &WorkloadSection,
    key: &KeyPath,
) -> Result<(TpccMix, Option<Isolation>), Invalid> {
    let mix = match w.mix.as_deref() {
        None => TpccMix::Spec,
        Some(name) => TpccMix::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("mix"),
                format!("unknown mix {name:?}; known: spec, hammerdb"),
            )
        })?,
    };
    let isolation = match w.isolation.as_deref() {
        None => None,
        Some(name) => Some(Isolation::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("isolation"),
                format!(
                    "unknown isolation {name:?}; known: read_committed, repeatable_read, serializable, snapshot"
                ),
            )
        })?),
    };
    Ok((mix, isolation))
}
