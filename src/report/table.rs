//! The one table model (`results::table::Table`) as summary.md and report.html write it.

use std::fmt::Write;

use super::svg::escape;
use crate::results::table::{Align, RowKind, Table};

/// A markdown table: the heads, the alignment line, the rows (a total row's first two cells
/// in bold), then after a blank line each note on a line of its own.
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
            .map(|(i, c)| match row.kind {
                RowKind::Total if i < 2 && !c.is_empty() => format!("**{c}**"),
                _ => c.clone(),
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

/// An HTML table: left-aligned columns after the first with class "l", a total row with
/// class "total", every text escaped; each note a paragraph after it.
pub fn html(s: &mut String, t: &Table) {
    let class = |i: usize, align: Align| match (i, align) {
        (1.., Align::Left) => " class=\"l\"",
        _ => "",
    };
    s.push_str("<table><tr>");
    for (i, c) in t.columns.iter().enumerate() {
        let _ = write!(s, "<th{}>{}</th>", class(i, c.align), escape(&c.head));
    }
    s.push_str("</tr>");
    for row in &t.rows {
        match row.kind {
            RowKind::Plain => s.push_str("<tr>"),
            RowKind::Total => s.push_str("<tr class=\"total\">"),
        }
        for (i, (cell, c)) in row.cells.iter().zip(&t.columns).enumerate() {
            let _ = write!(s, "<td{}>{}</td>", class(i, c.align), escape(cell));
        }
        s.push_str("</tr>");
    }
    s.push_str("</table>");
    for note in &t.notes {
        let _ = write!(s, "<p>{}</p>", escape(note));
    }
}
