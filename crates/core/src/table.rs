//! What the outputs show, as values: a `Table` (columns with their alignment, rows of cells,
//! notes under it) and a `Section` (a titled run of paragraphs, lists and tables). Whoever has
//! figures to show builds them (the report's own parts, a benchmark's folder); summary.md,
//! report.html, compare.md and compare.html all render the same values (`report::table`).

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

/// One cell: its text, and whether its figure failed the rule it is judged by.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub text: String,
    pub failed: bool,
}

impl Cell {
    /// A cell judged by a rule: marked when it did not pass.
    pub fn judged(text: String, passed: bool) -> Self {
        Cell {
            text,
            failed: !passed,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell {
            text,
            failed: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub cells: Vec<Cell>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The HTML table's class, when a page or a test looks for it.
    pub class: Option<String>,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Sentences under the table.
    pub notes: Vec<String>,
}

impl Table {
    pub fn new(columns: Vec<Column>) -> Self {
        Table {
            class: None,
            columns,
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A table whose first column is a left-aligned label and every other one a right-aligned
    /// figure.
    pub fn figures(label: &str, heads: &[&str]) -> Self {
        let first = std::iter::once(Column::left(label));
        Table::new(
            first
                .chain(heads.iter().map(|h| Column::right(h)))
                .collect(),
        )
    }

    /// The same table with HTML class `class`.
    pub fn with_class(mut self, class: &str) -> Self {
        self.class = Some(class.to_string());
        self
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.cells(cells.into_iter().map(Cell::from).collect());
    }

    /// A row of cells some of which may be judged.
    pub fn cells(&mut self, cells: Vec<Cell>) {
        self.rows.push(Row {
            kind: RowKind::Plain,
            cells,
        });
    }

    pub fn total(&mut self, cells: Vec<String>) {
        self.rows.push(Row {
            kind: RowKind::Total,
            cells: cells.into_iter().map(Cell::from).collect(),
        });
    }
}

/// A piece of running text.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    /// A figure that matters most (bold).
    Strong(String),
    /// A command or a name as typed.
    Code(String),
    /// A verdict that stands out: green when passed, red otherwise.
    Verdict {
        passed: bool,
        text: String,
    },
}

/// Running text: spans one after another.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Text(pub Vec<Span>);

impl Text {
    pub fn plain(text: impl Into<String>) -> Self {
        Text(vec![Span::Plain(text.into())])
    }

    /// This text followed by plain `text`.
    pub fn and(mut self, text: impl Into<String>) -> Self {
        self.0.push(Span::Plain(text.into()));
        self
    }

    /// This text followed by `text` in bold.
    pub fn strong(mut self, text: impl Into<String>) -> Self {
        self.0.push(Span::Strong(text.into()));
        self
    }

    /// This text followed by `text` as code.
    pub fn code(mut self, text: impl Into<String>) -> Self {
        self.0.push(Span::Code(text.into()));
        self
    }

    /// This text followed by a verdict: `good` when passed, `bad` otherwise.
    pub fn verdict(mut self, passed: bool, good: &str, bad: &str) -> Self {
        let text = if passed { good } else { bad }.to_string();
        self.0.push(Span::Verdict { passed, text });
        self
    }
}

/// How a list item reads: plain, a warning, or a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Warn,
    Fail,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub tone: Tone,
    pub text: Text,
}

/// One part of a section, in the order shown.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A paragraph; `class` names it in HTML.
    Paragraph {
        class: Option<String>,
        text: Text,
    },
    /// A list; `class` names it in HTML.
    List {
        class: Option<String>,
        items: Vec<Item>,
    },
    Table(Table),
    /// A table shown on demand under a one-line summary.
    Folded {
        summary: String,
        table: Table,
    },
}

impl Block {
    /// A paragraph with no class.
    pub fn paragraph(text: Text) -> Self {
        Block::Paragraph { class: None, text }
    }

    /// A paragraph with HTML class `class`.
    pub fn classed(class: &str, text: Text) -> Self {
        Block::Paragraph {
            class: Some(class.to_string()),
            text,
        }
    }
}

/// A titled part of a page: what a benchmark (or a report part) has to show, rendered alike in
/// markdown and HTML.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub title: String,
    /// The HTML heading's class, when a page or a test looks for it.
    pub class: Option<String>,
    pub blocks: Vec<Block>,
}

impl Section {
    pub fn new(title: impl Into<String>) -> Self {
        Section {
            title: title.into(),
            class: None,
            blocks: Vec::new(),
        }
    }

    /// The same section with its heading's HTML class `class`.
    pub fn with_class(mut self, class: &str) -> Self {
        self.class = Some(class.to_string());
        self
    }

    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }
}
