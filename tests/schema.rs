//! The JSON Schemas committed under schemas/json/ are the ones the program generates, every
//! scenario file shipped in scenarios/ and examples/ matches the scenario schema, and the schema
//! refuses what the program refuses in `[instance.config]`: a key the instance's engine does not
//! know, under every engine.

use std::collections::BTreeSet;

use crate::common::{read_json, root, validate};
use drivebench::cli::schema::{Kind, schema_text};
use serde_json::{Value, json};

const SCENARIO_SCHEMA: &str = "schemas/json/scenario.schema.json";

#[test]
fn committed_schemas_are_current() {
    for (kind, file) in [
        (Kind::Result, "schemas/json/result.schema.json"),
        (Kind::Scenario, SCENARIO_SCHEMA),
    ] {
        let committed = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(
            committed == schema_text(kind),
            "{file} is stale: regenerate with `cargo run -- schema {} > {file}`",
            file.split('/')
                .next_back()
                .unwrap()
                .split('.')
                .next()
                .unwrap()
        );
    }
}

/// A TOML file as the JSON the scenario schema describes.
fn toml_as_json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let table: toml::Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::to_value(table).unwrap()
}

#[test]
fn every_shipped_scenario_file_matches_the_scenario_schema() {
    let mut checked = 0;
    for dir in ["scenarios", "examples"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for path in entries.map(|e| e.unwrap().path()) {
            if path.extension().is_some_and(|e| e == "toml") {
                validate(SCENARIO_SCHEMA, &toml_as_json(&path));
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} scenario files found");
}

/// The engine names the schema knows, and for each the keys of its `[instance.config]`, read
/// from the schema's per-engine `if`/`then`.
fn settings_keys(schema: &Value) -> Vec<(String, BTreeSet<String>)> {
    let branches = schema["$defs"]["InstanceSection"]["allOf"]
        .as_array()
        .expect("[[instance]] has one if/then per engine");
    let engines: Vec<String> = schema["$defs"]["EngineKind"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["const"].as_str().unwrap().to_string())
        .collect();
    engines
        .into_iter()
        .map(|engine| {
            let branch = branches
                .iter()
                .find(|b| b["if"]["properties"]["engine"]["const"] == engine.as_str())
                .unwrap_or_else(|| panic!("no if/then for engine {engine}"));
            let reference = branch["then"]["properties"]["config"]["$ref"]
                .as_str()
                .unwrap();
            let def = &schema["$defs"][reference.rsplit('/').next().unwrap()];
            assert_eq!(def["additionalProperties"], json!(false), "{reference}");
            let keys = def["properties"].as_object().unwrap().keys().cloned();
            (engine, keys.collect())
        })
        .collect()
}

/// The quickstart with one instance of `engine` holding `config`.
fn with_instance(engine: &str, config: Value) -> Value {
    let mut doc = toml_as_json(&root().join("scenarios/quickstart.toml"));
    doc["instance"] = json!([{ "engine": engine, "config": config }]);
    doc
}

#[test]
fn an_unknown_setting_fails_the_scenario_schema_under_every_engine() {
    let schema = read_json(&root().join(SCENARIO_SCHEMA));
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let per_engine = settings_keys(&schema);
    assert_eq!(per_engine.len(), 5, "{per_engine:?}");
    let every_key: BTreeSet<&String> = per_engine.iter().flat_map(|(_, k)| k).collect();
    for (engine, keys) in &per_engine {
        assert!(
            validator.is_valid(&with_instance(engine, json!({}))),
            "{engine}: an empty config is valid"
        );
        let foreign = every_key.iter().filter(|k| !keys.contains(**k));
        for key in foreign.map(|k| k.as_str()).chain(["no_such_setting"]) {
            let doc = with_instance(engine, json!({ key: "1" }));
            let errors: Vec<String> = validator
                .iter_errors(&doc)
                .map(|e| e.instance_path().to_string())
                .collect();
            assert!(
                errors.iter().any(|p| p.starts_with("/instance/0/config")),
                "{engine}: config.{key} should fail the schema, got {errors:?}"
            );
        }
    }
}

#[test]
fn settings_the_program_reads_match_the_scenario_schema() {
    let cases = [
        (
            "scenarios/quickstart.toml",
            json!({ "journal_mode": "delete", "synchronous": "extra", "busy_timeout": "1.5s",
                    "cache_size": "4k", "mmap_size": 0, "page_size": 65536 }),
        ),
        (
            "scenarios/ci-sysbench-mariadb.toml",
            json!({ "buffer_pool": 1048576, "log_file_size": "1GiB",
                    "flush_log_at_trx_commit": 2, "flush_method": "O_DIRECT", "io_capacity": 2000,
                    "server_bin": "/usr/sbin/mariadbd",
                    "extra": { "innodb_doublewrite": true, "skip-name-resolve": 0, "x": 2.5 } }),
        ),
        (
            "scenarios/ci-sysbench-postgres.toml",
            json!({ "shared_buffers": "1GiB", "max_wal_size": "2GB",
                    "synchronous_commit": "remote_apply", "wal_sync_method": "open_datasync",
                    "checkpoint_timeout": "1h30m", "wal_dir": "/mnt/wal", "server_bin": "/b",
                    "extra": { "full_page_writes": false, "auto_explain.log_min_duration": 1 } }),
        ),
        (
            "scenarios/ci-sysbench-mssql.toml",
            json!({ "buffer_pool": "1GiB", "command_timeout": "none", "database_dir": "/d",
                    "server_bin": "/bin/true", "edition": "Evaluation" }),
        ),
    ];
    for (file, config) in cases {
        let mut doc = toml_as_json(&root().join(file));
        doc["instance"][0]["config"] = config.clone();
        validate(SCENARIO_SCHEMA, &doc);
        let set = format!("instance.0.config={}", toml_inline(&config));
        if let Err(e) = drivebench::scenario::load(&root().join(file), &[set], 1.0) {
            panic!("{file}: {e}");
        }
    }
}

/// A JSON object as a TOML inline table, for `--set`.
fn toml_inline(value: &Value) -> String {
    let table: toml::Table = serde_json::from_value(value.clone()).unwrap();
    toml::Value::Table(table).to_string()
}
