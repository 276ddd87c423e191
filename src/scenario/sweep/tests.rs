//! Resolution of `[[sweep]]` entries: defaults, scaling, and a message naming the key for each
//! bad entry.

use super::*;

fn section(f: impl FnOnce(&mut SweepSection)) -> SweepSection {
    let mut s = SweepSection {
        profiles: Some(vec!["4k-random-read-128".into()]),
        size: Some("64MiB".into()),
        ..SweepSection::default()
    };
    f(&mut s);
    s
}

#[test]
fn defaults_fill_a_file_once_and_sweep_the_default_curve() {
    let p = resolve(&section(|_| {}), &KeyPath::root(), 1.0).unwrap();
    assert_eq!(p.fill_passes, 1);
    assert_eq!(p.region, Region::WHOLE);
    assert_eq!((p.warmup_ms, p.duration_ms), (5_000, 30_000));
    assert_eq!(p.points_per_profile(), 7);
    assert_eq!(p.estimated_ms, 7 * 35_000);
    assert_eq!(p.submit_batch, 1);
    assert_eq!(
        p.target,
        SweepTarget::File {
            file: DEFAULT_FILE.into(),
            size_bytes: 64 << 20
        }
    );
    let scaled = resolve(&section(|_| {}), &KeyPath::root(), 0.01).unwrap();
    assert_eq!((scaled.warmup_ms, scaled.duration_ms), (50, 300));
}

type Change = fn(&mut SweepSection);

/// Each change makes the default section invalid at `key`, with a message holding `fragment`.
fn refused_at(cases: &[(Change, &str, &str)]) {
    for (change, key, fragment) in cases {
        let mut s = section(|_| {});
        change(&mut s);
        let err = resolve(&s, &KeyPath::root(), 1.0).expect_err(fragment);
        assert_eq!(err.key.to_string(), *key, "{}", err.message);
        assert!(
            err.message.contains(fragment),
            "{key}: {:?} lacks {fragment:?}",
            err.message
        );
    }
}

#[test]
fn bad_load_entries_name_their_key() {
    refused_at(&[
        (|s| s.submit_batch = Some(0), "submit_batch", "1"),
        (
            |s| s.profiles = Some(vec!["nope".into()]),
            "profiles[0]",
            "unknown profile \"nope\"",
        ),
        (|s| s.bs = Some("4k".into()), "bs", "not both"),
        (
            |s| {
                s.profiles = None;
                s.bs = Some("4k".into());
            },
            "read_pct",
            "needed",
        ),
        (
            |s| {
                s.profiles = None;
                s.bs = Some("4k/50:8k/40".into());
                s.read_pct = Some(1);
                s.random_pct = Some(1);
            },
            "bs",
            "sum to 90",
        ),
        (
            |s| {
                s.profiles = None;
                s.bs = Some("1000".into());
                s.read_pct = Some(1);
                s.random_pct = Some(1);
            },
            "bs",
            "multiple of 512",
        ),
        (|s| s.threads = Some(0), "threads", "between 1 and 4096"),
    ]);
}

#[test]
fn bad_timing_and_target_entries_name_their_key() {
    refused_at(&[
        (|s| s.region = Some("0%".into()), "region", "above 0%"),
        (
            |s| s.duration = Some("0s".into()),
            "duration",
            "longer than zero",
        ),
        (|s| s.rate = Some(-5.0), "rate", "positive"),
        (
            |s| {
                s.rate = Some(100.0);
                s.curve = Some(vec![50.0]);
            },
            "curve",
            "not with rate",
        ),
        (|s| s.size = None, "size", "needed for a file target"),
        (|s| s.fill = Some(9), "fill", "between 0 and 4"),
        (
            |s| {
                s.size = None;
                s.device = Some("/dev/loop9".into());
            },
            "destroy",
            "destroy = true",
        ),
        (
            |s| s.device = Some("/dev/loop9".into()),
            "size",
            "only for a file target",
        ),
    ]);
}

#[test]
fn custom_mixes_and_load_overrides_resolve_to_named_profiles() {
    let s = section(|s| {
        s.profiles = None;
        s.bs = Some("4k/60:64k/40".into());
        s.read_pct = Some(70);
        s.random_pct = Some(100);
        s.depth = Some(8);
        s.rate = Some(500.0);
    });
    let p = resolve(&s, &KeyPath::root(), 1.0).unwrap();
    assert_eq!(p.profiles[0].name, "custom-4k.60_64k.40-r70-rand100-1x8");
    assert_eq!(p.points_per_profile(), 1);
    let s = section(|s| s.threads = Some(1));
    let p = resolve(&s, &KeyPath::root(), 1.0).unwrap();
    assert_eq!(p.profiles[0].name, "4k-random-read-128@1x32");
    assert_eq!(parse_region("25").unwrap().end_fraction, 0.25);
}
