//! Mutations of a parsed document (a TOML scenario or a result.json), written once for both:
//! drop a key or list item, replace a value (with another type, an extreme number, an odd
//! string), add a key, repeat or cut a list. A mutation picks its place by an index into the
//! document's paths, so any generated mutation applies to any document.

use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::Index;

/// One step from a node to a child.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    Key(String),
    Item(usize),
}

/// A document tree: tables (or objects) and lists of nodes.
pub trait Tree: Clone + Debug {
    fn slots(&self) -> Vec<Slot>;
    fn child_mut(&mut self, slot: &Slot) -> Option<&mut Self>;
    fn remove(&mut self, slot: &Slot);
    /// Into a table: insert `key`; into a list: push; anything else: nothing.
    fn add(&mut self, key: String, value: Self);
    /// The list's items, when this is a list.
    fn list_mut(&mut self) -> Option<&mut Vec<Self>>;
}

#[derive(Debug, Clone)]
pub enum Edit<V> {
    Drop,
    Replace(V),
    Add(String, V),
    /// Repeat a list's last item this many times.
    Repeat(usize),
    /// Keep only this many items of a list.
    Cut(usize),
}

#[derive(Debug, Clone)]
pub struct Mutation<V> {
    pub at: Index,
    pub edit: Edit<V>,
}

/// Mutations whose values come from `values` and new keys from `keys`.
pub fn mutations<V: Debug + Clone + 'static>(
    values: BoxedStrategy<V>,
    keys: BoxedStrategy<String>,
    most: usize,
) -> BoxedStrategy<Vec<Mutation<V>>> {
    let edit = prop_oneof![
        3 => Just(Edit::Drop),
        4 => values.clone().prop_map(Edit::Replace),
        2 => (keys, values).prop_map(|(k, v)| Edit::Add(k, v)),
        1 => (1usize..300).prop_map(Edit::Repeat),
        1 => (0usize..3).prop_map(Edit::Cut),
    ];
    proptest::collection::vec(
        (any::<Index>(), edit).prop_map(|(at, edit)| Mutation { at, edit }),
        1..=most,
    )
    .boxed()
}

/// Every path below the root, parents before children.
pub fn paths<T: Tree>(root: &mut T) -> Vec<Vec<Slot>> {
    let mut out = Vec::new();
    let mut stack: Vec<Vec<Slot>> = vec![Vec::new()];
    while let Some(path) = stack.pop() {
        let Some(node) = node_mut(root, &path) else {
            continue;
        };
        for slot in node.slots() {
            let mut child = path.clone();
            child.push(slot);
            out.push(child.clone());
            stack.push(child);
        }
    }
    out
}

fn node_mut<'a, T: Tree>(root: &'a mut T, path: &[Slot]) -> Option<&'a mut T> {
    let mut node = root;
    for slot in path {
        node = node.child_mut(slot)?;
    }
    Some(node)
}

/// Apply `mutations` in turn (each finds its place among the paths as they are then).
pub fn apply<T: Tree>(root: &mut T, mutations: &[Mutation<T>]) {
    for m in mutations {
        let all = paths(root);
        if all.is_empty() {
            if let Edit::Add(k, v) = &m.edit {
                root.add(k.clone(), v.clone());
            }
            continue;
        }
        let path = &all[m.at.index(all.len())];
        let (last, parent) = path.split_last().expect("paths below the root");
        let Some(parent) = node_mut(root, parent) else {
            continue;
        };
        match &m.edit {
            Edit::Drop => parent.remove(last),
            Edit::Replace(v) => {
                if let Some(node) = parent.child_mut(last) {
                    *node = v.clone();
                }
            }
            Edit::Add(k, v) => {
                if let Some(node) = parent.child_mut(last) {
                    node.add(k.clone(), v.clone());
                }
            }
            Edit::Repeat(n) => {
                if let Some(list) = parent.child_mut(last).and_then(Tree::list_mut)
                    && let Some(item) = list.last().cloned()
                {
                    list.extend(std::iter::repeat_n(item, *n));
                }
            }
            Edit::Cut(n) => {
                if let Some(list) = parent.child_mut(last).and_then(Tree::list_mut) {
                    list.truncate(*n);
                }
            }
        }
    }
}

impl Tree for toml::Value {
    fn slots(&self) -> Vec<Slot> {
        match self {
            toml::Value::Table(t) => t.keys().cloned().map(Slot::Key).collect(),
            toml::Value::Array(a) => (0..a.len()).map(Slot::Item).collect(),
            _ => Vec::new(),
        }
    }
    fn child_mut(&mut self, slot: &Slot) -> Option<&mut Self> {
        match (self, slot) {
            (toml::Value::Table(t), Slot::Key(k)) => t.get_mut(k),
            (toml::Value::Array(a), Slot::Item(i)) => a.get_mut(*i),
            _ => None,
        }
    }
    fn remove(&mut self, slot: &Slot) {
        match (self, slot) {
            (toml::Value::Table(t), Slot::Key(k)) => {
                t.remove(k);
            }
            (toml::Value::Array(a), Slot::Item(i)) if *i < a.len() => {
                a.remove(*i);
            }
            _ => {}
        }
    }
    fn add(&mut self, key: String, value: Self) {
        match self {
            toml::Value::Table(t) => {
                t.insert(key, value);
            }
            toml::Value::Array(a) => a.push(value),
            _ => {}
        }
    }
    fn list_mut(&mut self) -> Option<&mut Vec<Self>> {
        match self {
            toml::Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

impl Tree for serde_json::Value {
    fn slots(&self) -> Vec<Slot> {
        match self {
            serde_json::Value::Object(o) => o.keys().cloned().map(Slot::Key).collect(),
            serde_json::Value::Array(a) => (0..a.len()).map(Slot::Item).collect(),
            _ => Vec::new(),
        }
    }
    fn child_mut(&mut self, slot: &Slot) -> Option<&mut Self> {
        match (self, slot) {
            (serde_json::Value::Object(o), Slot::Key(k)) => o.get_mut(k),
            (serde_json::Value::Array(a), Slot::Item(i)) => a.get_mut(*i),
            _ => None,
        }
    }
    fn remove(&mut self, slot: &Slot) {
        match (self, slot) {
            (serde_json::Value::Object(o), Slot::Key(k)) => {
                o.remove(k);
            }
            (serde_json::Value::Array(a), Slot::Item(i)) if *i < a.len() => {
                a.remove(*i);
            }
            _ => {}
        }
    }
    fn add(&mut self, key: String, value: Self) {
        match self {
            serde_json::Value::Object(o) => {
                o.insert(key, value);
            }
            serde_json::Value::Array(a) => a.push(value),
            _ => {}
        }
    }
    fn list_mut(&mut self) -> Option<&mut Vec<Self>> {
        match self {
            serde_json::Value::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// Strings a scenario or result rarely expects: durations, sizes and percentages that are
/// almost right, names the file system or a terminal may choke on, the words the keys take.
pub const ODD_TEXT: &[&str] = &[
    "",
    " ",
    "0",
    "0s",
    "-1s",
    "1e400s",
    "1.5.2s",
    "NaNs",
    "infs",
    "inf",
    "nan",
    "1h30",
    "1h 30m",
    "30 s",
    "99999999999999999999999h",
    "18446744073709551616ms",
    "5 parsecs",
    "µs",
    "1µs",
    "0.0000001ns",
    "25%",
    "0%",
    "101%",
    "-5%",
    "nan%",
    "1e-300%",
    "24GiB",
    "16EiB",
    "1e30TB",
    "0B",
    "4k",
    "9999999999999999999999",
    "-0",
    "steady",
    "auto",
    "always",
    "never",
    "sqlite",
    "mariadb",
    "mysql",
    "postgres",
    "mssql",
    "sysbench",
    "tpcc",
    "oltp_read_write",
    "oltp_read_only",
    "external",
    "local",
    "spec",
    "uniform",
    "special",
    "pareto",
    "open",
    "closed",
    "../../etc",
    "/",
    "/dev/null",
    "/proc/self/mem",
    "名前",
    "ñame",
    "a\u{0}b",
    "\u{202e}x",
    "😀",
    "\u{feff}",
    "line\nbreak",
    "tab\there",
    "\"quoted\"",
    "back\\slash",
    "mysql://u@h:99999/db",
    "mysql://u:pw@h/db",
    "postgres://@:/",
    "postgres://x@[::1]:5432/",
    "sqlserver://sa@h:1433/db?encrypt=maybe",
    "mysql://",
    "::",
    "a.b.c",
    "[0]",
];

/// An odd string: one of `ODD_TEXT`, any printable text, or a number with a unit.
pub fn odd_string() -> BoxedStrategy<String> {
    const UNITS: &[&str] = &[
        "", "s", "ms", "m", "h", "d", "ns", "us", "%", "GiB", "KB", "x",
    ];
    prop_oneof![
        4 => proptest::sample::select(ODD_TEXT).prop_map(String::from),
        2 => "\\PC{0,24}",
        2 => (any::<u64>(), proptest::sample::select(UNITS)).prop_map(|(n, u)| format!("{n}{u}")),
        2 => (any::<f64>(), proptest::sample::select(UNITS)).prop_map(|(n, u)| format!("{n}{u}")),
        1 => (1usize..5000).prop_map(|n| "x".repeat(n)),
    ]
    .boxed()
}

/// Integers at and around the limits the code checks.
pub const EDGE_INTS: &[i64] = &[
    0,
    -1,
    1,
    2,
    63,
    64,
    65,
    15_000,
    15_001,
    i32::MAX as i64,
    i32::MAX as i64 + 1,
    u32::MAX as i64,
    u32::MAX as i64 + 1,
    1 << 53,
    i64::MAX,
    i64::MIN,
];
