//! sysbench's options: the tests by their sysbench names, the random distributions, the
//! options with sysbench 1.0.20's defaults, and their resolution from the `[workload]` keys.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::workload::section::{MAX_CLIENTS, PrepareMode, WorkloadSection};
use drivebench_core::config::bounds::int_in;
use drivebench_core::config::error::{Invalid, KeyPath};
use drivebench_core::config::units::format_count;

impl SysbenchOptions {
    /// What `drivebench plan` says of the workload: `pacing` is the clients' (closed loop or
    /// open model).
    pub fn plan_line(&self, clients: u32, pacing: &str, prepare: PrepareMode) -> String {
        format!(
            "workload  sysbench {}, {} tables x {} rows, {clients} clients per instance, {pacing}, rand_type {}, prepare {}",
            self.test.name(),
            self.tables,
            format_count(u64::from(self.table_size)),
            self.rand_type.name(),
            prepare.name()
        )
    }
}

/// Virtual clients per instance and the sysbench options.
pub fn resolve(w: &WorkloadSection, key: &KeyPath) -> Result<(u32, SysbenchOptions), Invalid> {
    let clients = int_in(w.clients, 1, 1, MAX_CLIENTS, key.key("clients"))?;
    Ok((clients, resolve_sysbench(w, key)?))
}

/// sysbench OLTP tests, by their sysbench names.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SysbenchTest {
    OltpReadWrite,
    OltpReadOnly,
    OltpWriteOnly,
    OltpPointSelect,
    OltpUpdateIndex,
    OltpUpdateNonIndex,
    OltpInsert,
    OltpDelete,
}

impl SysbenchTest {
    pub const ALL: [SysbenchTest; 8] = [
        SysbenchTest::OltpReadWrite,
        SysbenchTest::OltpReadOnly,
        SysbenchTest::OltpWriteOnly,
        SysbenchTest::OltpPointSelect,
        SysbenchTest::OltpUpdateIndex,
        SysbenchTest::OltpUpdateNonIndex,
        SysbenchTest::OltpInsert,
        SysbenchTest::OltpDelete,
    ];
    pub fn name(self) -> &'static str {
        match self {
            SysbenchTest::OltpReadWrite => "oltp_read_write",
            SysbenchTest::OltpReadOnly => "oltp_read_only",
            SysbenchTest::OltpWriteOnly => "oltp_write_only",
            SysbenchTest::OltpPointSelect => "oltp_point_select",
            SysbenchTest::OltpUpdateIndex => "oltp_update_index",
            SysbenchTest::OltpUpdateNonIndex => "oltp_update_non_index",
            SysbenchTest::OltpInsert => "oltp_insert",
            SysbenchTest::OltpDelete => "oltp_delete",
        }
    }
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The default random generator, as sysbench's `--rand-type`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RandType {
    Special,
    Uniform,
    Gaussian,
    Pareto,
    Zipfian,
}

impl RandType {
    pub fn name(self) -> &'static str {
        match self {
            RandType::Special => "special",
            RandType::Uniform => "uniform",
            RandType::Gaussian => "gaussian",
            RandType::Pareto => "pareto",
            RandType::Zipfian => "zipfian",
        }
    }
    pub const NAMES: &'static str = "special, uniform, gaussian, pareto, zipfian";
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "special" => RandType::Special,
            "uniform" => RandType::Uniform,
            "gaussian" => RandType::Gaussian,
            "pareto" => RandType::Pareto,
            "zipfian" => RandType::Zipfian,
            _ => return None,
        })
    }
}

/// sysbench's workload options with sysbench's names and (1.0.20) defaults.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct SysbenchOptions {
    pub test: SysbenchTest,
    pub tables: u32,
    pub table_size: u32,
    pub range_size: u32,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub skip_trx: bool,
    pub auto_inc: bool,
    pub create_secondary: bool,
    pub rand_type: RandType,
    pub rand_spec_pct: u32,
    pub rand_spec_res: u32,
    pub rand_spec_iter: u32,
    pub rand_pareto_h: f64,
    pub rand_zipfian_exp: f64,
}

impl SysbenchOptions {
    /// sysbench 1.0.20's defaults for `test` (oltp_point_select runs one point select).
    pub fn defaults(test: SysbenchTest) -> Self {
        SysbenchOptions {
            test,
            tables: 1,
            table_size: 10_000,
            range_size: 100,
            point_selects: if test == SysbenchTest::OltpPointSelect {
                1
            } else {
                10
            },
            simple_ranges: 1,
            sum_ranges: 1,
            order_ranges: 1,
            distinct_ranges: 1,
            index_updates: 1,
            non_index_updates: 1,
            delete_inserts: 1,
            range_selects: true,
            skip_trx: false,
            auto_inc: true,
            create_secondary: true,
            rand_type: RandType::Special,
            rand_spec_pct: 1,
            rand_spec_res: 75,
            rand_spec_iter: 12,
            rand_pareto_h: 0.2,
            rand_zipfian_exp: 0.8,
        }
    }
}

/// The sysbench keys set in the section.
pub fn keys_set(w: &WorkloadSection) -> Vec<&'static str> {
    [
        ("test", w.test.is_some()),
        ("tables", w.tables.is_some()),
        ("table_size", w.table_size.is_some()),
        ("range_size", w.range_size.is_some()),
        ("point_selects", w.point_selects.is_some()),
        ("simple_ranges", w.simple_ranges.is_some()),
        ("sum_ranges", w.sum_ranges.is_some()),
        ("order_ranges", w.order_ranges.is_some()),
        ("distinct_ranges", w.distinct_ranges.is_some()),
        ("index_updates", w.index_updates.is_some()),
        ("non_index_updates", w.non_index_updates.is_some()),
        ("delete_inserts", w.delete_inserts.is_some()),
        ("range_selects", w.range_selects.is_some()),
        ("skip_trx", w.skip_trx.is_some()),
        ("auto_inc", w.auto_inc.is_some()),
        ("create_secondary", w.create_secondary.is_some()),
        ("rand_type", w.rand_type.is_some()),
        ("rand_spec_pct", w.rand_spec_pct.is_some()),
        ("rand_spec_res", w.rand_spec_res.is_some()),
        ("rand_spec_iter", w.rand_spec_iter.is_some()),
        ("rand_pareto_h", w.rand_pareto_h.is_some()),
        ("rand_zipfian_exp", w.rand_zipfian_exp.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, set)| set.then_some(k))
    .collect()
}

fn resolve_sysbench(w: &WorkloadSection, key: &KeyPath) -> Result<SysbenchOptions, Invalid> {
    let test = sysbench_test(w, key)?;
    let d = SysbenchOptions::defaults(test);
    let table_size = int_in(
        w.table_size,
        d.table_size.into(),
        1,
        i32::MAX.into(),
        key.key("table_size"),
    )?;
    let (rand_type, rand_pareto_h, rand_zipfian_exp) = rand_distribution(w, &d, key)?;
    let count = |v: Option<i64>, d: u32, name: &str| int_in(v, d.into(), 0, 10_000, key.key(name));
    let flag = |v: Option<bool>, d: bool| v.unwrap_or(d);
    let sysbench = SysbenchOptions {
        test,
        tables: int_in(w.tables, d.tables.into(), 1, 100_000, key.key("tables"))?,
        table_size,
        range_size: int_in(
            w.range_size,
            d.range_size.into(),
            1,
            table_size.into(),
            key.key("range_size"),
        )?,
        point_selects: count(w.point_selects, d.point_selects, "point_selects")?,
        simple_ranges: count(w.simple_ranges, d.simple_ranges, "simple_ranges")?,
        sum_ranges: count(w.sum_ranges, d.sum_ranges, "sum_ranges")?,
        order_ranges: count(w.order_ranges, d.order_ranges, "order_ranges")?,
        distinct_ranges: count(w.distinct_ranges, d.distinct_ranges, "distinct_ranges")?,
        index_updates: count(w.index_updates, d.index_updates, "index_updates")?,
        non_index_updates: count(
            w.non_index_updates,
            d.non_index_updates,
            "non_index_updates",
        )?,
        delete_inserts: count(w.delete_inserts, d.delete_inserts, "delete_inserts")?,
        range_selects: flag(w.range_selects, d.range_selects),
        skip_trx: flag(w.skip_trx, d.skip_trx),
        auto_inc: flag(w.auto_inc, d.auto_inc),
        create_secondary: flag(w.create_secondary, d.create_secondary),
        rand_type,
        rand_spec_pct: int_in(
            w.rand_spec_pct,
            d.rand_spec_pct.into(),
            1,
            100,
            key.key("rand_spec_pct"),
        )?,
        rand_spec_res: int_in(
            w.rand_spec_res,
            d.rand_spec_res.into(),
            0,
            99,
            key.key("rand_spec_res"),
        )?,
        rand_spec_iter: int_in(
            w.rand_spec_iter,
            d.rand_spec_iter.into(),
            1,
            1_000,
            key.key("rand_spec_iter"),
        )?,
        rand_pareto_h,
        rand_zipfian_exp,
    };
    Ok(sysbench)
}

/// The sysbench test a workload names (required).
fn sysbench_test(w: &WorkloadSection, key: &KeyPath) -> Result<SysbenchTest, Invalid> {
    let Some(name) = &w.test else {
        return Err(Invalid::new(
            key.key("test"),
            "is required for benchmark = \"sysbench\" (e.g. test = \"oltp_read_write\")",
        ));
    };
    let test = SysbenchTest::from_name(name).ok_or_else(|| {
        let names: Vec<_> = SysbenchTest::ALL.iter().map(|t| t.name()).collect();
        Invalid::new(
            key.key("test"),
            format!(
                "unknown sysbench test {:?}; known: {}",
                name,
                names.join(", ")
            ),
        )
    })?;
    Ok(test)
}

/// The distribution of the rows the test touches, with its parameters checked.
fn rand_distribution(
    w: &WorkloadSection,
    d: &SysbenchOptions,
    key: &KeyPath,
) -> Result<(RandType, f64, f64), Invalid> {
    let rand_type = match &w.rand_type {
        None => d.rand_type,
        Some(name) => RandType::from_name(name).ok_or_else(|| {
            Invalid::new(
                key.key("rand_type"),
                format!("unknown rand_type {name:?}; known: {}", RandType::NAMES),
            )
        })?,
    };
    let rand_pareto_h = w.rand_pareto_h.unwrap_or(d.rand_pareto_h);
    if !(rand_pareto_h > 0.0 && rand_pareto_h < 1.0) {
        return Err(Invalid::new(
            key.key("rand_pareto_h"),
            format!("must lie strictly between 0 and 1, got {rand_pareto_h}"),
        ));
    }
    let rand_zipfian_exp = w.rand_zipfian_exp.unwrap_or(d.rand_zipfian_exp);
    if !(rand_zipfian_exp.is_finite() && rand_zipfian_exp > 0.0) {
        return Err(Invalid::new(
            key.key("rand_zipfian_exp"),
            format!("must be a positive number, got {rand_zipfian_exp}"),
        ));
    }
    Ok((rand_type, rand_pareto_h, rand_zipfian_exp))
}

impl SysbenchOptions {
    /// Rows `prepare` loads per instance (oltp_insert without auto_inc starts from empty tables).
    pub fn loaded_rows(&self) -> u64 {
        if self.test == SysbenchTest::OltpInsert && !self.auto_inc {
            0
        } else {
            u64::from(self.tables) * u64::from(self.table_size)
        }
    }
}
