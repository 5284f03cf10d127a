//! `glaneur check`: a topic resolved, its warnings, the queries it will send — or every problem
//! with its field.
//!
//! **In:** a topic file (or the embedded demo). **Out:** the resolved topic as text.
//!
//! **Invariants:** the same validation as `glaneur run` (`topic::validate`, `check_files`);
//! nothing is fetched or written.

use std::path::Path;

use stages::seeds::queries::Backend;

/// `glaneur check`: the resolved topic as text, or why it is invalid.
pub fn check(path: Option<&Path>) -> anyhow::Result<String> {
    let topic = match path {
        Some(p) => crate::topic::Topic::load(p)?,
        None => crate::topic::Topic::demo(Path::new("corpora").join("demo"))?,
    };
    // The embedded demo topic falls back on its compiled-in recording.
    crate::topic::check_files(&topic, path.is_none())?;
    let mut out = String::new();
    out.push_str(&format!("# topic: {} (valid)\n", topic.origin));
    for warning in crate::topic::warnings(&topic) {
        out.push_str(&format!("# warning: {warning}\n"));
    }
    out.push_str(&format!("# formula, normalised: {}\n", topic.formula));
    out.push_str(&format!("# User-Agent: {}\n", topic.user_agent()));
    out.push_str(&format!(
        "# seeds: {} URLs, {} saved result pages, {} URL lists\n",
        topic.seed_urls.len(),
        topic.file.seeds.result_pages.len(),
        topic.file.seeds.url_lists.len()
    ));
    if let Some(plan) = &topic.search {
        let (key, id) = crate::seeds::apis::key_variables(plan.backend);
        let vars: Vec<&str> = [key, id].into_iter().flatten().collect();
        let keys = if vars.is_empty() {
            "no key".to_string()
        } else {
            format!("key from {}", vars.join(" + "))
        };
        // The keyless backends' endpoints follow from the topic: say which one is asked.
        let section = topic.file.search.as_ref();
        let language = section.and_then(|s| s.language.as_deref()).or(topic
            .file
            .languages
            .first()
            .map(String::as_str));
        let at = match (plan.backend, section.and_then(|s| s.endpoint.clone())) {
            (_, Some(endpoint)) => format!(" at {endpoint}"),
            (Backend::Mediawiki | Backend::Commoncrawl, None) => {
                crate::seeds::apis::default_endpoint(plan.backend, language)
                    .map(|e| format!(" at {e}"))
                    .unwrap_or_default()
            }
            _ => String::new(),
        };
        let what = if plan.backend.takes_prefixes() {
            "URL prefixes"
        } else {
            "queries"
        };
        out.push_str(&format!(
            "# search: {} {what} on {}{at} ({keys}), as they will be sent:\n",
            plan.queries.len(),
            plan.backend.name(),
        ));
        for (_, compiled) in &plan.queries {
            out.push_str(&format!("#   {compiled}\n"));
        }
    }
    for line in crate::annotate::describe(&topic) {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str(&topic.to_toml());
    Ok(out)
}
