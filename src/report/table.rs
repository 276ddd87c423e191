//! The one model of what the outputs show (`drivebench_core::table`: `Table`, `Section`) as
//! summary.md and compare.md (`markdown`, `section_markdown`) and report.html and compare.html
//! (`html`, `section_html`) write it.

use std::fmt::Write;

use super::svg::escape;
use drivebench_core::table::{Align, Block, Cell, RowKind, Section, Span, Table, Text, Tone};

/// A markdown table: the heads, the alignment line, the rows (a total row's first two cells
/// in bold, a failed cell followed by FAIL), then after a blank line each note on a line of
/// its own.
pub fn markdown(s: &mut String, t: &Table) {
    let heads: Vec<&str> = t.columns.iter().map(|c| c.head.as_str()).collect();
    let _ = writeln!(s, "| {} |", heads.join(" | "));
    let aligns: String = t
        .columns
        .iter()
        .map(|c| match c.align {
            Align::Left => "---|",
            Align::Right => "---:|",
        })
        .collect();
    let _ = writeln!(s, "|{aligns}");
    for row in &t.rows {
        let cells: Vec<String> = row
            .cells
            .iter()
            .enumerate()
            .map(|(i, c)| match (row.kind, c) {
                (RowKind::Total, c) if i < 2 && !c.text.is_empty() => format!("**{}**", c.text),
                (_, Cell { text, failed: true }) => format!("{text} FAIL"),
                (_, c) => c.text.clone(),
            })
            .collect();
        let _ = writeln!(s, "| {} |", cells.join(" | "));
    }
    if !t.notes.is_empty() {
        let _ = writeln!(s);
    }
    for note in &t.notes {
        let _ = writeln!(s, "{note}");
    }
}

/// An HTML table (with its class, when it has one): left-aligned columns after the first with
/// class "l", a failed cell with class "fail", a total row with class "total", every text
/// escaped; each note a paragraph after it.
pub fn html(s: &mut String, t: &Table) {
    let class = |i: usize, align: Align, failed: bool| match (i, align, failed) {
        (1.., Align::Left, false) => " class=\"l\"",
        (1.., Align::Left, true) => " class=\"l fail\"",
        (_, _, true) => " class=\"fail\"",
        _ => "",
    };
    let _ = write!(s, "<table{}><tr>", class_attr(t.class.as_deref()));
    for (i, c) in t.columns.iter().enumerate() {
        let _ = write!(
            s,
            "<th{}>{}</th>",
            class(i, c.align, false),
            escape(&c.head)
        );
    }
    s.push_str("</tr>");
    for row in &t.rows {
        match row.kind {
            RowKind::Plain => s.push_str("<tr>"),
            RowKind::Total => s.push_str("<tr class=\"total\">"),
        }
        for (i, (cell, c)) in row.cells.iter().zip(&t.columns).enumerate() {
            let attr = class(i, c.align, cell.failed);
            let _ = write!(s, "<td{attr}>{}</td>", escape(&cell.text));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    for note in &t.notes {
        let _ = write!(s, "<p>{}</p>", escape(note));
    }
}

fn class_attr(class: Option<&str>) -> String {
    class
        .map(|c| format!(" class=\"{}\"", escape(c)))
        .unwrap_or_default()
}

/// Running text in markdown: bold as `**`, code in backticks, a verdict in bold.
fn text_markdown(t: &Text) -> String {
    t.0.iter()
        .map(|span| match span {
            Span::Plain(x) => x.clone(),
            Span::Strong(x) | Span::Verdict { text: x, .. } => format!("**{x}**"),
            Span::Code(x) => format!("`{x}`"),
        })
        .collect()
}

/// Running text in HTML, escaped: bold in `<b>`, code in `<code>`, a verdict a coloured badge.
fn text_html(t: &Text) -> String {
    t.0.iter()
        .map(|span| match span {
            Span::Plain(x) => escape(x),
            Span::Strong(x) => format!("<b>{}</b>", escape(x)),
            Span::Code(x) => format!("<code>{}</code>", escape(x)),
            Span::Verdict { passed, text } => {
                let class = if *passed { "ok" } else { "bad" };
                format!("<span class=\"status {class}\">{}</span>", escape(text))
            }
        })
        .collect()
}

/// A section in markdown under a heading of `level` (2: `##`): paragraphs, lists (a failed
/// item led by FAILED, as markdown has no colour), tables, a folded table after its summary.
pub fn section_markdown(s: &mut String, sec: &Section, level: usize) {
    let _ = writeln!(s, "\n{} {}", "#".repeat(level), sec.title);
    for block in &sec.blocks {
        s.push('\n');
        match block {
            Block::Paragraph { text, .. } => {
                let _ = writeln!(s, "{}", text_markdown(text));
            }
            Block::List { items, .. } => {
                for item in items {
                    let lead = if item.tone == Tone::Fail {
                        "FAILED "
                    } else {
                        ""
                    };
                    let _ = writeln!(s, "- {lead}{}", text_markdown(&item.text));
                }
            }
            Block::Table(t) => markdown(s, t),
            Block::Folded { summary, table } => {
                let _ = writeln!(s, "{summary}:\n");
                markdown(s, table);
            }
        }
    }
}

/// A section in HTML under an `<h{level}>` heading (with the section's class): paragraphs and
/// lists with their classes (an item's tone its class), tables, a folded table in `<details>`.
pub fn section_html(s: &mut String, sec: &Section, level: usize) {
    let _ = write!(
        s,
        "<h{level}{}>{}</h{level}>",
        class_attr(sec.class.as_deref()),
        escape(&sec.title)
    );
    for block in &sec.blocks {
        match block {
            Block::Paragraph { class, text } => {
                let _ = write!(
                    s,
                    "<p{}>{}</p>",
                    class_attr(class.as_deref()),
                    text_html(text)
                );
            }
            Block::List { class, items } => {
                let _ = write!(s, "<ul{}>", class_attr(class.as_deref()));
                for item in items {
                    let tone = match item.tone {
                        Tone::Plain => None,
                        Tone::Warn => Some("warn"),
                        Tone::Fail => Some("fail"),
                    };
                    let _ = write!(s, "<li{}>{}</li>", class_attr(tone), text_html(&item.text));
                }
                s.push_str("</ul>");
            }
            Block::Table(t) => html(s, t),
            Block::Folded { summary, table } => {
                let _ = write!(s, "<details><summary>{}</summary>", escape(summary));
                html(s, table);
                s.push_str("</details>");
            }
        }
    }
}
