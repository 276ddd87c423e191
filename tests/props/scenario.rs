//! Properties of the scenario parser and resolver (`drivebench::scenario::load_str`): whatever
//! the text, the `--set` overrides and the time scale, the answer is a plan or a
//! `ScenarioError` naming the file, never a panic; a plan renders (`drivebench plan`) and reads
//! back from its JSON (plan.json, result.json's `plan`) as the same plan.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::harness::{Saved, Verdict, check, fail};
use super::tree::{EDGE_INTS, Mutation, apply, mutations, odd_string};

const FILE: &str = "fuzz.toml";

/// The scenarios shipped in scenarios/, as text.
fn shipped() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Every dotted key path in the shipped scenarios (`workload.clients`, `phase.1.duration`).
fn key_paths(texts: &[String]) -> Vec<String> {
    fn walk(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
        let children: Vec<(String, &toml::Value)> = match v {
            toml::Value::Table(t) => t.iter().map(|(k, v)| (k.clone(), v)).collect(),
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            _ => Vec::new(),
        };
        for (k, child) in children {
            let path = if prefix.is_empty() {
                k
            } else {
                format!("{prefix}.{k}")
            };
            out.push(path.clone());
            walk(child, &path, out);
        }
    }
    let mut out = Vec::new();
    for t in texts {
        walk(
            &toml::Value::Table(toml::from_str(t).unwrap()),
            "",
            &mut out,
        );
    }
    out.sort();
    out.dedup();
    out
}

/// The last segment of every key path: the words scenario tables use.
fn key_words(paths: &[String]) -> Vec<String> {
    let mut words: Vec<String> = paths
        .iter()
        .filter_map(|p| p.rsplit('.').next())
        .filter(|w| w.parse::<usize>().is_err())
        .map(String::from)
        .collect();
    words.sort();
    words.dedup();
    words
}

fn key(words: &[String]) -> BoxedStrategy<String> {
    prop_oneof![
        4 => proptest::sample::select(words.to_vec()),
        1 => "\\PC{0,12}",
    ]
    .boxed()
}

/// A TOML value of any type, extremes included (NaN, infinities, i64::MIN).
fn odd_value() -> BoxedStrategy<toml::Value> {
    use toml::Value as V;
    prop_oneof![
        2 => proptest::sample::select(EDGE_INTS).prop_map(V::Integer),
        1 => any::<i64>().prop_map(V::Integer),
        1 => any::<f64>().prop_map(V::Float),
        1 => proptest::sample::select(vec![f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, 1e308, 5e-324])
            .prop_map(V::Float),
        1 => any::<bool>().prop_map(V::Boolean),
        4 => odd_string().prop_map(V::String),
        1 => Just(V::Array(Vec::new())),
        1 => Just(V::Table(toml::Table::new())),
        1 => Just(V::Datetime("1979-05-27T07:32:00Z".parse().unwrap())),
        1 => proptest::collection::vec(proptest::sample::select(EDGE_INTS), 1..4)
            .prop_map(|v| V::Array(v.into_iter().map(V::Integer).collect())),
    ]
    .boxed()
}

/// A whole TOML document of arbitrary structure, keys mostly scenario words.
fn arbitrary_document(words: &[String]) -> BoxedStrategy<toml::Table> {
    let k = key(words);
    let tree = odd_value().prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(toml::Value::Array),
            proptest::collection::btree_map(key_strategy_leaf(), inner, 0..6)
                .prop_map(|m| toml::Value::Table(m.into_iter().collect())),
        ]
    });
    proptest::collection::btree_map(k, tree, 0..8)
        .prop_map(|m| m.into_iter().collect())
        .boxed()
}

fn key_strategy_leaf() -> BoxedStrategy<String> {
    prop_oneof![
        proptest::sample::select(vec![
            "engine",
            "count",
            "duration",
            "name",
            "record",
            "clients",
            "path",
            "config",
            "url",
            "rate",
            "points",
            "profile",
            "until",
            "benchmark",
            "test",
        ])
        .prop_map(String::from),
        "\\PC{0,8}",
    ]
    .boxed()
}

/// `--set KEY=VALUE` items: real key paths and broken ones, odd values and TOML literals.
fn overrides(paths: &[String]) -> BoxedStrategy<Vec<String>> {
    let keys = prop_oneof![
        4 => proptest::sample::select(paths.to_vec()),
        1 => proptest::sample::select(vec![
            "", ".", "a..b", "x[", "x[]", "phase[99999999999999999999]", "phase.sample.duration",
            "phase.nope.duration", "instance.0.config.buffer_pool", "workload", "phase",
            "instance[0][0]", "name.x",
        ])
        .prop_map(String::from),
    ];
    let values = prop_oneof![
        3 => odd_string(),
        1 => proptest::sample::select(vec![
            "[1, 2]", "{a = 1}", "\"x\"", "nan", "inf", "-inf", "1e400", "[]", "{}",
            "1979-05-27", "true", "[[1]]", "'''x'''",
        ])
        .prop_map(String::from),
    ];
    let item = prop_oneof![
        9 => (keys, values).prop_map(|(k, v)| format!("{k}={v}")),
        1 => odd_string(),
    ];
    proptest::collection::vec(item, 0..3).boxed()
}

fn time_scale() -> BoxedStrategy<f64> {
    prop_oneof![
        3 => Just(1.0),
        1 => Just(0.01),
        2 => 1e-12f64..1e12,
        1 => proptest::sample::select(vec![f64::MIN_POSITIVE, 1e-300, 1e300, f64::MAX]),
    ]
    .boxed()
}

/// A case: the scenario text, its overrides, the time scale.
type Case = (String, Vec<String>, f64);

fn save(case: &Case) -> Saved {
    let (text, sets, scale) = case;
    let mut head = String::from("# fuzz: found by bench/fuzz.sh\n");
    for s in sets {
        head.push_str(&format!("# set: {s}\n"));
    }
    head.push_str(&format!("# time-scale: {scale:e}\n"));
    Saved {
        ext: "toml",
        bytes: format!("{head}{text}").into_bytes(),
    }
}

/// The property every scenario case must have.
pub fn plan_or_typed_error((text, sets, scale): &Case) -> Verdict {
    match drivebench::scenario::load_str(text, FILE, sets, *scale) {
        Err(e) => {
            let shown = e.to_string();
            if !shown.starts_with(FILE) || e.message.trim().is_empty() {
                return fail(format!("error without its file or message: {shown:?}"));
            }
            Ok(())
        }
        Ok(plan) => {
            super::harness::accepted();
            let _ = drivebench::cli::plan::render(&plan, &[]);
            let json =
                serde_json::to_value(&plan).map_err(|e| TestCaseError::fail(e.to_string()))?;
            match serde_json::from_value::<drivebench::scenario::Plan>(json.clone()) {
                Ok(back) if serde_json::to_value(&back).ok() == Some(json) => Ok(()),
                Ok(_) => fail("the plan read back from its JSON differs"),
                Err(e) => fail(format!("the plan does not read back from its JSON: {e}")),
            }
        }
    }
}

#[test]
fn arbitrary_toml_gives_a_plan_or_a_typed_error() {
    let words = key_words(&key_paths(&shipped()));
    let strategy = (
        arbitrary_document(&words),
        overrides(&key_paths(&shipped())),
        time_scale(),
    )
        .prop_filter_map("not representable as TOML", |(doc, sets, scale)| {
            toml::to_string(&doc).ok().map(|text| (text, sets, scale))
        });
    check("scenario_arbitrary", strategy, save, plan_or_typed_error);
}

#[test]
fn mutated_shipped_scenarios_give_a_plan_or_a_typed_error() {
    let texts = shipped();
    let paths = key_paths(&texts);
    let words = key_words(&paths);
    let docs: Vec<toml::Value> = texts
        .iter()
        .map(|t| toml::Value::Table(toml::from_str(t).unwrap()))
        .collect();
    let strategy = (
        proptest::sample::select(docs),
        mutations(odd_value(), key(&words), 4),
        overrides(&paths),
        time_scale(),
    )
        .prop_filter_map("not representable as TOML", |(mut doc, m, sets, scale)| {
            apply(&mut doc, &m as &[Mutation<toml::Value>]);
            toml::to_string(&doc).ok().map(|text| (text, sets, scale))
        });
    check("scenario_mutated", strategy, save, plan_or_typed_error);
}

/// Pieces of TOML syntax and scenario lines to splice into text.
const TOKENS: &[&str] = &[
    "[",
    "]",
    "[[",
    "]]",
    "=",
    "\n",
    "\"",
    "'",
    "'''",
    "\"\"\"",
    "#",
    ",",
    "{",
    "}",
    ".",
    " ",
    "name",
    "[[instance]]\n",
    "engine = \"sqlite\"\n",
    "\n[workload]\n",
    "[[phase]]\n",
    "duration = \"1s\"\n",
    "record = true\n",
    "1e400",
    "nan",
    "\u{feff}",
    "名前",
    "é",
    "\r\n",
    "\\u0000",
    "\t",
    "[[sweep]]\n",
    "[[curve]]\n",
    "= [",
    "0x7f",
    "-",
    "_",
];

/// Shipped scenario text with pieces cut out and tokens spliced in at character boundaries.
fn spliced_text(texts: Vec<String>) -> BoxedStrategy<String> {
    let base = prop_oneof![
        4 => proptest::sample::select(texts),
        1 => Just(String::new()),
    ];
    let splice = (
        any::<proptest::sample::Index>(),
        0usize..40,
        proptest::collection::vec(
            prop_oneof![3 => proptest::sample::select(TOKENS).prop_map(String::from), 1 => "\\PC{0,4}"],
            0..4,
        ),
    );
    (base, proptest::collection::vec(splice, 1..6))
        .prop_map(|(mut text, splices)| {
            for (at, cut, insert) in splices {
                let bounds: Vec<usize> = text
                    .char_indices()
                    .map(|(i, _)| i)
                    .chain([text.len()])
                    .collect();
                let start = bounds[at.index(bounds.len())];
                let end = bounds
                    .iter()
                    .copied()
                    .find(|&b| b >= start + cut)
                    .unwrap_or(text.len());
                text.replace_range(start..end, &insert.concat());
            }
            text
        })
        .boxed()
}

#[test]
fn spliced_scenario_text_gives_a_plan_or_a_typed_error() {
    let texts = shipped();
    let paths = key_paths(&texts);
    let strategy = (spliced_text(texts), overrides(&paths), time_scale());
    check("scenario_spliced", strategy, save, plan_or_typed_error);
}
