//! Per-engine rules: each engine's layouts (CSS selectors for its result blocks, their link, title
//! and snippet) and what to leave out (ads, carousels, panels), from the early 2000s to 2022, plus
//! the generic fallback layout; compiled once.
//!
//! **In:** nothing at run time (static tables). **Out:** [`COMPILED`] rules per engine and
//! [`COMPILED_GENERIC`], read by the parser in `mod.rs`.
//!
//! **Invariants:** every selector here compiles (checked by the tests); a malformed one would be
//! skipped, never panic.

use std::sync::LazyLock;

use scraper::Selector;

use super::{Engine, css};

/// One way an engine laid out its results, as CSS selectors.
pub(super) struct Layout {
    /// The result containers, in page order. When `link` is empty the container is the link.
    pub(super) block: &'static str,
    /// Inside a block, the candidates for the result link; the first that points to a
    /// result (not back into the engine) is taken.
    pub(super) link: &'static str,
    /// Inside a block, the title; empty: the link's own text.
    pub(super) title: &'static str,
    /// Inside a block (or its `around` ancestor), the snippet; empty: none.
    pub(super) snippet: &'static str,
    /// When the block is the link itself, the nearest ancestor holding the whole result
    /// (for the snippet and the exclusions).
    pub(super) around: &'static str,
    /// Only the block's first `link` match can be the result (a block whose first link is
    /// not a result, e.g. a `news:` link, is skipped rather than searched further).
    first_only: bool,
}

/// How one engine's pages are read.
pub(super) struct EngineRules {
    pub(super) engine: Engine,
    /// Tried in order; the first layout that yields a hit is used.
    pub(super) layouts: &'static [Layout],
    /// Ancestors (or the block itself) that mark non-organic content: ads, carousels,
    /// "people also ask", knowledge panels, related searches.
    pub(super) exclude: &'static str,
    /// Markup the engine uses to say it found nothing.
    pub(super) no_results: &'static str,
}

const fn layout(
    block: &'static str,
    link: &'static str,
    title: &'static str,
    snippet: &'static str,
) -> Layout {
    Layout {
        block,
        link,
        title,
        snippet,
        around: "",
        first_only: false,
    }
}

const GOOGLE_LAYOUTS: &[Layout] = &[
    // Web results in every layout since about 2010 (desktop `div.g`, the basic/mobile
    // `div.xpd`, the old `li.g > h3.r > a`): the result link carries or sits in the title
    // heading.
    Layout {
        block: "a[href]:has(h3), h3 > a[href], h3 > span > a[href]",
        link: "",
        title: "h3",
        snippet: "div.VwiC3b, span.st, div.IsZvec, div.s, div.BNeawe.s3v9rd, div.Uroaid, div[data-content-feature='1'], div.lEBKkf",
        around: "div.g, li.g, div.xpd, div.ZINbbc, div.Gx5Zad, div.MjjYud, div.tF2Cxc",
        first_only: false,
    },
    // 2001-2007: `p.g > a` then `div.g > h2.r > a.l`, snippets in `font` / `td.j`.
    layout(
        "p.g, div.g, li.g",
        "a.l[href], h2 a[href], a[href]",
        "h2, a.l",
        "td.j, font, div.std, div.s",
    ),
    // Basic (no-JavaScript) image search: source pages under each thumbnail.
    layout(
        "table.IkMU6e, div.lIMUZd td, table.images_table td",
        "a[href]",
        "a",
        "",
    ),
    // News search: article cards.
    Layout {
        block: "div.dbsr > a[href], g-card a[href]:has(div[role=heading]), div.SoaBEf a[href]",
        link: "",
        title: "div[role=heading], div.nDgy9d, div.JheGif",
        snippet: "div.eYN3rb, div.Y3v8qd, div.GI74Re",
        around: "div.dbsr, g-card, div.SoaBEf",
        first_only: false,
    },
    // Google Scholar.
    layout(
        "div.gs_r.gs_or, div.gs_r",
        "h3.gs_rt a[href], div.gs_ggs a[href]",
        "h3.gs_rt",
        "div.gs_rs",
    ),
];

const GOOGLE_EXCLUDE: &str = "#tads, #tadsb, #bottomads, #taw, .ads-ad, .uEierd, .commercial-unit-desktop-top, \
    .commercial-unit-desktop-rhs, .cu-container, [data-text-ad], #rhs, \
    g-scrolling-carousel, g-section-with-header, .related-question-pair, [jsname=Cpkphb], \
    #botstuff, #extrares, .brs_col, #brs";

const BING_LAYOUTS: &[Layout] = &[
    // 2013-2022 web results.
    layout(
        "li.b_algo",
        "h2 a[href], .b_title a[href], a.tilk[href]",
        "h2",
        ".b_caption p, p.b_lineclamp2, p.b_lineclamp3, p.b_lineclamp4, p, .b_snippet",
    ),
    // 2009-2013 web results.
    layout(
        "div.sa_cc, li.sa_wr",
        "div.sb_tlst h3 a[href], h3 a[href]",
        "h3",
        "p",
    ),
    // Image search (2022): the page each image comes from.
    layout("div.iuscp, div.imgpt", "div.lnkw a[href]", "div.lnkw a", ""),
    // Image search (2016-2020).
    layout(
        "div.content div.item, div.dg_u div.meta",
        "a.tit[href]",
        "a.tit",
        "div.des",
    ),
];

const BING_EXCLUDE: &str = "li.b_ad, .b_ad, .b_adTop, .b_adBottom, .b_adSlug, .sb_adsW, #b_context, \
    .b_ans, li.b_ans, .b_rs, .b_rrsr, .b_vidAns, .b_nwsAns, .b_slidebar";

const YAHOO_LAYOUTS: &[Layout] = &[
    // 2010s-2022: `div.algo` results.
    layout(
        "div.algo-sr, div.dd.algo, div.algo",
        "h3.title a[href], h3 a[href], div.compTitle a[href]",
        "h3",
        "div.compText p, p.lh-16, div.compText, p",
    ),
    // 2004-2010: `div.res` results.
    layout(
        "#web li div.res, div#web ol > li, li div.res",
        "h3 a[href], a.yschttl[href]",
        "h3",
        "div.abstr, div.sm-abs, div",
    ),
    // 1996-2003 (directory era): every result, site or directory category, is a list item
    // whose first link is the result (often through `srd.yahoo.com/…/*http://…`); category
    // paths and sponsor links outside lists are not results.
    Layout {
        first_only: true,
        ..layout("li", "a[href]", "", "")
    },
];

const YAHOO_EXCLUDE: &str = "#header, #hd, #ft, #footer, footer, nav, [role=navigation], \
    #main .searchCenterTopAds, #main .searchCenterBottomAds, .searchRightTopAds, \
    .searchRightBottomAds, ol.searchCenterTopAds, ol.searchCenterBottomAds, ol.searchRightTopAds, \
    ol.searchRightBottomAds, .ads, div.dd.ad, .sys_ads, .layoutCenter .cmpbox, #right, .otherprops";

const QWANT_LAYOUTS: &[Layout] = &[
    // 2020-2022 (CSS modules: the class names carry a hash suffix).
    layout(
        "[data-testid=webResult], [class*='WebResult-module__container'], [class*='SER-module__container']",
        "a.external[href], a[href]",
        "[class*='title'], [class*='Title']",
        "[class*='desc'], [class*='Desc']",
    ),
    // 2013-2016.
    layout(
        "#contenerresults div.result, div.result",
        "span.title a[href], .title a[href], a[href]",
        "span.title, .title",
        "p.desc, .desc, p:not(.url)",
    ),
];

const QWANT_EXCLUDE: &str = "[data-testid=adResult], [data-testid=adSiteLink], [class*='SerpAdWebResult'], \
    [class*='SerpAd-module__SerpAd___'], \
    [class*='Sidebar'], [class*='Videos-module'], [class*='News-module'], [class*='Images-module'], \
    [class*='Carousel'], div.result.ad, .result--ad";

const ECOSIA_LAYOUTS: &[Layout] = &[
    // 2021-2022.
    layout(
        "article.result, div.mainline__result-wrapper article, div[data-test-id=mainline-result-web]",
        "a.result-title__link[href], a.result__link[href], h2 a[href], a[href]",
        "h2",
        "p.result-snippet, .result__description, [data-test-id=result-description], p",
    ),
    // 2016-2021.
    layout(
        "div.result.js-result, div.card-web div.result",
        "a.result-title[href], h2 a[href]",
        "a.result-title, h2",
        "p.result-snippet, .result-snippet",
    ),
];

const ECOSIA_EXCLUDE: &str = ".result--ad, .js-ad, [data-test-id=ad-result], .card-ad, [class*=ad-result], \
    .videos-snippet, .news-snippet, [data-test-id=entity], .entity, .sidebar";

const BRAVE_LAYOUTS: &[Layout] = &[layout(
    "#results div.snippet[data-type=web], #results > div.snippet, #results div.fdb",
    "a.result-header[href], a.heading-serpresult[href], a[href]",
    ".snippet-title, .title",
    ".snippet-description, .snippet-content p, .generic-snippet .content",
)];

const BRAVE_EXCLUDE: &str = "#infobox, #codebox, .infobox, [data-type=ad], .ad, #news, #videos, \
    #discussions, .video-snippet, [data-type=news], [data-type=videos], [data-type=discussions], \
    #side-right, aside";

const ASK_LAYOUTS: &[Layout] = &[
    // 2019-2022.
    layout(
        "div.PartialSearchResults-item",
        "a.PartialSearchResults-item-title-link[href], a.result-link[href]",
        "a.PartialSearchResults-item-title-link",
        "p.PartialSearchResults-item-abstract",
    ),
    // 2014-2018.
    layout(
        "div.web-result, div.sa",
        "a.web-result-title-link[href], h2 a[href], a.sa_headline[href]",
        "",
        "p.web-result-description, .sa_abstract, p",
    ),
    // 2006-2009: `div#r_t0 > a#r0_t`.
    Layout {
        around: "div:has(> div[id^=r_t])",
        ..layout(
            "div[id^=r_t]",
            "a[id^=r][id$=_t][href], a.L4[href]",
            "",
            "div.T1, div[id$=_a]",
        )
    },
    // Ask Jeeves (around 2004-2006).
    layout(
        "div.teoma-item, div#teoma-results div.result, div.wr, div.wrTtl",
        "a.L4[href], a.title[href], a[href]",
        "",
        ".T1, p",
    ),
];

const ASK_EXCLUDE: &str = ".PartialSearchResults-item-ads, [class*=adResult], .ad, #ads, .sponsored, \
    #ssa, .spl_shd, .rr, #rr, #rightcolumn, .l-right-content, .content-right";

const DDG_LAYOUTS: &[Layout] = &[
    // html.duckduckgo.com and the old rendered page.
    layout(
        "div.result, div.results_links, div.web-result",
        "a.result__a[href], h2 a[href]",
        "a.result__a, h2",
        "a.result__snippet, .result__snippet",
    ),
    // Rendered page (2022 onwards).
    layout(
        "article[data-testid=result], li[data-layout=organic]",
        "a[data-testid=result-title-a][href], h2 a[href]",
        "h2",
        "[data-result=snippet], [data-testid=result-snippet]",
    ),
    // lite.duckduckgo.com.
    layout("table tr:has(a.result-link)", "a.result-link[href]", "", ""),
];

const DDG_EXCLUDE: &str = ".result--ad, [data-testid=ad], .badge--ad, .is-ad, [data-layout=ad]";

const BAIDU_LAYOUTS: &[Layout] = &[
    layout(
        "#content_left > div.result, #content_left > div.c-container, #content_left > div.result-op, \
         #content_left > table.result, #content_left > table.result-op",
        "h3.t a[href], h3 a[href], .c-title a[href]",
        "h3",
        "div.c-abstract, .c-span-last, span.content-right_8Zs40, div.c-row",
    ),
    // Site search (zhannei.baidu.com) and wenku.
    layout(
        "#results div.result, div.result",
        "h3 a[href], a.c-title[href], a[href]",
        "h3, a.c-title",
        "div.c-abstract, p",
    ),
    // 2003-2009: one `<table>` per result, `td.f > a` (the title in `font size=3`), the
    // snippet in `font size=-1`, then the green URL and the snapshot link.
    layout("td.f", "a[href]", "", "font[size='-1']"),
];

const BAIDU_EXCLUDE: &str = "[data-tuiguang], .ec_tuiguang, .ec-tuiguang, [id^='300'], .EC_result, \
    #content_right, .result-op[tpl=recommend_list], [tpl=rel-baijia]";

const YANDEX_LAYOUTS: &[Layout] = &[layout(
    "li.serp-item, div.serp-item",
    "a.organic__url[href], a.OrganicTitle-Link[href], h2 a[href]",
    "h2, .organic__title",
    ".organic__text, .text-container, .OrganicText",
)];

const YANDEX_EXCLUDE: &str = "[data-fast-name], .serp-adv, [data-fast-wzrd], .label_theme_direct, \
    [class*=direct], .serp-item_card_ad";

pub(super) static RULES: &[EngineRules] = &[
    EngineRules {
        engine: Engine::Google,
        layouts: GOOGLE_LAYOUTS,
        exclude: GOOGLE_EXCLUDE,
        no_results: "#topstuff .card-section, div.card-section:has(> p)",
    },
    EngineRules {
        engine: Engine::Bing,
        layouts: BING_LAYOUTS,
        exclude: BING_EXCLUDE,
        no_results: "li.b_no, #b_results > .b_no",
    },
    EngineRules {
        engine: Engine::Yahoo,
        layouts: YAHOO_LAYOUTS,
        exclude: YAHOO_EXCLUDE,
        no_results: "div.zrp, .zrp-cont, #cols .zrp",
    },
    EngineRules {
        engine: Engine::Qwant,
        layouts: QWANT_LAYOUTS,
        exclude: QWANT_EXCLUDE,
        no_results: "[class*=NoResult], [class*=noResult]",
    },
    EngineRules {
        engine: Engine::Ecosia,
        layouts: ECOSIA_LAYOUTS,
        exclude: ECOSIA_EXCLUDE,
        no_results: ".no-results, [data-test-id=no-results]",
    },
    EngineRules {
        engine: Engine::Brave,
        layouts: BRAVE_LAYOUTS,
        exclude: BRAVE_EXCLUDE,
        no_results: "#no-results, .no-results",
    },
    EngineRules {
        engine: Engine::Ask,
        layouts: ASK_LAYOUTS,
        exclude: ASK_EXCLUDE,
        no_results: ".PartialSearchResults-noresults, .no-results",
    },
    EngineRules {
        engine: Engine::DuckDuckGo,
        layouts: DDG_LAYOUTS,
        exclude: DDG_EXCLUDE,
        no_results: ".no-results, div.result--no-result",
    },
    EngineRules {
        engine: Engine::Baidu,
        layouts: BAIDU_LAYOUTS,
        exclude: BAIDU_EXCLUDE,
        no_results: ".nors, #noresult",
    },
    EngineRules {
        engine: Engine::Yandex,
        layouts: YANDEX_LAYOUTS,
        exclude: YANDEX_EXCLUDE,
        no_results: ".misspell__message, .serp-list_empty, .content__left .misspell",
    },
];

/// Tried for every engine when none of its own layouts yields a hit: on a result page, a
/// heading that links out of the engine is nearly always a result.
const GENERIC_LAYOUT: Layout = Layout {
    block: "h2 > a[href], h3 > a[href], h2 > span > a[href], h3 > span > a[href], \
            a[href]:has(> h2), a[href]:has(> h3)",
    link: "",
    title: "h2, h3",
    snippet: "p",
    around: "li, article, div.result, div.g",
    first_only: false,
};

/// A [`Layout`] with its selectors compiled.
pub(super) struct CompiledLayout {
    pub(super) block: Selector,
    pub(super) link: Option<Selector>,
    pub(super) title: Vec<Selector>,
    pub(super) snippet: Vec<Selector>,
    pub(super) around: Option<Selector>,
    pub(super) first_only: bool,
}

pub(super) struct CompiledRules {
    pub(super) engine: Engine,
    pub(super) layouts: Vec<CompiledLayout>,
    pub(super) exclude: Option<Selector>,
    pub(super) no_results: Option<Selector>,
}

fn optional(s: &str) -> Option<Selector> {
    if s.trim().is_empty() { None } else { css(s) }
}

/// The comma-separated alternatives of a selector list, compiled one by one, so that they can
/// be tried in the order written (a selector list matches in document order instead).
fn alternatives(s: &str) -> Vec<Selector> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .filter_map(css)
        .collect()
}

pub(super) static COMPILED_GENERIC: LazyLock<Option<CompiledLayout>> =
    LazyLock::new(|| compile(&GENERIC_LAYOUT));

fn compile(l: &Layout) -> Option<CompiledLayout> {
    Some(CompiledLayout {
        block: css(l.block)?,
        link: optional(l.link),
        title: alternatives(l.title),
        snippet: alternatives(l.snippet),
        around: optional(l.around),
        first_only: l.first_only,
    })
}

pub(super) static COMPILED: LazyLock<Vec<CompiledRules>> = LazyLock::new(|| {
    RULES
        .iter()
        .map(|r| CompiledRules {
            engine: r.engine,
            layouts: r.layouts.iter().filter_map(compile).collect(),
            exclude: optional(r.exclude),
            no_results: optional(r.no_results),
        })
        .collect()
});
