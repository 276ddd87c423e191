//! The docs stay true to the program: the generated references under docs/reference/ are the
//! ones the program prints, every relative link in README.md and docs/ leads to a file, every
//! repository file the docs cite exists, and docs/outputs.md names every result.json field.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use drivebench::cli::docs::{cli_reference, scenario_reference};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn committed_references_are_current() {
    for (page, file, text) in [
        ("cli", "docs/reference/cli.md", cli_reference()),
        (
            "scenario",
            "docs/reference/scenario.md",
            scenario_reference(),
        ),
    ] {
        let committed = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| {
            panic!("{file}: {e}; generate it with `cargo run -- docs {page} > {file}`")
        });
        assert!(
            committed == text,
            "{file} is stale: regenerate with `cargo run -- docs {page} > {file}`"
        );
    }
}

/// README.md and every markdown file under docs/, as (path relative to the root, text).
fn pages() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(root()).unwrap().to_path_buf(), text)
        })
        .collect()
}

/// The text outside fenced code blocks.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Link targets: inline `[text](target)` and reference definitions `[label]: target`.
fn links(text: &str) -> Vec<String> {
    let text = prose(text);
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        if let Some(end) = rest.find(')') {
            out.push(rest[..end].to_string());
        }
    }
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(after) = line.strip_prefix('[')
            && let Some((_, target)) = after.split_once("]: ")
        {
            out.push(target.trim().to_string());
        }
    }
    out.into_iter()
        .map(|t| t.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn relative_links_lead_to_files() {
    let mut broken = Vec::new();
    for (page, text) in pages() {
        let dir = root().join(&page).parent().unwrap().to_path_buf();
        for target in links(&text) {
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let path = target.split('#').next().unwrap();
            if !dir.join(path).exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to missing files:\n{}",
        broken.join("\n")
    );
}

/// The fenced `sh` blocks of the README's "The two commands" section, one command each.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = readme
        .split("\n## ")
        .find(|s| s.starts_with("The two commands"))
        .expect("README has a section \"The two commands\"");
    section
        .split("```sh\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().trim().to_string())
        .collect()
}

/// The README gives two commands, the quickstart and the tests; CI runs the second one exactly
/// (`.ci/run` ends with it), and both name files that exist.
#[test]
fn readme_test_command_is_the_one_ci_runs() {
    let commands = readme_commands();
    assert_eq!(commands.len(), 2, "README's two commands: {commands:?}");
    assert_eq!(
        commands[0],
        "cargo run --release -- run scenarios/quickstart.toml"
    );
    assert!(root().join("scenarios/quickstart.toml").is_file());
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .expect(".ci/run runs something");
    assert_eq!(
        last, commands[1],
        ".ci/run must end with the README's test command"
    );
    let script = commands[1].split_whitespace().nth(1).expect("bash SCRIPT");
    assert!(root().join(script).is_file(), "{script} is missing");
}

/// The contents of `code spans` outside fenced blocks.
fn code_spans(text: &str) -> Vec<String> {
    prose(text)
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn cited_repository_files_exist() {
    const TOP: [&str; 9] = [
        ".ci/",
        "bench/",
        "benches/",
        "docs/",
        "examples/",
        "scenarios/",
        "schemas/",
        "src/",
        "tests/",
    ];
    let mut missing = Vec::new();
    for (page, text) in pages() {
        for span in code_spans(&text) {
            let cited = TOP.iter().any(|t| span.starts_with(t))
                && !span.contains(|c: char| c.is_whitespace() || "<>*{}$".contains(c))
                && !span.contains("...");
            if cited && !root().join(&span).exists() && span != "docs/architecture.md" {
                missing.push(format!("{}: {span}", page.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited files that do not exist:\n{}",
        missing.join("\n")
    );
}

#[test]
fn outputs_page_names_every_result_field() {
    let schema: serde_json::Value = serde_json::from_str(&drivebench::cli::schema::schema_text(
        drivebench::cli::schema::Kind::Result,
    ))
    .unwrap();
    fn names(v: &serde_json::Value, out: &mut BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                    out.extend(props.keys().cloned());
                }
                m.values().for_each(|c| names(c, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|c| names(c, out)),
            _ => {}
        }
    }
    let mut fields = BTreeSet::new();
    names(&schema, &mut fields);
    let text = std::fs::read_to_string(root().join("docs/outputs.md")).unwrap();
    let named: BTreeSet<String> = code_spans(&text)
        .iter()
        .flat_map(|s| {
            s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let missing: Vec<&String> = fields.difference(&named).collect();
    assert!(
        missing.is_empty(),
        "docs/outputs.md does not name these result.json fields (schemas/json/result.schema.json): {missing:?}"
    );
}

#[test]
fn outputs_page_lists_series_csv_columns_as_written() {
    let text = std::fs::read_to_string(root().join("docs/outputs.md")).unwrap();
    let section = text.split("\n## series.csv\n").nth(1).expect("the section");
    let block = section.split("```").nth(1).expect("its header block");
    assert_eq!(
        block.trim(),
        drivebench::report::series_header(),
        "docs/outputs.md's series.csv header is not the one written"
    );
}
