//! Each language's rules: elided prefixes and clitic suffixes, and its list of words that must not
//! be split, looked up in a hash set built once.
//!
//! **In:** a language. **Out:** its [`Rules`] and protected words ([`FRENCH_WORDS`] and the
//! others).
//!
//! **Invariants:** static data, built lazily once; a language without its own rules uses the
//! neutral ones (no elisions, no clitics, no protected words).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

pub(super) struct Rules {
    /// Elided words cut off the front, lowercase, ending in an apostrophe (TreeTagger's
    /// `$PClitic`), matched case-insensitively.
    pub(super) prefix_clitics: &'static [&'static str],
    /// Length in characters of the longest prefix clitic: a word with no apostrophe among
    /// its first that many characters has none.
    pub(super) prefix_longest: usize,
    /// Clitics cut off the end, lowercase (TreeTagger's `$FClitic`, its `s?` spelt out),
    /// matched case-insensitively.
    pub(super) suffix_clitics: &'static [&'static str],
    /// The characters the suffix clitics start with and the length in characters of the
    /// longest, so that only the few positions that can start one are tried.
    pub(super) suffix_starts: &'static [char],
    pub(super) suffix_longest: usize,
    /// Words emitted whole (TreeTagger's `-a` file).
    pub(super) words: &'static LazyLock<WordList>,
    /// Keep `3.` whole (TreeTagger's `-g`).
    pub(super) ordinals: bool,
    /// Abbreviations split from their period by the rules above, whose `.` token therefore
    /// does not end a sentence.
    pub(super) nonfinal_stems: &'static [&'static str],
}

pub(super) static FRENCH: Rules = Rules {
    prefix_clitics: &[
        "d'", "c'", "j'", "l'", "m'", "n'", "s'", "t'", "qu'", "jusqu'", "lorsqu'", "quoiqu'",
        "puisqu'",
    ],
    prefix_longest: 7,
    suffix_clitics: &[
        "-t-elle", "-t-elles", "-t-il", "-t-ils", "-t-on", "-ce", "-elle", "-elles", "-il", "-ils",
        "-je", "-la", "-le", "-les", "-leur", "-lui", "-même", "-mêmes", "-m'", "-moi", "-nous",
        "-on", "-toi", "-tu", "-t'", "-vous", "-en", "-y", "-ci", "-là",
    ],
    suffix_starts: &['-'],
    suffix_longest: 8,
    words: &FRENCH_SET,
    ordinals: false,
    nonfinal_stems: &[
        // Not `vol`, `art`: as words they end sentences.
        "cf", "ex", "fig", "chap", "pp", "env", "réf", "éd", "coll", "av", "apr", "resp", "approx",
        "trad", "sqq",
    ],
};

pub(super) static ENGLISH: Rules = Rules {
    prefix_clitics: &[],
    prefix_longest: 0,
    suffix_clitics: &["'s", "'re", "'ve", "'d", "'m", "'em", "'ll", "n't"],
    suffix_starts: &['\'', 'n'],
    suffix_longest: 3,
    words: &ENGLISH_SET,
    ordinals: false,
    nonfinal_stems: &[],
};

pub(super) static GERMAN: Rules = Rules {
    prefix_clitics: &[],
    prefix_longest: 0,
    suffix_clitics: &[],
    suffix_starts: &[],
    suffix_longest: 0,
    words: &GERMAN_SET,
    ordinals: true,
    nonfinal_stems: &[],
};

pub(super) static ITALIAN: Rules = Rules {
    prefix_clitics: &[
        "l'", "d'", "c'", "s'", "m'", "t'", "v'", "n'", "gl'", "dall'", "dell'", "nell'", "all'",
        "sull'", "coll'", "pell'", "un'", "quest'", "quell'", "senz'", "tutt'", "dov'", "trent'",
        "mezz'", "anch'", "cos'", "com'", "bell'", "sant'",
    ],
    prefix_longest: 6,
    suffix_clitics: &[],
    suffix_starts: &[],
    suffix_longest: 0,
    words: &ITALIAN_SET,
    ordinals: false,
    nonfinal_stems: &[],
};

pub(super) static SPANISH: Rules = Rules {
    prefix_clitics: &[],
    prefix_longest: 0,
    suffix_clitics: &[],
    suffix_starts: &[],
    suffix_longest: 0,
    words: &SPANISH_SET,
    ordinals: false,
    nonfinal_stems: &[],
};

pub(super) static NEUTRAL: Rules = Rules {
    prefix_clitics: &[],
    prefix_longest: 0,
    suffix_clitics: &[],
    suffix_starts: &[],
    suffix_longest: 0,
    words: &EMPTY_SET,
    ordinals: false,
    nonfinal_stems: &[],
};

/// French words that TreeTagger's French pipeline keeps whole although its rules would split
/// them: the entries of TreeTagger's `french-abbreviations` file (`utf8-tokenize.perl -f -a
/// french-abbreviations-utf8`), looked up as the script does, exactly (case and apostrophe as
/// written), once before any cut and once after a final period is set apart.
///
/// Origin: the file as distributed with TreeTagger's parameter files (38 lines), with which the
/// script reproduces `tests/data/treetagger/tokenizer-fr/` byte for byte. It holds no
/// abbreviation with a period, so `etc.`, `cf.`, `MM.` lose theirs. Two of its lines,
/// `d'\u{9C}uvre` and `D'\u{9C}uvre`, are `d'œuvre` whose `œ` was lost in a Latin-1 conversion:
/// they can match no text, so `d'œuvre` is split (`d'` `œuvre`) by TreeTagger and here, and they
/// are left out. What the list implies: `vous-même`, `nous-même`, `soi-même` are split (only
/// the plural `nous-mêmes`, `vous-mêmes` are listed) and `rendez-vous` is not.
pub const FRENCH_WORDS: &[&str] = &[
    "rendez-vous",
    "d'abord",
    "d'accord",
    "d'ailleurs",
    "d'après",
    "d'autant",
    "d'oeuvre",
    "c'est-à-dire",
    "moi-même",
    "toi-même",
    "lui-même",
    "elle-même",
    "nous-mêmes",
    "vous-mêmes",
    "eux-mêmes",
    "elles-mêmes",
    "par-ci",
    "par-là",
    "Rendez-vous",
    "D'abord",
    "D'accord",
    "D'ailleurs",
    "D'après",
    "D'autant",
    "D'oeuvre",
    "C'est-à-dire",
    "Moi-même",
    "Toi-même",
    "Lui-même",
    "Elle-même",
    "Nous-mêmes",
    "Vous-mêmes",
    "Eux-mêmes",
    "Elles-mêmes",
    "Par-ci",
    "Par-là",
];

/// English abbreviations kept whole with their period (glaneur's list; runs of single letters
/// with periods such as `e.g.`, `U.S.` need no entry).
pub const ENGLISH_WORDS: &[&str] = &[
    "Mr.", "Mrs.", "Ms.", "Messrs.", "Dr.", "Prof.", "Sr.", "Jr.", "St.", "Mt.", "Gen.", "Col.",
    "Capt.", "Lt.", "Sgt.", "Gov.", "Sen.", "Rep.", "Rev.", "Hon.", "Pres.", "Esq.", "vs.", "etc.",
    "al.", "cf.", "approx.", "ca.", "viz.", "Inc.", "Ltd.", "Co.", "Corp.", "Bros.", "No.", "Nos.",
    "Vol.", "vol.", "Vols.", "pp.", "Fig.", "fig.", "Figs.", "Eq.", "Ed.", "ed.", "Eds.", "eds.",
    "Ch.", "ch.", "Sec.", "sec.", "Jan.", "Feb.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.",
    "Oct.", "Nov.", "Dec.", "Ave.", "Blvd.", "Rd.", "Dept.", "Univ.", "est.", "Ph.D.", "Calif.",
];

/// German abbreviations kept whole with their period (glaneur's list; `z.B.`, `d.h.`, `u.a.`
/// are runs of single letters and need no entry).
pub const GERMAN_WORDS: &[&str] = &[
    "usw.", "bzw.", "ca.", "vgl.", "Vgl.", "etc.", "evtl.", "ggf.", "inkl.", "exkl.", "zzgl.",
    "bzgl.", "sog.", "geb.", "gest.", "Nr.", "Dr.", "Prof.", "Hr.", "Hrn.", "Fr.", "St.", "Str.",
    "Tel.", "Jh.", "Jhd.", "Mio.", "Mrd.", "Abs.", "Abb.", "Tab.", "Bd.", "Kap.", "Anm.", "Aufl.",
    "Hrsg.", "hrsg.", "Dipl.", "Ing.", "Min.", "Std.", "max.", "min.", "o.ä.", "u.ä.", "Jan.",
    "Febr.", "Feb.", "Aug.", "Sept.", "Okt.", "Nov.", "Dez.", "usf.", "ff.", "z.Zt.",
];

/// Italian abbreviations kept whole with their period (glaneur's list).
pub const ITALIAN_WORDS: &[&str] = &[
    "ecc.", "sig.", "Sig.", "sigg.", "Sigg.", "dott.", "Dott.", "prof.", "Prof.", "ing.", "Ing.",
    "avv.", "Avv.", "arch.", "Arch.", "geom.", "rag.", "on.", "On.", "dr.", "Dr.", "mons.", "pag.",
    "pagg.", "cfr.", "Cfr.", "es.", "vol.", "voll.", "art.", "artt.", "cap.", "fig.", "tab.",
    "tel.", "ca.", "cit.", "ed.", "nn.", "p.es.", "sec.", "ss.", "gen.", "febbr.", "sett.", "ott.",
    "nov.", "dic.",
];

/// Spanish abbreviations kept whole with their period (glaneur's list).
pub const SPANISH_WORDS: &[&str] = &[
    "Sr.", "Sra.", "Sres.", "Srta.", "Dr.", "Dra.", "Ud.", "Uds.", "Vd.", "Vds.", "Lic.", "Ing.",
    "Prof.", "Dña.", "etc.", "pág.", "págs.", "núm.", "art.", "arts.", "aprox.", "Avda.", "Av.",
    "avda.", "cap.", "fig.", "vol.", "ej.", "p.ej.", "EE.UU.", "cía.", "Cía.", "admón.", "dcha.",
    "izq.", "izqda.", "tel.", "tfno.", "ss.", "sig.", "ibíd.", "op.", "cit.", "cf.", "ene.",
    "feb.", "abr.", "jun.", "jul.", "ago.", "sept.", "oct.", "nov.", "dic.", "Excmo.", "Ilmo.",
];

/// A list of words kept whole, with a cheap pre-test: most words cannot be in it by their
/// first byte or their length, and skip the hash.
pub(super) struct WordList {
    set: HashSet<&'static str, BuildHasherDefault<Fnv>>,
    first_bytes: [bool; 256],
    longest: usize,
}

impl WordList {
    fn new(words: &[&'static str]) -> Self {
        let mut first_bytes = [false; 256];
        for word in words {
            if let Some(&b) = word.as_bytes().first() {
                first_bytes[usize::from(b)] = true;
            }
        }
        Self {
            set: words.iter().copied().collect(),
            first_bytes,
            longest: words.iter().map(|w| w.len()).max().unwrap_or(0),
        }
    }

    pub(super) fn contains(&self, word: &str) -> bool {
        word.len() <= self.longest
            && word
                .as_bytes()
                .first()
                .is_some_and(|&b| self.first_bytes[usize::from(b)])
            && self.set.contains(word)
    }
}

/// FNV-1a: the lists are fixed and tiny, so a fast hash fits and flooding is not a concern.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

static FRENCH_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(FRENCH_WORDS));
static ENGLISH_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(ENGLISH_WORDS));
static GERMAN_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(GERMAN_WORDS));
static ITALIAN_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(ITALIAN_WORDS));
static SPANISH_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(SPANISH_WORDS));
static EMPTY_SET: LazyLock<WordList> = LazyLock::new(|| WordList::new(&[]));
