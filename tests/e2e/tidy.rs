//! Repository rules checked as tests.

use std::path::PathBuf;

use crate::support::repo;

/// Every file below the repository's `roots`, leaving out the folders `skip` names (and build
/// output: `target`, `__pycache__`).
fn files_under(roots: &[&str], skip: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = roots.iter().map(|d| repo().join(d)).collect();
    while let Some(path) = stack.pop() {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if skip.contains(&path) || matches!(name.as_deref(), Some("target" | "__pycache__")) {
            continue;
        }
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).unwrap() {
                stack.push(entry.unwrap().path());
            }
        } else {
            files.push(path);
        }
    }
    files
}

/// The architecture's main invariant: `stages` is pure. Its manifest must never list a crate
/// that does network, disk, clock or async I/O.
#[test]
fn stages_has_no_io_dependency() {
    let manifest = std::fs::read_to_string(repo().join("stages/Cargo.toml")).unwrap();
    let forbidden = [
        "reqwest",
        "tokio",
        "hyper",
        "rusqlite",
        "tantivy",
        "async-std",
        "smol",
        "mio",
        "ureq",
        "curl",
        "postgres",
        "sqlx",
        "chrono",
        "fs-err",
        "tempfile",
        "walkdir",
        "notify",
    ];
    let mut section = String::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        if !section.contains("dependencies") || section.contains("dev-dependencies") {
            continue;
        }
        let name = line.split(['=', ' ', '.']).next().unwrap_or("");
        assert!(
            !forbidden.contains(&name),
            "stages/Cargo.toml lists `{name}` in {section}: stages must stay pure (no network, disk, clock or async runtime)"
        );
    }
}

/// A clone of the repository alone runs every test: no test, no script the tests run and no CI
/// step reads material from outside it (fixtures live in `tests/data`, with their sources).
#[test]
fn tests_read_nothing_outside_the_repository() {
    // Built from pieces so that this file does not match itself.
    let needles = [
        ["..", "/shared"].concat(),
        ["sha", "red/data"].concat(),
        format!("{q}shared{q}", q = '"'),
        ["/work", "/"].concat(),
    ];
    let mut offenders = Vec::new();
    let fixtures = repo().join("tests").join("data");
    for path in files_under(
        &["pipeline", "stages", "tests", "scripts", ".ci"],
        &[fixtures],
    ) {
        // Text files only: sources, scripts, manifests.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            if needles.iter().any(|needle| line.contains(needle.as_str())) {
                offenders.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "these lines refer to material outside the repository; copy what a test needs into \
         tests/data (noting its source and licence in tests/data/README.md):\n{}",
        offenders.join("\n")
    );
}

/// Every source file outside tests and vendored code to a size a reader can hold (about 800
/// lines): a larger one becomes a folder along its seams. Tests (`tests.rs`, `*_tests.rs`, the
/// `tests/` folders) are exempt.
#[test]
fn source_files_stay_readable() {
    const MAX_LINES: usize = 820;
    let mut long = Vec::new();
    for path in files_under(&["pipeline", "stages/src"], &[]) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".rs") || name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        if lines > MAX_LINES {
            long.push(format!("{}: {lines} lines", path.display()));
        }
    }
    assert!(
        long.is_empty(),
        "split these along their seams:\n{}",
        long.join("\n")
    );
}

/// The wall clock is read in `pipeline/ground/clock.rs` only (a simulation's virtual clock and
/// every stored time go through it); `stages` reads no clock at all.
#[test]
fn the_wall_clock_is_read_in_one_place() {
    let clock = repo().join("pipeline/ground/clock.rs");
    let mut reads = Vec::new();
    for path in files_under(&["pipeline", "stages/src"], &[]) {
        if path == clock || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["SystemTime::now", "Utc::now", "Local::now"]
                .iter()
                .any(|read| code.contains(read))
            {
                reads.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        reads.is_empty(),
        "read the clock through crate::ground::clock:\n{}",
        reads.join("\n")
    );
}

/// The storage boundary: SQL and the database handle live in `pipeline/store*` only, so that
/// another store can implement the same calls.
#[test]
fn sql_stays_in_the_store() {
    let mut leaks = Vec::new();
    let store = [
        repo().join("pipeline/store"),
        repo().join("pipeline/store.rs"),
    ];
    for path in files_under(&["pipeline", "stages/src"], &store) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["rusqlite", "SELECT ", "UPDATE urls", "INSERT INTO"]
                .iter()
                .any(|needle| code.contains(needle))
            {
                leaks.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "SQL outside pipeline/store*: move it behind a Store method:\n{}",
        leaks.join("\n")
    );
}

/// The pipeline's folders by role, bottom first, as `pipeline/lib.rs` lists them.
const LAYERS: &[&str] = &[
    "ground", "topic", "warc", "store", "fetch", "seeds", "crawl", "extract", "annotate", "index",
    "export", "parse", "report", "explore", "commands", "serve", "cli", "main",
];

/// The layer of a file of `pipeline/`: its folder, or `cli` and `main` for those files.
fn layer_of(path: &std::path::Path) -> Option<usize> {
    let rel = path.strip_prefix(repo().join("pipeline")).ok()?;
    let first = rel
        .components()
        .next()?
        .as_os_str()
        .to_string_lossy()
        .into_owned();
    let name = first.trim_end_matches(".rs");
    LAYERS.iter().position(|l| *l == name)
}

/// The layers a line of code names (`crate::X`, `glaneur::X`), comments left out.
fn named_layers(line: &str) -> Vec<usize> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    for prefix in ["crate::", "glaneur::"] {
        for (at, _) in code.match_indices(prefix) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if let Some(i) = LAYERS.iter().position(|l| *l == name) {
                out.push(i);
            }
        }
    }
    out
}

/// Data flows one way through the pipeline's folders: a file imports from its own folder and
/// from the folders below it (`LAYERS`), never from one above.
#[test]
fn imports_only_go_down_the_layers() {
    let mut upward = Vec::new();
    for path in files_under(&["pipeline"], &[]) {
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("lib.rs") {
            continue;
        }
        let Some(own) = layer_of(&path) else {
            upward.push(format!("{}: in no layer of LAYERS", path.display()));
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text.lines().enumerate() {
            for named in named_layers(line) {
                if named > own {
                    upward.push(format!(
                        "{}:{}: {} imports {}: {}",
                        path.display(),
                        n + 1,
                        LAYERS[own],
                        LAYERS[named],
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports that go up the layers (pipeline/lib.rs lists them, bottom first): move the \
         item down to where its users are:\n{}",
        upward.join("\n")
    );
}

/// A crate's source files by module path (`a::b` for `src/a/b.rs` and `src/a/b/mod.rs`).
fn modules_of(root: &str) -> std::collections::BTreeMap<Vec<String>, PathBuf> {
    let base = repo().join(root);
    let mut out = std::collections::BTreeMap::new();
    for path in files_under(&[root], &[]) {
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(&base).unwrap();
        let mut parts: Vec<String> = rel
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        out.insert(parts, path);
    }
    out
}

/// The paths a file names: `crate::…`, `super::…`, `self::…`, the groups of a `use` spread
/// (`use super::{a, b::c}` names `super::a` and `super::b::c`).
fn named_paths(text: &str) -> Vec<Vec<String>> {
    fn spread(prefix: &str, rest: &str, out: &mut Vec<String>) {
        let rest = rest.trim();
        if let Some(inner) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        spread(prefix, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            spread(prefix, &inner[start..], out);
        } else if let Some((head, tail)) = rest.split_once("::{") {
            spread(&format!("{prefix}{head}::"), &format!("{{{tail}"), out);
        } else if !rest.is_empty() {
            out.push(format!("{prefix}{rest}"));
        }
    }
    let mut paths = Vec::new();
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    for statement in code.split(';') {
        let s = statement.trim();
        if let Some(used) = s
            .strip_prefix("use ")
            .or_else(|| s.strip_prefix("pub use "))
        {
            spread("", &used.split_whitespace().collect::<String>(), &mut paths);
        }
    }
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(path);
        }
    }
    paths
        .into_iter()
        .map(|p| p.split("::").map(str::to_string).collect())
        .collect()
}

/// No file imports, through other files, a file that imports it: a folder's files stand in
/// an order too (a module's `mod.rs` naming its own children is not an import).
#[test]
fn no_file_imports_itself_back() {
    for root in ["pipeline", "stages/src"] {
        let modules = modules_of(root);
        let mut edges: std::collections::BTreeMap<&PathBuf, std::collections::BTreeSet<&PathBuf>> =
            std::collections::BTreeMap::new();
        for (module, path) in &modules {
            let is_mod = path
                .file_name()
                .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
            for named in named_paths(&std::fs::read_to_string(path).unwrap()) {
                let mut at: Vec<String> = module.clone();
                let mut rest = named.as_slice();
                match rest.first().map(String::as_str) {
                    Some("crate") => {
                        at.clear();
                        rest = &rest[1..];
                    }
                    Some("self") => rest = &rest[1..],
                    Some("super") => {
                        while rest.first().is_some_and(|s| s == "super") {
                            at.pop();
                            rest = &rest[1..];
                        }
                    }
                    _ => continue,
                }
                at.extend(rest.iter().cloned());
                // The longest module the path starts with.
                let target = (0..=at.len())
                    .rev()
                    .find_map(|n| modules.get(&at[..n]).map(|p| (n, p)));
                let Some((n, target)) = target else { continue };
                let inside_own = is_mod && n > module.len() && at[..module.len()] == module[..];
                if target != path && !inside_own {
                    edges.entry(path).or_default().insert(target);
                }
            }
        }
        // Depth-first search for a cycle.
        let mut state: std::collections::BTreeMap<&PathBuf, u8> = std::collections::BTreeMap::new();
        let mut stack: Vec<&PathBuf> = Vec::new();
        fn visit<'a>(
            node: &'a PathBuf,
            edges: &std::collections::BTreeMap<
                &'a PathBuf,
                std::collections::BTreeSet<&'a PathBuf>,
            >,
            state: &mut std::collections::BTreeMap<&'a PathBuf, u8>,
            stack: &mut Vec<&'a PathBuf>,
        ) -> Option<Vec<&'a PathBuf>> {
            match state.get(node) {
                Some(2) => return None,
                Some(1) => {
                    let from = stack.iter().position(|p| *p == node).unwrap_or(0);
                    return Some(stack[from..].to_vec());
                }
                _ => {}
            }
            state.insert(node, 1);
            stack.push(node);
            for next in edges.get(node).into_iter().flatten() {
                if let Some(cycle) = visit(next, edges, state, stack) {
                    return Some(cycle);
                }
            }
            stack.pop();
            state.insert(node, 2);
            None
        }
        for node in modules.values() {
            if let Some(cycle) = visit(node, &edges, &mut state, &mut stack) {
                let names: Vec<String> = cycle.iter().map(|p| p.display().to_string()).collect();
                panic!(
                    "these files import each other in a circle: move what they share into a \
                     file below them:\n{}",
                    names.join(" -> ")
                );
            }
        }
    }
}

/// docs/ARCHITECTURE.md maps every folder of `pipeline/` and `stages/src/`: a folder added
/// without its row fails here.
#[test]
fn the_architecture_page_maps_every_folder() {
    let page = std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    for root in ["pipeline", "stages/src"] {
        for entry in std::fs::read_dir(repo().join(root)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let name = format!("`{root}/{}/`", path.file_name().unwrap().to_string_lossy());
                if !page.contains(&name) {
                    missing.push(name);
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md does not map {}",
        missing.join(", ")
    );
}

/// Every token format of the export's table is documented in the guide's exports page, under
/// the folder it writes.
#[test]
fn the_guide_documents_every_token_format() {
    let page = std::fs::read_to_string(repo().join("docs/guide/exports.md")).unwrap();
    for format in stages::export::formats::TOKEN_FORMATS {
        assert!(
            page.contains(&format!("`{}/", format.name)),
            "docs/guide/exports.md does not document the `{}` format",
            format.name
        );
    }
}
