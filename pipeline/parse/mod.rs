//! The parse stage: Syntex and Upery (Didier Bourigault's dependency parser and term
//! extractor, and his distributional analyser) run on the tagged corpus after the export, with
//! the command lines of the topic's `[parse]`.
//!
//! **In:** `tagged/*.tagged` (TreeTagger's output shape, which Syntex reads), then `syntex/`.
//! **Out:** `syntex/` and `upery/` as those programs fill them; a [`ParseReport`] listing what
//! each wrote.
//!
//! **Invariants:** `{in}` and `{out}` in a command line become its input and output, quoted
//! for the shell (without them, the inputs then the output are appended, as
//! `scripts/syntex` and `scripts/upery` do); a program that fails or writes nothing is
//! reported with what it said, and the corpus stays as the export left it; a program whose
//! inputs and command are those of its last successful run is not run again.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::Context;

use crate::topic::ParseSection;

/// The file in a program's output folder recording what it was run on.
const RAN_ON: &str = ".glaneur-ran-on";

/// What the parse stage did.
#[derive(Debug, Default, serde::Serialize)]
pub struct ParseReport {
    /// Syntex, when `[parse] syntex` is given.
    pub syntex: Option<ToolRun>,
    /// Upery, when `[parse] upery` is given.
    pub upery: Option<ToolRun>,
}

/// One program's run.
#[derive(Debug, Default, serde::Serialize)]
pub struct ToolRun {
    /// The command line run (after `{in}` and `{out}`).
    pub command: String,
    /// Its output folder, in the run folder.
    pub folder: String,
    /// Files it holds, and their bytes.
    pub files: u64,
    /// Bytes of those files.
    pub bytes: u64,
    /// Not run again: its inputs and command are those of its last run.
    pub reused: bool,
    /// Why it gave nothing (it failed, wrote nothing, had no input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Seconds.
    pub seconds: f64,
}

/// Runs Syntex, then Upery on what Syntex wrote.
pub fn run(
    parse: &ParseSection,
    run_dir: &Path,
    say: &dyn Fn(&str),
) -> anyhow::Result<ParseReport> {
    let mut report = ParseReport::default();
    if let Some(command) = &parse.syntex {
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(run_dir.join("tagged"))
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "tagged"))
                    .collect()
            })
            .unwrap_or_default();
        inputs.sort();
        report.syntex = Some(run_tool("syntex", command, &inputs, run_dir, say)?);
    }
    if let Some(command) = &parse.upery {
        let syntex = run_dir.join("syntex");
        let usable = report.syntex.as_ref().is_some_and(|s| s.problem.is_none());
        let inputs = if usable { vec![syntex] } else { Vec::new() };
        report.upery = Some(run_tool("upery", command, &inputs, run_dir, say)?);
    }
    Ok(report)
}

/// Runs one program on `inputs` into `RUN/name/`.
fn run_tool(
    name: &str,
    command: &str,
    inputs: &[PathBuf],
    run_dir: &Path,
    say: &dyn Fn(&str),
) -> anyhow::Result<ToolRun> {
    let started = Instant::now();
    let out = run_dir.join(name);
    let line = command_line(command, inputs, &out);
    let mut tool = ToolRun {
        command: line.clone(),
        folder: format!("{name}/"),
        ..ToolRun::default()
    };
    if inputs.is_empty() {
        tool.problem = Some(match name {
            "syntex" => "no tagged file in tagged/ (tag the corpus: [annotate])".into(),
            _ => "Syntex gave nothing to read".into(),
        });
        return Ok(tool);
    }
    let ran_on = format!("{line}\n{}", fingerprint(inputs));
    let before = std::fs::read_to_string(out.join(RAN_ON)).unwrap_or_default();
    if before == ran_on {
        tool.reused = true;
    } else {
        if out.exists() {
            std::fs::remove_dir_all(&out)
                .with_context(|| format!("cannot clear {}", out.display()))?;
        }
        std::fs::create_dir_all(&out)
            .with_context(|| format!("cannot create {}", out.display()))?;
        say(&format!("{name}: {line}"));
        tool.problem = execute(&line, &out);
        if tool.problem.is_none() {
            std::fs::write(out.join(RAN_ON), &ran_on)
                .with_context(|| format!("cannot write {}", out.join(RAN_ON).display()))?;
        }
    }
    (tool.files, tool.bytes) = contents(&out);
    tool.seconds = started.elapsed().as_secs_f64();
    Ok(tool)
}

/// Runs the shell command line `line`; what went wrong, if anything.
fn execute(line: &str, out: &Path) -> Option<String> {
    let log = out.join(".glaneur-output.log");
    let file = std::fs::File::create(&log).ok()?;
    let err = file.try_clone().ok()?;
    let status = Command::new("sh")
        .arg("-c")
        .arg(line)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .status();
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    let last = said
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    match status {
        Err(e) => Some(format!("cannot run sh ({e})")),
        Ok(s) if !s.success() => Some(format!("the command failed ({s}): {last}")),
        Ok(_) if contents(out).0 == 0 => Some(format!(
            "the command succeeded but wrote nothing into {}{}",
            out.display(),
            if last.is_empty() {
                String::new()
            } else {
                format!(" (it said: {last})")
            }
        )),
        Ok(_) => None,
    }
}

/// `command` with `{in}` and `{out}` replaced (quoted), or the inputs and output appended.
fn command_line(command: &str, inputs: &[PathBuf], out: &Path) -> String {
    let quoted_in = inputs
        .iter()
        .map(|p| quote(&p.display().to_string()))
        .collect::<Vec<_>>()
        .join(" ");
    let quoted_out = quote(&out.display().to_string());
    if command.contains("{in}") || command.contains("{out}") {
        command
            .replace("{in}", &quoted_in)
            .replace("{out}", &quoted_out)
    } else {
        format!("{command} {quoted_in} {quoted_out}")
    }
}

/// A word for the shell, whatever it holds.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// Names, sizes and contents' digests of the inputs (a folder: of the files in it): a file
/// written again with the same bytes (a re-export) is the same input.
fn fingerprint(inputs: &[PathBuf]) -> String {
    use md5::{Digest, Md5};
    use std::io::Read;
    let mut lines = Vec::new();
    for input in inputs {
        let files: Vec<PathBuf> = if input.is_dir() {
            let mut files: Vec<PathBuf> = walk(input);
            files.sort();
            files
        } else {
            vec![input.clone()]
        };
        for file in files {
            let mut hasher = Md5::new();
            let mut size = 0u64;
            if let Ok(mut handle) = std::fs::File::open(&file) {
                let mut buf = vec![0u8; 1 << 20];
                while let Ok(n) = handle.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    size += n as u64;
                    hasher.update(&buf[..n]);
                }
            }
            let digest: String = hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            lines.push(format!("{} {size} {digest}", file.display()));
        }
    }
    lines.join("\n")
}

/// The files under `dir` (glaneur's own notes left out).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".glaneur") {
            continue;
        }
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Files and bytes in `dir` (glaneur's own notes left out).
fn contents(dir: &Path) -> (u64, u64) {
    let files = walk(dir);
    let bytes = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    (files.len() as u64, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_quote_paths_whatever_they_hold() {
        let inputs = [
            PathBuf::from("/r/tagged/a b.tagged"),
            PathBuf::from("/r/it's.tagged"),
        ];
        let out = Path::new("/r/syntex");
        assert_eq!(
            command_line("syntex -o {out} {in}", &inputs, out),
            "syntex -o '/r/syntex' '/r/tagged/a b.tagged' '/r/it'\\''s.tagged'"
        );
        assert_eq!(
            command_line(
                "upery",
                &[PathBuf::from("/r/syntex")],
                Path::new("/r/upery")
            ),
            "upery '/r/syntex' '/r/upery'"
        );
    }
}
