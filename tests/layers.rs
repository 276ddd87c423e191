//! The layer rule of docs/architecture.md, enforced: every `crate::…` and `super::…` path in
//! src/ is an edge from its file to the file it names (through `pub use`: a re-exported name
//! is an edge to the file that defines it; test items are left out, as a test module's
//! `super::` names its own file); an edge between two top-level modules
//! must be one the table in docs/architecture.md allows, every top-level module must have a
//! row there, and no set of files may import each other in a circle. The workspace crates
//! (crates/, listed in the "## Crates" table) are held to the same rules: a path into one of
//! their modules (`drivebench_core::config::…`) is an edge to that module, their own files are
//! checked like src/'s, and each crate's drivebench dependencies are the ones the table names.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The allowed-edges table: module -> the modules it may use. Rows look like
/// "| `protocol` | what it owns | `clients`, `workload`, … |".
fn allowed_edges(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .expect("docs/architecture.md has a \"## Layers\" section");
    let mut table = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let module = cells[0].trim_matches('`').to_string();
        let uses = backticked(cells.last().expect("a row has cells"));
        table.insert(module, uses);
    }
    table
}

fn backticked(cell: &str) -> BTreeSet<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every .rs file under `dir`, as paths relative to it.
fn rust_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = rel.join(path.file_name().unwrap());
        if path.is_dir() {
            rust_files(dir, &name, out);
        } else if name.extension().is_some_and(|e| e == "rs") {
            out.push(name);
        }
    }
}

/// The module path a file defines: `a/b.rs` and `a/b/mod.rs` are both `[a, b]`.
fn module_of(file: &Path) -> Vec<String> {
    let mut parts: Vec<String> = file
        .with_extension("")
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The paths written after `prefix` (`crate::` or `super::`) in `text`, split on `::`; a use
/// tree's groups are expanded (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`).
fn paths_after(text: &str, prefix: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        use_tree(rest, Vec::new(), &mut out);
    }
    out
}

/// Expand the use tree at the start of `text` below `base` into `out`; returns the bytes read.
fn use_tree(text: &str, base: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = base;
    let mut i = 0;
    let bytes = text.as_bytes();
    loop {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i > start {
            path.push(text[start..i].to_string());
        }
        if text[i..].starts_with("::") {
            i += 2;
            continue;
        }
        if i == start && bytes.get(i) == Some(&b'{') {
            i += 1;
            loop {
                while bytes
                    .get(i)
                    .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                {
                    i += 1;
                }
                if i >= bytes.len() || bytes[i] == b'}' {
                    return i + 1;
                }
                let read = use_tree(&text[i..], path.clone(), out);
                if read == 0 {
                    return i;
                }
                i += read;
            }
        }
        out.push(path);
        return i;
    }
}

struct Graph {
    files: Vec<PathBuf>,
    /// file index -> the file indexes it names.
    edges: Vec<BTreeSet<usize>>,
}

/// Names to files: a path's longest prefix that names a file, following `pub use`: a name
/// re-exported by that file resolves to the file that defines it.
struct Resolver {
    by_module: BTreeMap<Vec<String>, usize>,
    /// (module, name it re-exports) -> the full path it names.
    reexports: BTreeMap<(Vec<String>, String), Vec<String>>,
}

/// How many re-exports a path is followed through.
const MAX_HOPS: usize = 8;

impl Resolver {
    fn resolve(&self, path: &[String], hops: usize) -> Option<usize> {
        let k = (1..=path.len())
            .rev()
            .find(|k| self.by_module.contains_key(&path[..*k]))?;
        let file = self.by_module[&path[..k]];
        if hops < MAX_HOPS
            && let Some(next) = path.get(k)
            && let Some(target) = self.reexports.get(&(path[..k].to_vec(), next.clone()))
        {
            let full: Vec<String> = target.iter().chain(&path[k + 1..]).cloned().collect();
            if let Some(f) = self.resolve(&full, hops + 1) {
                return Some(f);
            }
        }
        Some(file)
    }
}

/// The `pub use` items of a file of module `me`, as (name, full path): `crate::`, `super::`,
/// `self::` and module-relative paths.
fn reexports_of(text: &str, me: &[String]) -> Vec<(String, Vec<String>)> {
    let parent = &me[..me.len().saturating_sub(1)];
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("pub use ") {
        rest = &rest[i + "pub use ".len()..];
        let (base, tree) = if let Some(t) = rest.strip_prefix("crate::") {
            (Vec::new(), t)
        } else if let Some(t) = rest.strip_prefix("super::") {
            (parent.to_vec(), t)
        } else if let Some(t) = rest.strip_prefix("self::") {
            (me.to_vec(), t)
        } else {
            (me.to_vec(), rest)
        };
        let mut paths = Vec::new();
        use_tree(tree, base, &mut paths);
        out.extend(
            paths
                .into_iter()
                .filter_map(|p| Some((p.last()?.clone(), p))),
        );
    }
    out
}

/// `text` without its `#[cfg(test)]` items (a `mod tests { .. }` block or a `mod x;` line):
/// a test module's `super::` is the file itself, not its parent.
fn strip_tests(text: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        let Some(open) = item.find(['{', ';']) else {
            return out;
        };
        if item.as_bytes()[open] == b';' {
            rest = &item[open + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn test_items_are_left_out_of_the_graph() {
    assert_eq!(
        strip_tests(
            "use crate::a;\n#[cfg(test)]\nmod t;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { {} }\n}\nfn g() {}\n"
        ),
        "use crate::a;\n\n\nfn g() {}\n"
    );
}

/// The crates table: crate name -> (its folder, the modules it holds, the crates it uses).
/// Rows look like "| `drivebench-core` | `crates/core` | `config`, `curve` | nothing |". A
/// crate whose modules cell names none is one layer of its own, named by the crate.
fn crates(text: &str) -> BTreeMap<String, (PathBuf, BTreeSet<String>, BTreeSet<String>)> {
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Crates"))
        .expect("docs/architecture.md has a \"## Crates\" section");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let name = cells[0].trim_matches('`').to_string();
            let dir = PathBuf::from(cells[1].trim_matches('`'));
            (
                name,
                (
                    dir,
                    backticked(cells[2]),
                    backticked(cells[cells.len() - 1]),
                ),
            )
        })
        .collect()
}

/// The graph of src/ (the main crate).
fn graph() -> Graph {
    graph_of(&root().join("src"))
}

/// The files under `src` (a crate's source folder) and the edges between them.
fn graph_of(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, Path::new(""), &mut files);
    let texts: Vec<String> = files
        .iter()
        .map(|f| strip_tests(&std::fs::read_to_string(src.join(f)).unwrap()))
        .collect();
    let by_module: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (module_of(f), i))
        .collect();
    let reexports = files
        .iter()
        .zip(&texts)
        .flat_map(|(f, text)| {
            let me = module_of(f);
            reexports_of(text, &me)
                .into_iter()
                .map(move |(name, path)| ((me.clone(), name), path))
        })
        .collect();
    let names = Resolver {
        by_module,
        reexports,
    };
    let edges = files
        .iter()
        .zip(&texts)
        .enumerate()
        .map(|(i, (f, text))| {
            let me = module_of(f);
            let parent = &me[..me.len().saturating_sub(1)];
            let mut to = BTreeSet::new();
            for p in paths_after(text, "crate::") {
                to.extend(names.resolve(&p, 0));
            }
            for p in paths_after(text, "super::") {
                let full: Vec<String> = parent.iter().cloned().chain(p).collect();
                to.extend(names.resolve(&full, 0));
            }
            to.remove(&i);
            to
        })
        .collect();
    Graph { files, edges }
}

/// The top-level module of a file; None for lib.rs and main.rs.
fn top(file: &Path) -> Option<String> {
    let m = module_of(file);
    (m.len() > 1 || !matches!(m[0].as_str(), "lib" | "main")).then(|| m[0].clone())
}

/// The edges of `g` (files of one crate) between top-level modules that `allowed` does not
/// allow, and the top-level modules with no row.
fn wrong_edges(
    g: &Graph,
    allowed: &BTreeMap<String, BTreeSet<String>>,
    wrong: &mut BTreeSet<String>,
    missing: &mut BTreeSet<String>,
) {
    for (i, to) in g.edges.iter().enumerate() {
        let Some(a) = top(&g.files[i]) else { continue };
        if !allowed.contains_key(&a) {
            missing.insert(a.clone());
        }
        for &j in to {
            let Some(b) = top(&g.files[j]) else { continue };
            if a != b && !allowed.get(&a).is_some_and(|s| s.contains(&b)) {
                wrong.insert(format!(
                    "{a} -> {b} ({} names {})",
                    g.files[i].display(),
                    g.files[j].display()
                ));
            }
        }
    }
}

/// The edges from the files under `src` (the main crate's or a crate's source folder) into
/// the workspace crates' modules (`drivebench_core::curve::…` is an edge to `curve`) that
/// `allowed` does not allow.
fn wrong_crate_edges(
    src: &Path,
    allowed: &BTreeMap<String, BTreeSet<String>>,
    crates: &BTreeMap<String, (PathBuf, BTreeSet<String>, BTreeSet<String>)>,
    wrong: &mut BTreeSet<String>,
) {
    let mut files = Vec::new();
    rust_files(src, Path::new(""), &mut files);
    for file in files {
        let Some(a) = top(&file) else { continue };
        let text = strip_tests(&std::fs::read_to_string(src.join(&file)).unwrap());
        for name in crates.keys() {
            let prefix = format!("{}::", name.replace('-', "_"));
            let whole = crates[name].1.is_empty().then_some(name);
            for p in paths_after(&text, &prefix) {
                let Some(b) = whole.or(p.first()) else {
                    continue;
                };
                if !allowed.get(&a).is_some_and(|s| s.contains(b)) {
                    wrong.insert(format!("{a} -> {b} ({} names {name})", file.display()));
                }
            }
        }
    }
}

#[test]
fn every_edge_between_top_level_modules_is_one_the_layer_table_allows() {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let allowed = allowed_edges(&text);
    let crates = crates(&text);
    let mut wrong = BTreeSet::new();
    let mut missing = BTreeSet::new();
    wrong_edges(&graph(), &allowed, &mut wrong, &mut missing);
    wrong_crate_edges(&root().join("src"), &allowed, &crates, &mut wrong);
    for (dir, modules, _) in crates.values() {
        if !modules.is_empty() {
            let src = root().join(dir).join("src");
            wrong_edges(&graph_of(&src), &allowed, &mut wrong, &mut missing);
            wrong_crate_edges(&src, &allowed, &crates, &mut wrong);
        }
    }
    assert!(
        missing.is_empty(),
        "modules with no row in docs/architecture.md's layer table: {missing:?}"
    );
    assert!(
        wrong.is_empty(),
        "edges the layer table in docs/architecture.md does not allow:\n{}",
        wrong.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The top-level modules of the crate whose source folder is `src`.
fn modules_in(src: &Path) -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(src, Path::new(""), &mut files);
    files.iter().filter_map(|f| top(f)).collect()
}

#[test]
fn every_row_names_a_module_and_every_crate_uses_what_its_row_says() {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let crates = crates(&text);
    let mut exist = modules_in(&root().join("src"));
    for (name, (dir, modules, uses)) in &crates {
        if modules.is_empty() {
            exist.insert(name.clone());
        } else {
            let here = modules_in(&root().join(dir).join("src"));
            assert_eq!(&here, modules, "{name}: the modules its row lists");
            exist.extend(here);
        }
        let manifest = std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap();
        let deps: BTreeSet<String> = manifest
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.starts_with("drivebench-") && crates.contains_key(*w))
            .map(str::to_string)
            .collect();
        assert_eq!(
            &deps, uses,
            "{name}: the drivebench crates its Cargo.toml uses"
        );
    }
    let stale: Vec<String> = allowed_edges(&text)
        .into_keys()
        .filter(|m| !exist.contains(m))
        .collect();
    assert!(
        stale.is_empty(),
        "layer-table rows for modules that do not exist: {stale:?}"
    );
}

#[test]
fn the_layer_table_itself_has_no_cycle() {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let allowed = allowed_edges(&text);
    let names: Vec<&String> = allowed.keys().collect();
    let index = |n: &String| names.iter().position(|m| *m == n);
    let edges: Vec<BTreeSet<usize>> = names
        .iter()
        .map(|n| allowed[*n].iter().filter_map(index).collect())
        .collect();
    let cycles = strongly_connected(&edges);
    assert!(
        cycles.is_empty(),
        "the layer table allows circles: {:?}",
        cycles
            .iter()
            .map(|c| c.iter().map(|&i| names[i]).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    );
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    for (dir, _, _) in crates(&text).values() {
        let g = graph_of(&root().join(dir).join("src"));
        assert!(
            strongly_connected(&g.edges).is_empty(),
            "{}: file cycles",
            dir.display()
        );
    }
    let g = graph();
    let cycles: Vec<Vec<String>> = strongly_connected(&g.edges)
        .into_iter()
        .map(|c| {
            c.iter()
                .map(|&i| g.files[i].display().to_string())
                .collect()
        })
        .collect();
    assert!(cycles.is_empty(), "file-level import cycles: {cycles:?}");
}

/// Strongly connected components of more than one node (Tarjan's algorithm, iterative).
fn strongly_connected(edges: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct State {
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    let n = edges.len();
    let mut s = State {
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for start in 0..n {
        if s.index[start].is_some() {
            continue;
        }
        // (node, its successors still to visit)
        let mut work: Vec<(usize, Vec<usize>)> = Vec::new();
        let visit = |v: usize, s: &mut State, work: &mut Vec<(usize, Vec<usize>)>| {
            s.index[v] = Some(s.next);
            s.low[v] = s.next;
            s.next += 1;
            s.stack.push(v);
            s.on_stack[v] = true;
            work.push((v, edges[v].iter().rev().copied().collect()));
        };
        visit(start, &mut s, &mut work);
        while let Some((v, todo)) = work.last_mut() {
            let v = *v;
            if let Some(w) = todo.pop() {
                match s.index[w] {
                    None => visit(w, &mut s, &mut work),
                    Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                    Some(_) => {}
                }
                continue;
            }
            work.pop();
            if let Some((u, _)) = work.last() {
                s.low[*u] = s.low[*u].min(s.low[v]);
            }
            if Some(s.low[v]) == s.index[v] {
                let mut component = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    s.out.push(component);
                }
            }
        }
    }
    s.out
}

#[test]
fn the_checker_sees_a_circle_and_a_forbidden_edge() {
    // a -> b -> c -> a is one component; d -> a is not part of it.
    let edges = vec![
        BTreeSet::from([1]),
        BTreeSet::from([2]),
        BTreeSet::from([0]),
        BTreeSet::from([0]),
    ];
    assert_eq!(strongly_connected(&edges), vec![vec![0, 1, 2]]);
    let table = allowed_edges(
        "x\n## Layers\n\n| module | owns | may use |\n|---|---|---|\n| `a` | A | `b`, `c` |\n| `b` | B | nothing |\n\n## Next\n| `z` | Z | `a` |\n",
    );
    assert_eq!(
        table.len(),
        2,
        "rows outside the Layers section are ignored"
    );
    assert_eq!(table["a"], BTreeSet::from(["b".into(), "c".into()]));
    assert!(table["b"].is_empty());
    let strings = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    assert_eq!(
        paths_after(
            "use crate::a::b::{c, d::{e, f}}; x.super::no; super::e::f",
            "crate::"
        ),
        strings(&[
            &["a", "b", "c"],
            &["a", "b", "d", "e"],
            &["a", "b", "d", "f"]
        ])
    );
    assert_eq!(
        paths_after("use super::e::f; my_super::g; super::{self, h}", "super::"),
        strings(&[&["e", "f"], &["self"], &["h"]])
    );
    // A name re-exported by `engines` (engines/mod.rs) resolves to the file defining it.
    let me = strings(&[&["engines"]]).remove(0);
    let re = reexports_of(
        "pub use driver::{Engine, UrlProblem};\npub use crate::x::Y;",
        &me,
    );
    assert_eq!(
        re,
        vec![
            (
                "Engine".to_string(),
                strings(&[&["engines", "driver", "Engine"]]).remove(0)
            ),
            (
                "UrlProblem".into(),
                strings(&[&["engines", "driver", "UrlProblem"]]).remove(0)
            ),
            ("Y".into(), strings(&[&["x", "Y"]]).remove(0)),
        ]
    );
    let names = Resolver {
        by_module: BTreeMap::from([
            (me.clone(), 0),
            (strings(&[&["engines", "driver"]]).remove(0), 1),
        ]),
        reexports: re.into_iter().map(|(n, p)| ((me.clone(), n), p)).collect(),
    };
    assert_eq!(
        names.resolve(&strings(&[&["engines", "UrlProblem"]])[0], 0),
        Some(1)
    );
    assert_eq!(
        names.resolve(&strings(&[&["engines", "Other"]])[0], 0),
        Some(0)
    );
}
