//! Built-in sweep profiles, selectable by name, each with a definition printed in reports: the
//! reviews' four corners with their high-load variants, and openly defined database-like and
//! VDI-like mixes. The mixes are approximations written from public descriptions of such
//! workloads, not the reviews' proprietary traces, and say so.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::spec::{BlockSizes, EngineChoice, Pacing, PointSpec, Region, SizeShare};

/// A named access pattern and its load. The built-in ones borrow static data; a profile given
/// by its parts (block sizes, read and random shares) owns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    pub name: Cow<'static, str>,
    /// One line for people: what it stands for.
    pub summary: Cow<'static, str>,
    /// True for mixes that approximate an application's I/O rather than define it.
    pub approximation: bool,
    /// (bytes, share of I/Os in %) — one entry for a fixed size.
    pub sizes: Cow<'static, [(u64, u32)]>,
    pub read_pct: u8,
    pub random_pct: u8,
    pub threads: u32,
    pub depth: u32,
}

const K: u64 = 1024;

const fn corner(
    name: &'static str,
    summary: &'static str,
    sizes: &'static [(u64, u32)],
    read_pct: u8,
    random_pct: u8,
    threads: u32,
    depth: u32,
) -> Profile {
    Profile {
        name: Cow::Borrowed(name),
        summary: Cow::Borrowed(summary),
        approximation: false,
        sizes: Cow::Borrowed(sizes),
        read_pct,
        random_pct,
        threads,
        depth,
    }
}

const fn mix(
    name: &'static str,
    summary: &'static str,
    sizes: &'static [(u64, u32)],
    read_pct: u8,
    random_pct: u8,
) -> Profile {
    Profile {
        name: Cow::Borrowed(name),
        summary: Cow::Borrowed(summary),
        approximation: true,
        sizes: Cow::Borrowed(sizes),
        read_pct,
        random_pct,
        threads: 4,
        depth: 16,
    }
}

const FOUR_K: &[(u64, u32)] = &[(4 * K, 100)];
const EIGHT_K: &[(u64, u32)] = &[(8 * K, 100)];
const SIXTY_FOUR_K: &[(u64, u32)] = &[(64 * K, 100)];

/// Every built-in profile, in the order reports list them.
pub const PROFILES: &[Profile] = &[
    corner(
        "4k-random-read-128",
        "4K random read, 128 outstanding",
        FOUR_K,
        100,
        100,
        4,
        32,
    ),
    corner(
        "4k-random-read-512",
        "4K random read, 512 outstanding",
        FOUR_K,
        100,
        100,
        4,
        128,
    ),
    corner(
        "4k-random-write-128",
        "4K random write, 128 outstanding",
        FOUR_K,
        0,
        100,
        4,
        32,
    ),
    corner(
        "4k-random-write-512",
        "4K random write, 512 outstanding",
        FOUR_K,
        0,
        100,
        4,
        128,
    ),
    corner(
        "64k-seq-read-16",
        "64K sequential read, 16 outstanding",
        SIXTY_FOUR_K,
        100,
        0,
        1,
        16,
    ),
    corner(
        "64k-seq-read-32",
        "64K sequential read, 32 outstanding",
        SIXTY_FOUR_K,
        100,
        0,
        1,
        32,
    ),
    corner(
        "64k-seq-read-64",
        "64K sequential read, 64 outstanding",
        SIXTY_FOUR_K,
        100,
        0,
        1,
        64,
    ),
    corner(
        "64k-seq-write-8",
        "64K sequential write, 8 outstanding",
        SIXTY_FOUR_K,
        0,
        0,
        1,
        8,
    ),
    corner(
        "64k-seq-write-16",
        "64K sequential write, 16 outstanding",
        SIXTY_FOUR_K,
        0,
        0,
        1,
        16,
    ),
    corner(
        "64k-seq-write-64",
        "64K sequential write, 64 outstanding",
        SIXTY_FOUR_K,
        0,
        0,
        1,
        64,
    ),
    mix(
        "sql-like-90-10",
        "SQL-like: 8K random, 90 % read",
        EIGHT_K,
        90,
        100,
    ),
    mix(
        "sql-like-80-20",
        "SQL-like: 8K random, 80 % read",
        EIGHT_K,
        80,
        100,
    ),
    mix(
        "oracle-like",
        "Oracle-like: 8K random blocks with 10 % 1M sequential multiblock reads and log writes, 70 % read",
        &[(8 * K, 90), (1024 * K, 10)],
        70,
        90,
    ),
    mix("oltp-70-30", "OLTP: 4K random, 70 % read", FOUR_K, 70, 100),
    mix(
        "vdi-boot",
        "VDI boot storm: small mostly-read I/O, 90 % read",
        &[
            (4 * K, 50),
            (8 * K, 20),
            (16 * K, 10),
            (32 * K, 10),
            (64 * K, 10),
        ],
        90,
        80,
    ),
    mix(
        "vdi-login",
        "VDI login: small mostly-write I/O, 35 % read",
        &[
            (4 * K, 60),
            (8 * K, 20),
            (16 * K, 10),
            (32 * K, 5),
            (64 * K, 5),
        ],
        35,
        80,
    ),
];

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

impl Profile {
    pub fn block_sizes(&self) -> BlockSizes {
        match &*self.sizes {
            [(bytes, _)] => BlockSizes::Fixed(*bytes),
            many => BlockSizes::Mix(
                many.iter()
                    .map(|&(bytes, weight_pct)| SizeShare { bytes, weight_pct })
                    .collect(),
            ),
        }
    }

    pub fn outstanding(&self) -> u32 {
        self.threads * self.depth
    }

    /// The definition reports print, e.g. "4 KiB, 100 % read, 100 % random, 4 threads x 32
    /// = 128 outstanding".
    pub fn definition(&self) -> String {
        let sizes: Vec<String> = self
            .sizes
            .iter()
            .map(|(b, w)| {
                let size = if b % (1024 * K) == 0 {
                    format!("{} MiB", b / (1024 * K))
                } else if b % K == 0 {
                    format!("{} KiB", b / K)
                } else {
                    format!("{b} B")
                };
                if self.sizes.len() == 1 {
                    size
                } else {
                    format!("{size} {w} %")
                }
            })
            .collect();
        let kind = if self.approximation {
            " (an approximation, not a trace)"
        } else {
            ""
        };
        format!(
            "{}, {} % read, {} % random, {} threads x {} = {} outstanding{kind}",
            sizes.join(" / "),
            self.read_pct,
            self.random_pct,
            self.threads,
            self.depth,
            self.outstanding()
        )
    }

    /// A profile given by its parts, named after them, e.g. "custom-4k-r70-rand100-1x32".
    pub fn custom(
        sizes: Vec<(u64, u32)>,
        read_pct: u8,
        random_pct: u8,
        threads: u32,
        depth: u32,
    ) -> Profile {
        let size_names: Vec<String> = sizes
            .iter()
            .map(|&(b, w)| {
                let size = if b % K == 0 {
                    format!("{}k", b / K)
                } else {
                    b.to_string()
                };
                if sizes.len() == 1 {
                    size
                } else {
                    format!("{size}.{w}")
                }
            })
            .collect();
        Profile {
            name: Cow::Owned(format!(
                "custom-{}-r{read_pct}-rand{random_pct}-{threads}x{depth}",
                size_names.join("_")
            )),
            summary: Cow::Borrowed("given by its parts on the command line or in the scenario"),
            approximation: false,
            sizes: Cow::Owned(sizes),
            read_pct,
            random_pct,
            threads,
            depth,
        }
    }

    /// This profile at another load: the name gains "@THREADSxDEPTH" so results at different
    /// loads never share a name.
    pub fn with_load(&self, threads: u32, depth: u32) -> Profile {
        if (threads, depth) == (self.threads, self.depth) {
            return self.clone();
        }
        Profile {
            name: Cow::Owned(format!("{}@{threads}x{depth}", self.name)),
            threads,
            depth,
            ..self.clone()
        }
    }

    /// A point of this profile.
    pub fn spec(
        &self,
        region: Region,
        warmup_secs: f64,
        duration_secs: f64,
        pacing: Pacing,
        seed: u64,
    ) -> PointSpec {
        PointSpec {
            block_sizes: self.block_sizes(),
            read_pct: self.read_pct,
            random_pct: self.random_pct,
            threads: self.threads,
            depth: self.depth,
            region,
            warmup_secs,
            duration_secs,
            pacing,
            engine: EngineChoice::Auto,
            seed,
            submit_batch: 1,
            log_offsets: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_a_valid_point_with_a_unique_name() {
        for (i, p) in PROFILES.iter().enumerate() {
            assert!(
                PROFILES[..i].iter().all(|q| q.name != p.name),
                "{} twice",
                p.name
            );
            let weights: u32 = p.sizes.iter().map(|s| s.1).sum();
            assert_eq!(weights, 100, "{}", p.name);
            let spec = p.spec(Region::WHOLE, 1.0, 10.0, Pacing::Uncontrolled, 1);
            spec.validate()
                .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        }
    }

    #[test]
    fn the_review_corners_have_the_loads_the_reviews_use() {
        let load = |n: &str| profile(n).unwrap().outstanding();
        assert_eq!(
            (load("4k-random-read-128"), load("4k-random-read-512")),
            (128, 512)
        );
        assert_eq!(
            (load("4k-random-write-128"), load("4k-random-write-512")),
            (128, 512)
        );
        assert_eq!(
            [16, 32, 64].map(|n| load(&format!("64k-seq-read-{n}"))),
            [16, 32, 64]
        );
        assert_eq!(
            [8, 16, 64].map(|n| load(&format!("64k-seq-write-{n}"))),
            [8, 16, 64]
        );
        assert_eq!(profile("nope"), None);
    }

    #[test]
    fn definitions_say_what_runs_and_label_approximations() {
        assert_eq!(
            profile("4k-random-read-128").unwrap().definition(),
            "4 KiB, 100 % read, 100 % random, 4 threads x 32 = 128 outstanding"
        );
        let oracle = profile("oracle-like").unwrap();
        assert_eq!(
            oracle.definition(),
            "8 KiB 90 % / 1 MiB 10 %, 70 % read, 90 % random, 4 threads x 16 = 64 outstanding (an approximation, not a trace)"
        );
        assert!(matches!(oracle.block_sizes(), BlockSizes::Mix(m) if m.len() == 2));
    }

    #[test]
    fn custom_profiles_and_other_loads_are_named_after_what_they_run() {
        let c = Profile::custom(vec![(4 * K, 60), (512, 40)], 70, 100, 2, 16);
        assert_eq!(c.name, "custom-4k.60_512.40-r70-rand100-2x16");
        assert_eq!(
            c.definition(),
            "4 KiB 60 % / 512 B 40 %, 70 % read, 100 % random, 2 threads x 16 = 32 outstanding"
        );
        let base = profile("64k-seq-read-32").unwrap();
        assert_eq!(base.with_load(1, 32), *base);
        let more = base.with_load(2, 64);
        assert_eq!(
            (more.name.as_ref(), more.outstanding()),
            ("64k-seq-read-32@2x64", 128)
        );
    }
}
