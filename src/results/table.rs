//! A table as the outputs show it: columns with their alignment, rows of cells, notes under
//! it. summary.md and report.html both render the same `Table` (`report::table`).

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub head: String,
    pub align: Align,
}

impl Column {
    pub fn left(head: &str) -> Self {
        Column {
            head: head.to_string(),
            align: Align::Left,
        }
    }

    pub fn right(head: &str) -> Self {
        Column {
            head: head.to_string(),
            align: Align::Right,
        }
    }
}

/// A row's weight: a total row stands out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Plain,
    Total,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub cells: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Sentences under the table.
    pub notes: Vec<String>,
}

impl Table {
    pub fn new(columns: Vec<Column>) -> Self {
        Table {
            columns,
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(Row {
            kind: RowKind::Plain,
            cells,
        });
    }

    pub fn total(&mut self, cells: Vec<String>) {
        self.rows.push(Row {
            kind: RowKind::Total,
            cells,
        });
    }
}
