//! `glaneur compare`: three topics whose vocabularies are planted crawl a web generated here —
//! one site per topic and a shared site with pages of every topic, two of them about both the
//! first and the second — and their runs are compared. The keywords of each corpus against the
//! others must be its planted words; the overlaps must be the ones built in; a pair's figures
//! must not depend on the order the runs are named in; the page must open in a real browser.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::browser::open_offline;
use crate::server::TestWeb;
use crate::support::{assert_exit, glaneur, run_topic};

/// Each topic: name, host, its 20 planted words (the first two make its formula).
pub(crate) const TOPICS: [(&str, &str, [&str; 20]); 3] = [
    (
        "astronomie",
        "astro.test",
        [
            "télescope",
            "galaxie",
            "nébuleuse",
            "planète",
            "comète",
            "astéroïde",
            "orbite",
            "satellite",
            "constellation",
            "étoile",
            "météorite",
            "éclipse",
            "supernova",
            "quasar",
            "pulsar",
            "observatoire",
            "astronome",
            "zénith",
            "équinoxe",
            "solstice",
        ],
    ),
    (
        "cuisine",
        "cuisine.test",
        [
            "casserole",
            "farine",
            "poêle",
            "beurre",
            "levure",
            "pâtisserie",
            "sauce",
            "recette",
            "fouet",
            "cuisson",
            "épices",
            "vinaigrette",
            "marinade",
            "gratin",
            "soufflé",
            "ragoût",
            "bouillon",
            "échalote",
            "persil",
            "crêpe",
        ],
    ),
    (
        "voile",
        "voile.test",
        [
            "voilier",
            "gouvernail",
            "beaupré",
            "quille",
            "bâbord",
            "tribord",
            "spinnaker",
            "winch",
            "écoute",
            "drisse",
            "mât",
            "bôme",
            "étrave",
            "louvoyer",
            "empannage",
            "mouillage",
            "régate",
            "catamaran",
            "amarre",
            "ponton",
        ],
    ),
];

/// Sentences every topic's pages share: the vocabulary that must not come out as a keyword.
const COMMON: [&str; 12] = [
    "Ce chapitre présente les notions principales et donne quelques exemples simples pour commencer.",
    "Les lecteurs qui découvrent le sujet trouveront ici une introduction claire et progressive.",
    "Chaque section se termine par un résumé et par une liste de questions pour vérifier ce qui a été compris.",
    "Nous remercions les personnes qui ont relu ce texte et proposé de nombreuses corrections utiles.",
    "La première partie décrit le vocabulaire de base, la seconde montre comment il est employé en pratique.",
    "Il est conseillé de lire les pages dans l'ordre, mais chacune peut aussi être consultée seule.",
    "Les remarques et les suggestions sont les bienvenues et seront prises en compte dans la prochaine version.",
    "Cette page a été mise à jour récemment afin de tenir compte des questions posées par les lecteurs.",
    "On trouvera à la fin du document une bibliographie courte et quelques adresses utiles.",
    "Le texte est distribué librement et peut être copié à condition de citer sa source.",
    "Pour aller plus loin, plusieurs ouvrages de référence sont indiqués dans la dernière section.",
    "Les exemples ont été choisis pour être faciles à reproduire sans matériel particulier.",
];

/// Page `page` of prose: two shared sentences, a sentence naming the formula's words, sentences
/// naming `per_page` planted words, then two more shared sentences. Pages 0 to 19 of a topic
/// differ (planted words repeat every 5 pages, shared sentences every 4), so that none is a
/// duplicate of another.
fn prose(planted: &[&[&str; 20]], page: usize, per_page: usize) -> String {
    let mut out = String::new();
    for k in 0..2 {
        out.push_str(&format!(
            "<p>{}</p>\n",
            COMMON[(page * 3 + k) % COMMON.len()]
        ));
    }
    for words in planted {
        // Every page of a topic satisfies its formula.
        out.push_str(&format!(
            "<p>Cette page parle du mot {} et du mot {}.</p>\n",
            words[0], words[1]
        ));
        for s in 0..per_page / 4 {
            let w: Vec<&str> = (0..4)
                .map(|i| words[(page * per_page + s * 4 + i) % 20])
                .collect();
            out.push_str(&format!(
                "<p>Dans cette partie il est question du mot {} puis du mot {}, ensuite du terme {} et enfin du terme {} que l'on retrouve souvent.</p>\n",
                w[0], w[1], w[2], w[3]
            ));
        }
    }
    for k in 2..4 {
        out.push_str(&format!(
            "<p>{}</p>\n",
            COMMON[(page * 3 + k) % COMMON.len()]
        ));
    }
    out
}

fn html(title: &str, body: &str, links: &[String]) -> String {
    let links: String = links
        .iter()
        .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>\n"))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"fr\"><head><meta charset=\"utf-8\"><title>{title}</title></head>\n\
         <body><h1>{title}</h1>\n<main>{body}</main>\n<nav><ul>{links}</ul></nav></body></html>\n"
    )
}

pub(crate) const PAGES: usize = 8;
pub(crate) const SHARED_PER_TOPIC: usize = 3;

/// Writes the web: per topic `HOST/index.html` and 8 pages; `mix.test/` with 3 pages per topic,
/// 2 pages about the first and second topics together and an index that names every topic.
/// Returns the topic files.
pub(crate) fn build_web(root: &Path, delays: [f64; 3]) -> Vec<std::path::PathBuf> {
    let write = |path: std::path::PathBuf, text: String| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let mut mix_links = Vec::new();
    for (t, (name, host, words)) in TOPICS.iter().enumerate() {
        let pages: Vec<String> = (1..=PAGES).map(|p| format!("p{p}.html")).collect();
        write(
            root.join(host).join("index.html"),
            html(
                &format!("{name} : sommaire"),
                &prose(&[words], 0, 4),
                &pages,
            ),
        );
        for (p, page) in pages.iter().enumerate() {
            write(
                root.join(host).join(page),
                html(
                    &format!("{name} {}", p + 1),
                    &prose(&[words], p + 1, 8),
                    &["/".to_string()],
                ),
            );
        }
        for s in 0..SHARED_PER_TOPIC {
            let page = format!("{name}-{s}.html");
            write(
                root.join("mix.test").join(&page),
                html(
                    &format!("{name} (mix) {s}"),
                    &prose(&[words], 1 + PAGES + s * 3 + t, 8),
                    &["/".to_string()],
                ),
            );
            mix_links.push(page);
        }
    }
    for s in 0..2 {
        let page = format!("both-{s}.html");
        write(
            root.join("mix.test").join(&page),
            html(
                &format!("mélange {s}"),
                &prose(
                    &[&TOPICS[0].2, &TOPICS[1].2],
                    1 + PAGES + 3 * SHARED_PER_TOPIC + s,
                    8,
                ),
                &["/".to_string()],
            ),
        );
        mix_links.push(page);
    }
    write(
        root.join("mix.test/index.html"),
        html(
            "mélanges",
            &prose(&[&TOPICS[0].2, &TOPICS[1].2, &TOPICS[2].2], 40, 0),
            &mix_links,
        ),
    );

    let topics = root.join("topics");
    TOPICS
        .iter()
        .zip(delays)
        .map(|((name, host, words), delay)| {
            let dir = topics.join(name);
            write(
                dir.join("topic.toml"),
                format!(
                    "name = \"{name}\"\nlanguages = [\"fr\"]\n\n[seeds]\nurls = [\"http://{host}/\", \"http://mix.test/\"]\n\n\
                     [formula]\nexpression = '\"{}\" OU \"{}\"'\n\n[domains]\nallow = [\"{host}\", \"mix.test\"]\n\n\
                     [crawl]\nmax_pages = 60\nmax_depth = 3\ntimeout_seconds = 5\n\n\
                     [text]\nnear_duplicates = false\nboilerplate_min_pages = 1000\n\n\
                     [politeness]\ncontact = \"mailto:test@example.org\"\ndelay_seconds = {delay}\nresponse_time_factor = 0\n",
                    words[0], words[1]
                ),
            );
            dir.join("topic.toml")
        })
        .collect()
}

/// At least 18 of each topic's 20 planted words are among its top 20 keywords against the other
/// topics joined, in the `keywords.csv` of the folder `out`.
pub(crate) fn check_planted_keywords(out: &Path) {
    let keywords = csv_rows(&out.join("keywords.csv"));
    for (name, _, planted) in TOPICS {
        let top: BTreeSet<&str> = keywords
            .iter()
            .filter(|k| k["focus"] == name && k["reference"] == "(others)")
            .map(|k| k["word"].as_str())
            .collect();
        assert_eq!(top.len(), 20, "{name}: {top:?}");
        let found = planted.iter().filter(|w| top.contains(*w)).count();
        println!("{name}: {found} of its 20 planted words among its top 20 keywords");
        assert!(found >= 18, "{name}: only {found} planted words in {top:?}");
    }
}

pub(crate) fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn compare_finds_planted_keywords_and_built_in_overlaps() {
    let web_dir = tempfile::tempdir().unwrap();
    let topics = build_web(web_dir.path(), [0.0; 3]);
    let web = TestWeb::start(web_dir.path());
    let work = tempfile::tempdir().unwrap();
    let runs: Vec<std::path::PathBuf> = topics
        .iter()
        .zip(TOPICS)
        .map(|(topic, (name, _, _))| {
            let out = work.path().join(name);
            assert_exit(&run_topic(topic, &out, &web.proxy(), &[]), 0);
            out
        })
        .collect();

    let out = work.path().join("compare");
    let compare = glaneur()
        .arg("compare")
        .args(&runs)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_exit(&compare, 0);
    let stdout = String::from_utf8_lossy(&compare.stdout);
    assert!(stdout.contains("astronomie ~ cuisine"), "{stdout}");

    // One row per corpus, with what each run kept: its own site's index and pages, the shared
    // site's index and its pages there (and the two shared ones for the first two topics).
    let corpora = csv_rows(&out.join("compare.csv"));
    assert_eq!(corpora.len(), 3);
    for (t, row) in corpora.iter().enumerate() {
        assert_eq!(row["topic"], TOPICS[t].0);
        let expected = 2 + PAGES + SHARED_PER_TOPIC + if t < 2 { 2 } else { 0 };
        assert_eq!(row["documents"], expected.to_string(), "{row:?}");
        assert_eq!(row["hosts"], "2", "{row:?}");
        assert_eq!(row["seeds"], "2", "{row:?}");
        assert!(row["languages"].starts_with("fr=1.000"), "{row:?}");
        let words: u64 = row["words"].parse().unwrap();
        let types: u64 = row["types"].parse().unwrap();
        assert!(words > 1000 && types > 50 && types < words, "{row:?}");
        assert!(!row["sttr"].is_empty(), "{row:?}");
    }

    // The pairs: the shared site's index is in every corpus, two more pages in the first two
    // topics'; each corpus has its own host and the shared one (hosts Jaccard 1/3).
    let pairs = csv_rows(&out.join("compare-pairs.csv"));
    assert_eq!(pairs.len(), 3);
    for row in &pairs {
        let first_two = row["a"] == "astronomie" && row["b"] == "cuisine";
        assert_eq!(
            row["documents_shared"],
            if first_two { "3" } else { "1" },
            "{row:?}"
        );
        assert_eq!(row["hosts_jaccard"], "0.3333", "{row:?}");
        let chi: f64 = row["chi2_per_df"].parse().unwrap();
        assert!(chi > 0.0, "{row:?}");
    }

    // Keywords against the other two joined: the planted words.
    check_planted_keywords(&out);

    // The same runs in another order: the same figures for every pair.
    let reversed_out = work.path().join("compare-reversed");
    let mut reversed = runs.clone();
    reversed.reverse();
    assert_exit(
        &glaneur()
            .arg("compare")
            .args(&reversed)
            .arg("--out")
            .arg(&reversed_out)
            .output()
            .unwrap(),
        0,
    );
    let key = |row: &BTreeMap<String, String>| {
        let mut names = [row["a"].clone(), row["b"].clone()];
        names.sort();
        names
    };
    let figures = |rows: &[BTreeMap<String, String>]| -> BTreeMap<[String; 2], Vec<String>> {
        rows.iter()
            .map(|r| {
                (
                    key(r),
                    [
                        "documents_jaccard",
                        "fetched_jaccard",
                        "hosts_jaccard",
                        "chi2",
                        "chi2_per_df",
                    ]
                    .iter()
                    .map(|c| r[*c].clone())
                    .collect(),
                )
            })
            .collect()
    };
    assert_eq!(
        figures(&pairs),
        figures(&csv_rows(&reversed_out.join("compare-pairs.csv")))
    );

    // The page, in a real browser: every corpus, both heat maps, the keywords.
    let page = out.join("compare.html");
    let html = std::fs::read_to_string(&page).unwrap();
    for outside in ["<script", "<link ", "@import", "src="] {
        assert!(
            !html.contains(outside),
            "compare.html refers outside itself: {outside}"
        );
    }
    let (dom, shot) = open_offline(&page, "compare");
    for id in ["corpora-table", "chi2", "jaccard", "keywords"] {
        assert!(
            dom.contains(&format!("id=\"{id}\"")),
            "{id} missing ({})",
            shot.display()
        );
    }
    for (name, _, planted) in TOPICS {
        assert!(
            dom.contains(&format!("<h3>{name}</h3>")),
            "{}",
            shot.display()
        );
        assert!(dom.contains(planted[0]), "{}", shot.display());
    }

    // Bad input: a folder that is not a run, named in the message.
    let not_a_run = glaneur()
        .arg("compare")
        .arg(&runs[0])
        .arg(web_dir.path().join("astro.test"))
        .arg("--out")
        .arg(work.path().join("bad"))
        .output()
        .unwrap();
    assert_exit(&not_a_run, 2);
    let stderr = String::from_utf8_lossy(&not_a_run.stderr);
    assert!(
        stderr.contains("astro.test") && stderr.contains("not a run folder"),
        "{stderr}"
    );
}
