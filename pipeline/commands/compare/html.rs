//! `compare.html`: the comparison as one self-contained page — the corpora side by side, heat
//! maps of the pairs (χ²/df, documents' and hosts' Jaccard) and each corpus's keywords against
//! every other.
//!
//! **In:** a [`Comparison`]. **Out:** HTML text.
//!
//! **Invariants:** no script and no reference to another file; every value written is escaped.

use std::fmt::Write as _;

use super::{Comparison, OTHERS, Pair};

fn esc(text: &str) -> String {
    stages::export::graph::xml_escape(text)
}

/// The whole page.
pub fn page(c: &Comparison) -> String {
    let mut s = String::new();
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>glaneur: corpora compared</title>\n<style>\n\
         body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}\n\
         table{border-collapse:collapse;margin:.5em 0 1.5em}\n\
         th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;vertical-align:top}\n\
         th{background:#f3f3f3}\ntd.t,th.t{text-align:left}\n\
         .kw td{text-align:left}\n.kws{display:flex;flex-wrap:wrap;gap:0 2.5em}\n.note{color:#555;max-width:60em}\n\
         </style>\n</head>\n<body>\n<h1>Corpora compared</h1>\n",
    );
    corpora(&mut s, c);
    let n = c.corpora.len();
    let names: Vec<&str> = c.corpora.iter().map(|k| k.topic.as_str()).collect();
    let pair = |i: usize, j: usize| -> Option<&Pair> {
        c.pairs
            .iter()
            .find(|p| (p.a == names[i] && p.b == names[j]) || (p.a == names[j] && p.b == names[i]))
    };
    let _ = writeln!(
        s,
        "<h2 id=\"similarity\">Corpus similarity</h2>\n<p class=\"note\">Kilgarriff's χ² on \
         the {} most frequent words of each pair, both corpora scaled to the smaller one's size, \
         divided by its degrees of freedom: 0 when the words have the same proportions; the \
         larger, the less alike. Darker is more alike.</p>",
        c.settings.similarity_words
    );
    // Shaded over the range of the pairs: the most alike pair darkest, the least alike white.
    let values = || c.pairs.iter().map(|p| p.similarity.chi2_per_df);
    let (low, high) = (
        values().fold(f64::INFINITY, f64::min),
        values().fold(0.0, f64::max),
    );
    heat_map(&mut s, "chi2", &names, n, |i, j| {
        pair(i, j).map(|p| {
            let v = p.similarity.chi2_per_df;
            let shade = if high > low {
                (high - v) / (high - low)
            } else {
                0.5
            };
            (format!("{v:.2}"), shade)
        })
    });
    s.push_str("<h2 id=\"overlap\">Overlap</h2>\n<p class=\"note\">Jaccard index |A ∩ B| / |A ∪ B| of the documents' URLs (below the diagonal) and of their hosts (above).</p>\n");
    heat_map(&mut s, "jaccard", &names, n, |i, j| {
        pair(i, j).map(|p| {
            let v = if i > j {
                p.documents_jaccard
            } else {
                p.hosts_jaccard
            };
            (format!("{v:.3}"), v)
        })
    });
    keywords(&mut s, c, &names);
    s.push_str("</body>\n</html>\n");
    s
}

fn corpora(s: &mut String, c: &Comparison) {
    s.push_str(
        "<h2 id=\"corpora\">Corpora</h2>\n<table id=\"corpora-table\">\n<tr><th class=\"t\">topic</th>\
         <th>seeds</th><th>fetched</th><th>pages</th><th>harvest</th><th>documents</th>\
         <th>fetches per document</th><th>duplicates</th><th>tokens</th><th>words</th>\
         <th>types</th><th>STTR</th><th>hosts</th><th class=\"t\">top host</th>\
         <th>effective hosts</th><th class=\"t\">languages</th></tr>\n",
    );
    for k in &c.corpora {
        let langs: Vec<String> = k
            .languages
            .iter()
            .take(4)
            .map(|(l, x)| format!("{} {:.0} %", esc(l), x * 100.0))
            .collect();
        let _ = writeln!(
            s,
            "<tr><td class=\"t\" title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td class=\"t\">{} ({:.0} %)</td><td>{:.1}</td><td class=\"t\">{}</td></tr>",
            esc(&k.run),
            esc(&k.topic),
            k.seeds,
            k.fetched,
            k.pages,
            k.harvest_rate,
            k.documents,
            k.fetches_per_document
                .map_or("–".into(), |x| format!("{x:.2}")),
            k.duplicates,
            k.tokens,
            k.words,
            k.types,
            k.sttr.map_or("–".into(), |x| format!("{x:.3}")),
            k.hosts,
            esc(k.top_host.as_deref().unwrap_or("–")),
            k.top_host_share * 100.0,
            k.effective_hosts,
            langs.join(", ")
        );
    }
    let _ = writeln!(
        s,
        "</table>\n<p class=\"note\">Harvest: pages the formula accepts ÷ HTML and text pages \
         fetched. STTR: mean type/token ratio of consecutive {}-word segments. Effective hosts: \
         1 / Σ share², the number of equally large hosts as concentrated as the corpus.</p>",
        c.settings.sttr_segment
    );
}

/// A matrix of the corpora; `cell(i, j)` gives the text and a shade in 0..=1 (1 darkest).
fn heat_map(
    s: &mut String,
    id: &str,
    names: &[&str],
    n: usize,
    cell: impl Fn(usize, usize) -> Option<(String, f64)>,
) {
    let _ = write!(s, "<table id=\"{id}\">\n<tr><th></th>");
    for name in names {
        let _ = write!(s, "<th>{}</th>", esc(name));
    }
    s.push_str("</tr>\n");
    for (i, name) in names.iter().enumerate().take(n) {
        let _ = write!(s, "<tr><th class=\"t\">{}</th>", esc(name));
        for j in 0..n {
            match (i != j).then(|| cell(i, j)).flatten() {
                Some((text, shade)) => {
                    let shade = shade.clamp(0.0, 1.0);
                    // From white to a deep blue; white text on the darker half.
                    let (r, g, b) = (
                        255.0 - shade * 222.0,
                        255.0 - shade * 153.0,
                        255.0 - shade * 75.0,
                    );
                    let fg = if shade > 0.55 { "#fff" } else { "#222" };
                    let _ = write!(
                        s,
                        "<td style=\"background:rgb({r:.0},{g:.0},{b:.0});color:{fg}\">{}</td>",
                        esc(&text)
                    );
                }
                None => s.push_str("<td>–</td>"),
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
}

fn keywords(s: &mut String, c: &Comparison, names: &[&str]) {
    let _ = writeln!(
        s,
        "<h2 id=\"keywords\">Keywords</h2>\n<p class=\"note\">Each corpus's words against each \
         other corpus{}, by simple maths (fpm + {n}) / (fpm<sub>ref</sub> + {n}); the \
         log-likelihood is in <code>keywords.csv</code>.</p>",
        if names.len() > 2 {
            " and against all the others joined"
        } else {
            ""
        },
        n = c.settings.simple_maths_n
    );
    s.push_str("<div class=\"kws\">\n");
    for focus in names {
        let mut references: Vec<&str> = names.iter().copied().filter(|r| r != focus).collect();
        if names.len() > 2 {
            references.push(OTHERS);
        }
        let _ = write!(
            s,
            "<div>\n<h3>{}</h3>\n<table class=\"kw\">\n<tr>",
            esc(focus)
        );
        for r in &references {
            let _ = write!(s, "<th class=\"t\">against {}</th>", esc(r));
        }
        s.push_str("</tr>\n");
        let columns: Vec<Vec<&super::KeywordRow>> = references
            .iter()
            .map(|r| {
                c.keywords
                    .iter()
                    .filter(|k| k.focus == *focus && k.reference == *r)
                    .collect()
            })
            .collect();
        let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..rows {
            s.push_str("<tr>");
            for column in &columns {
                match column.get(i) {
                    Some(k) => {
                        let _ = write!(
                            s,
                            "<td title=\"{} / {}\">{}</td>",
                            k.focus_freq,
                            k.reference_freq,
                            esc(&k.word)
                        );
                    }
                    None => s.push_str("<td></td>"),
                }
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n</div>\n");
    }
    s.push_str("</div>\n");
}
