//! Running one property: proptest's runner with the case count from `PROPTEST_CASES` (256 when
//! unset), no persistence of its own, panics caught and named with their location, and the
//! smallest failing input written to `DRIVEBENCH_FUZZ_FAILURES` (when set) so that
//! bench/fuzz.sh can keep it as a regression file under tests/data/fuzz/.

use std::cell::{Cell, RefCell};
use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Once;

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};

thread_local! {
    /// Inside a property: panics are expected findings, kept here instead of printed.
    static CAUGHT: RefCell<Option<Option<String>>> = const { RefCell::new(None) };
    /// Cases of the running property whose input was accepted (a plan, a report).
    static ACCEPTED: Cell<u64> = const { Cell::new(0) };
}

/// Count the current case as accepted, to show how many cases got past validation.
pub fn accepted() {
    ACCEPTED.with(|a| a.set(a.get() + 1));
}

/// A panic hook that, on a thread running a property, keeps the message and location quietly
/// (shrinking replays a failing case many times) and prints as usual everywhere else.
fn quiet_panics_in_properties() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let kept = CAUGHT.with(|c| match c.borrow_mut().as_mut() {
                Some(slot) => {
                    *slot = Some(info.to_string());
                    true
                }
                None => false,
            });
            if !kept {
                previous(info);
            }
        }));
    });
}

/// What a property checks of one input: Ok, or why not.
pub type Verdict = Result<(), TestCaseError>;

/// An input as a regression file: its extension and bytes.
pub struct Saved {
    pub ext: &'static str,
    pub bytes: Vec<u8>,
}

/// Run property `name` over `strategy`; on failure, panic with the smallest failing input
/// (saved as a file when `DRIVEBENCH_FUZZ_FAILURES` names a directory).
pub fn check<S>(
    name: &str,
    strategy: S,
    save: impl Fn(&S::Value) -> Saved,
    test: impl Fn(&S::Value) -> Verdict,
) where
    S: Strategy,
    S::Value: Debug,
{
    quiet_panics_in_properties();
    let config = Config {
        failure_persistence: None,
        max_shrink_time: 60_000,
        ..Config::default()
    };
    let cases = config.cases;
    let mut runner = TestRunner::new(config);
    CAUGHT.with(|c| *c.borrow_mut() = Some(None));
    ACCEPTED.with(|a| a.set(0));
    let outcome = runner.run(&strategy, |value| test(&value));
    let panicked = CAUGHT.with(|c| c.borrow_mut().take().flatten());
    match outcome {
        Ok(()) => eprintln!(
            "property {name}: {cases} cases passed ({} accepted, the rest refused with a typed error)",
            ACCEPTED.with(Cell::get)
        ),
        Err(TestError::Abort(why)) => panic!("property {name}: aborted: {why}"),
        Err(TestError::Fail(why, value)) => {
            let file = keep_failure(name, &save(&value));
            let panicked = panicked
                .map(|p| format!("\nlast panic: {p}"))
                .unwrap_or_default();
            panic!(
                "property {name} FAILED: {why}{panicked}\nsmallest input: {value:#?}{}",
                file.map(|f| format!("\nsaved as {}", f.display()))
                    .unwrap_or_default()
            );
        }
    }
}

/// Write the failing input into `DRIVEBENCH_FUZZ_FAILURES`, named after the property and a
/// hash of its bytes.
fn keep_failure(name: &str, saved: &Saved) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("DRIVEBENCH_FUZZ_FAILURES")?);
    std::fs::create_dir_all(&dir).ok()?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in &saved.bytes {
        hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    let file = dir.join(format!("{name}-{:08x}.{}", hash as u32, saved.ext));
    std::fs::write(&file, &saved.bytes).ok()?;
    Some(file)
}

/// A failed case with a message.
pub fn fail(why: impl Into<String>) -> Verdict {
    Err(TestCaseError::fail(why.into()))
}
