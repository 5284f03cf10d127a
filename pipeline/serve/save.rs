//! Writing a topic from the form: its uploaded result pages and its `topic.toml`, once the
//! whole topic passes `glaneur check`'s validation; nothing left of a save that fails.
//!
//! **In:** the form's values, the uploads, the folder of topics. **Out:** `NAME/topic.toml` and
//! `NAME/serp/*`, or the problem in words.
//!
//! **Invariants:** a new topic needs a name nothing in the folder of topics has (not even a
//! link); files are written beside and renamed in, so a link in a file's place is replaced,
//! never followed, and the folders written to are real folders; an upload's name never leaves
//! `serp/`; a save that fails gives every file back what it held (content or link) and removes
//! the folders it made.

use std::path::Path;

use super::App;
use super::form::{TopicForm, new_topic_text, valid_name};
use crate::topic::Topic;

/// A saved result page's file name, safe in `serp/`.
fn safe_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let clean = clean.trim_start_matches('.').to_string();
    if clean.is_empty() {
        "result-page.html".to_string()
    } else {
        clean
    }
}

/// Validates and writes the topic; the problem in words otherwise. Nothing is left of a save
/// that fails: uploaded files written for it are removed (or given back their former
/// content), folders made for it are removed.
pub(super) fn save(
    app: &App,
    new: bool,
    form: &mut TopicForm,
    files: &[(String, Vec<u8>)],
) -> Result<(), String> {
    if !valid_name(&form.name) {
        return Err(format!(
            "name: `{}`: use 1 to 100 letters, digits, `-` or `_` (it names the topic's folder)",
            form.name
        ));
    }
    let dir = app.corpora.join(&form.name);
    let path = dir.join("topic.toml");
    // A new topic gets a new folder: nothing of that name may be there, not even a link to
    // a folder elsewhere (the topic would be written outside the folder of topics).
    if new && std::fs::symlink_metadata(&dir).is_ok() {
        return Err(format!(
            "name: `{}` exists already in {} ({}): choose another name, or edit that topic \
             from the list of topics",
            form.name,
            app.corpora.display(),
            if path.exists() {
                "a topic"
            } else {
                "not a topic"
            }
        ));
    }
    let base = if new {
        new_topic_text(app, &form.name)
    } else {
        std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?
    };
    let mut uploads = Vec::new();
    for (name, bytes) in files {
        let file = format!("serp/{}", safe_file_name(name));
        if !form.result_pages.contains(&file) {
            form.result_pages.push(file.clone());
        }
        uploads.push((dir.join(&file), bytes));
    }
    let text = form.apply(&base)?;
    let mut undo = Undo::default();
    let result = write_topic(&mut undo, &dir, &path, &text, &uploads);
    if result.is_err() {
        undo.run();
    }
    result
}

/// What a save wrote, to take it back when the save fails.
#[derive(Default)]
struct Undo {
    /// Folders made, innermost last.
    folders: Vec<std::path::PathBuf>,
    /// Files written, with what was in their place before.
    files: Vec<(std::path::PathBuf, Before)>,
}

/// What a file written by a save replaced.
enum Before {
    /// Nothing.
    Nothing,
    /// A file with this content.
    Content(Vec<u8>),
    /// A link to this path (put back as a link).
    Link(std::path::PathBuf),
}

impl Undo {
    fn run(self) {
        for (file, before) in self.files.into_iter().rev() {
            let _ = match before {
                Before::Content(bytes) => std::fs::write(&file, bytes),
                Before::Nothing => std::fs::remove_file(&file),
                Before::Link(target) => std::fs::remove_file(&file)
                    .and_then(|()| std::os::unix::fs::symlink(&target, &file)),
            };
        }
        for folder in self.folders.into_iter().rev() {
            let _ = std::fs::remove_dir(&folder);
        }
    }

    fn folder(&mut self, dir: &Path) -> Result<(), String> {
        match std::fs::symlink_metadata(dir) {
            Ok(meta) if meta.is_dir() => Ok(()),
            Ok(_) => Err(format!(
                "{} is not a folder (a link or a file): glaneur serve writes only in folders of \
                 the folder of topics",
                dir.display()
            )),
            Err(_) => {
                std::fs::create_dir(dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                self.folders.push(dir.to_path_buf());
                Ok(())
            }
        }
    }

    /// Writes `bytes` to `target` through a new file renamed over it (a link in its place is
    /// replaced, never followed).
    fn file(&mut self, target: &Path, bytes: &[u8]) -> Result<(), String> {
        let before = match std::fs::symlink_metadata(target) {
            Ok(meta) if meta.is_file() => Before::Content(
                std::fs::read(target)
                    .map_err(|e| format!("cannot read {}: {e}", target.display()))?,
            ),
            Ok(meta) if meta.file_type().is_symlink() => Before::Link(
                std::fs::read_link(target)
                    .map_err(|e| format!("cannot read the link {}: {e}", target.display()))?,
            ),
            _ => Before::Nothing,
        };
        let part = target.with_file_name(format!(
            ".{}.part",
            target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        std::fs::write(&part, bytes)
            .and_then(|()| std::fs::rename(&part, target))
            .map_err(|e| {
                let _ = std::fs::remove_file(&part);
                format!("cannot write {}: {e}", target.display())
            })?;
        self.files.push((target.to_path_buf(), before));
        Ok(())
    }
}

/// Writes the uploads and the topic file, once the topic they make passes `glaneur check`.
fn write_topic(
    undo: &mut Undo,
    dir: &Path,
    path: &Path,
    text: &str,
    uploads: &[(std::path::PathBuf, &Vec<u8>)],
) -> Result<(), String> {
    undo.folder(dir)?;
    if !uploads.is_empty() {
        undo.folder(&dir.join("serp"))?;
    }
    for (target, bytes) in uploads {
        undo.file(target, bytes)?;
    }
    // The same validation as `glaneur check`, on the text about to be written.
    let origin = path.display().to_string();
    let topic = Topic::from_str(text, dir.to_path_buf(), origin).map_err(|e| format!("{e:#}"))?;
    crate::topic::check_files(&topic, false).map_err(|e| format!("{e:#}"))?;
    undo.file(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uploaded_names_stay_in_the_serp_folder() {
        assert_eq!(safe_file_name("../../etc/passwd"), "passwd");
        assert_eq!(
            safe_file_name("C:\\x\\Résultats Google.html"),
            "R_sultats_Google.html"
        );
        assert_eq!(safe_file_name(".hidden"), "hidden");
        assert_eq!(safe_file_name(""), "result-page.html");
    }
}
