//! Pages opened in a real browser: headless Chromium (Debian's `chromium`; `scripts/test`
//! installs it), with the network cut, its DOM read back after the scripts ran and a screenshot
//! kept in `target/e2e-screenshots/` for a person to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::repo;

/// The Chromium binary: `$GLANEUR_CHROMIUM`, else the first of Debian's names on PATH.
fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("GLANEUR_CHROMIUM") {
        return PathBuf::from(path);
    }
    for name in [
        "chromium",
        "chromium-browser",
        "chromium-headless-shell",
        "google-chrome",
    ] {
        if Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return PathBuf::from(name);
        }
    }
    panic!(
        "a headless Chromium is needed to test the pages in a real browser: apt-get install \
         chromium (scripts/test installs it), or set GLANEUR_CHROMIUM to its path"
    );
}

/// Chromium's arguments for a page that must need no network: every host name fails to
/// resolve and every proxy is refused, so any request for something outside the file fails.
fn offline(profile: &Path) -> Vec<String> {
    vec![
        "--headless".into(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--no-first-run".into(),
        "--disable-extensions".into(),
        "--hide-scrollbars".into(),
        format!("--user-data-dir={}", profile.display()),
        "--host-resolver-rules=MAP * ~NOTFOUND".into(),
        "--proxy-server=http://127.0.0.1:9".into(),
        // Lets the page's scripts and layout finish before the DOM or the picture is taken.
        "--virtual-time-budget=10000".into(),
    ]
}

/// Opens the local file `page` offline: returns the DOM after its scripts ran, and saves a
/// full-page screenshot as `target/e2e-screenshots/<name>.png` (returned too).
pub fn open_offline(page: &Path, name: &str) -> (String, PathBuf) {
    let browser = chromium();
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let dom = Command::new(&browser)
        .args(offline(profile.path()))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    assert!(
        dom.status.success(),
        "{} --dump-dom failed: {}",
        browser.display(),
        String::from_utf8_lossy(&dom.stderr)
    );
    let shots = repo().join("target/e2e-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let picture = Command::new(&browser)
        .args(offline(profile.path()))
        .arg("--window-size=1200,4000")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        picture.status.success() && shot.is_file(),
        "{} --screenshot failed: {}",
        browser.display(),
        String::from_utf8_lossy(&picture.stderr)
    );
    (String::from_utf8_lossy(&dom.stdout).into_owned(), shot)
}

/// Checks the `report.html` of the run folder `run` in the browser against its `report.json`:
/// no outside reference, every chart drawn, no script error, the harvest rate and every reason
/// of the table shown. Returns the page's size in bytes.
pub fn check_report_html(run: &Path) -> usize {
    let path = run.join("report.html");
    let html = std::fs::read_to_string(&path).expect("every run writes report.html");
    let markup = &html[..html.find("const DATA = ").expect("the page holds its data")];
    for outside in ["<script src", "<link ", "@import", "url(http"] {
        assert!(
            !markup.contains(outside),
            "report.html refers outside itself: {outside}"
        );
    }
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    let (dom, shot) = open_offline(&path, "report");
    assert!(
        !dom.contains("data-error="),
        "a script error in report.html: {}",
        &dom[dom.find("data-error=").unwrap()..]
            [..200.min(dom.len() - dom.find("data-error=").unwrap())]
    );
    // Four charts: harvest curve, rates, found and requested, scores; uPlot draws on canvases.
    assert!(
        dom.contains("data-charts=\"4\""),
        "not every chart was drawn ({})",
        shot.display()
    );
    assert!(dom.matches("<canvas").count() >= 4, "{}", shot.display());
    let rate = report["harvest_rate"]
        .as_f64()
        .expect("report.json has a harvest rate");
    let shown = format!("{:.1} %", rate * 100.0);
    assert!(
        dom.contains(&shown),
        "the harvest rate {shown} is not on the page"
    );
    for row in report["urls"].as_array().unwrap() {
        let reason = match row["reason"].as_str().unwrap() {
            "" => "–",
            reason => reason,
        };
        let count = row["count"].as_u64().unwrap();
        let cells = format!("<td>{reason}</td><td class=\"n\">{count}</td>");
        let cells_grouped = format!(
            "<td>{reason}</td><td class=\"n\">{}</td>",
            group_thousands(count)
        );
        assert!(
            dom.contains(&cells) || dom.contains(&cells_grouped),
            "the reasons table lacks {reason} {count}"
        );
    }
    println!(
        "report.html: {} bytes, screenshot {}",
        html.len(),
        shot.display()
    );
    html.len()
}

fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
