//! Stop-word (function-word) lists for the boilerplate classifier.
//!
//! **In**: an ISO 639-1 language code and a word.
//! **Out**: the language's list, or whether the word is on it.
//! **Invariants**: every list is sorted in byte order, lower-case and free of duplicates
//! (checked by the tests), so look-ups are binary searches. The lists were written for glaneur:
//! pronouns, articles, prepositions, conjunctions, auxiliaries and very frequent adverbs.
//! Words are the tokens of [`crate::page::extract`]: maximal runs of letters and digits, so elided
//! forms appear as their pieces (`l'homme` gives `l`, `qu'il` gives `qu`, `don't` gives `don`
//! and `t`), and those pieces are on the lists.

/// Languages that have a list, as ISO 639-1 codes.
pub const LANGUAGES: &[&str] = &["cs", "de", "en", "es", "fr", "it", "nl", "pl", "pt"];

/// The stop-word list of `lang` (ISO 639-1, case-insensitive, region subtags such as `fr-CA`
/// accepted), or `None` when glaneur has no list for it.
pub fn stopwords(lang: &str) -> Option<&'static [&'static str]> {
    let primary = lang.split(['-', '_']).next().unwrap_or(lang).trim();
    let lists: [(&str, &'static [&'static str]); 9] = [
        ("cs", CS),
        ("de", DE),
        ("en", EN),
        ("es", ES),
        ("fr", FR),
        ("it", IT),
        ("nl", NL),
        ("pl", PL),
        ("pt", PT),
    ];
    lists
        .iter()
        .find(|(code, _)| code.eq_ignore_ascii_case(primary))
        .map(|(_, list)| *list)
}

/// Whether `word` is a stop word of `lang`. The word is lower-cased first; a language without a
/// list has no stop words.
pub fn is_stopword(lang: &str, word: &str) -> bool {
    let Some(list) = stopwords(lang) else {
        return false;
    };
    if word.chars().any(char::is_uppercase) {
        list.binary_search(&word.to_lowercase().as_str()).is_ok()
    } else {
        list.binary_search(&word).is_ok()
    }
}

/// English function words (289).
#[rustfmt::skip]
static EN: &[&str] = &[
    "a", "about", "above", "according", "across", "after", "afterwards", "again", "against",
    "ago", "all", "almost", "alone", "along", "already", "also", "although", "always", "am",
    "among", "amongst", "an", "and", "another", "any", "anybody", "anyhow", "anyone", "anything",
    "anyway", "anywhere", "are", "around", "as", "at", "back", "be", "became", "because",
    "become", "becomes", "been", "before", "beforehand", "behind", "being", "below", "beside",
    "besides", "between", "beyond", "both", "but", "by", "can", "cannot", "could", "couldn", "d",
    "did", "didn", "do", "does", "doesn", "doing", "don", "done", "down", "during", "each",
    "either", "else", "elsewhere", "enough", "etc", "even", "ever", "every", "everybody",
    "everyone", "everything", "everywhere", "few", "first", "for", "former", "formerly", "from",
    "further", "get", "gets", "got", "had", "hadn", "has", "hasn", "have", "haven", "having",
    "he", "hence", "her", "here", "hereby", "herein", "hers", "herself", "him", "himself", "his",
    "how", "however", "i", "if", "in", "indeed", "instead", "into", "is", "isn", "it", "its",
    "itself", "just", "last", "latter", "least", "less", "let", "like", "ll", "m", "made", "make",
    "many", "may", "maybe", "me", "meanwhile", "might", "mine", "more", "moreover", "most",
    "mostly", "much", "must", "my", "myself", "namely", "neither", "never", "nevertheless",
    "next", "no", "nobody", "none", "nor", "not", "nothing", "now", "nowhere", "of", "off",
    "often", "on", "once", "one", "only", "onto", "or", "other", "others", "otherwise", "ought",
    "our", "ours", "ourselves", "out", "over", "own", "per", "perhaps", "quite", "rather", "re",
    "really", "s", "said", "same", "say", "says", "see", "seem", "seemed", "seems", "several",
    "shall", "she", "should", "shouldn", "since", "so", "some", "somebody", "somehow", "someone",
    "something", "sometimes", "somewhere", "still", "such", "t", "than", "that", "the", "their",
    "theirs", "them", "themselves", "then", "thence", "there", "thereafter", "thereby",
    "therefore", "therein", "these", "they", "this", "those", "though", "through", "throughout",
    "thus", "to", "together", "too", "toward", "towards", "two", "under", "unless", "until", "up",
    "upon", "us", "use", "used", "using", "ve", "very", "via", "was", "wasn", "we", "well",
    "were", "weren", "what", "whatever", "when", "whenever", "where", "whereas", "wherever",
    "whether", "which", "while", "who", "whoever", "whole", "whom", "whose", "why", "will",
    "with", "within", "without", "won", "would", "wouldn", "yes", "yet", "you", "your", "yours",
    "yourself", "yourselves",
];

/// French function words (258).
#[rustfmt::skip]
static FR: &[&str] = &[
    "afin", "ai", "aie", "aient", "ainsi", "alors", "après", "as", "assez", "au", "aucun",
    "aucune", "aujourd", "auquel", "aura", "aurai", "auraient", "aurait", "auront", "aussi",
    "autant", "autour", "autre", "autres", "aux", "auxquelles", "auxquels", "avaient", "avais",
    "avait", "avant", "avec", "avez", "aviez", "avions", "avoir", "avons", "ayant", "beaucoup",
    "bien", "c", "car", "ce", "ceci", "cela", "celle", "celles", "celui", "cependant",
    "certaines", "certains", "ces", "cet", "cette", "ceux", "chacun", "chacune", "chaque", "chez",
    "ci", "comme", "comment", "contre", "d", "dans", "de", "dedans", "dehors", "depuis", "des",
    "desquelles", "desquels", "dessous", "dessus", "deux", "donc", "dont", "du", "duquel",
    "durant", "dès", "déjà", "elle", "elles", "en", "encore", "enfin", "entre", "envers", "es",
    "est", "et", "eu", "eux", "faire", "fais", "faisait", "fait", "fois", "font", "furent", "fut",
    "hors", "ici", "il", "ils", "j", "jamais", "je", "jusqu", "jusque", "l", "la", "laquelle",
    "le", "lequel", "les", "lesquelles", "lesquels", "leur", "leurs", "lors", "lorsqu", "lorsque",
    "lui", "là", "m", "ma", "mais", "malgré", "me", "mes", "moi", "moins", "mon", "même", "mêmes",
    "n", "ne", "ni", "non", "nos", "notre", "nous", "néanmoins", "nôtre", "on", "ont", "or", "ou",
    "où", "par", "parce", "parfois", "parmi", "pas", "pendant", "peu", "peut", "peuvent", "peux",
    "plus", "plusieurs", "plutôt", "pour", "pourquoi", "pourra", "pourrait", "pourtant",
    "pouvait", "près", "puis", "puisqu", "puisque", "qu", "quand", "quant", "que", "quel",
    "quelle", "quelles", "quelqu", "quelque", "quelques", "quels", "qui", "quoi", "s", "sa",
    "sans", "sauf", "se", "selon", "sera", "serai", "seraient", "serait", "seront", "ses", "si",
    "sien", "sienne", "soi", "soient", "soit", "sommes", "son", "sont", "sous", "souvent", "suis",
    "sur", "surtout", "t", "ta", "tandis", "tant", "te", "tel", "telle", "telles", "tels", "tes",
    "toi", "ton", "toujours", "tous", "tout", "toute", "toutes", "trop", "très", "tu", "un",
    "une", "unes", "uns", "va", "vers", "via", "voici", "voilà", "vont", "vos", "votre", "vous",
    "vôtre", "y", "à", "ça", "étaient", "étais", "était", "étant", "étions", "été", "êtes",
    "être",
];

/// German function words (306).
#[rustfmt::skip]
static DE: &[&str] = &[
    "ab", "aber", "alle", "allem", "allen", "aller", "allerdings", "alles", "als", "also", "am",
    "an", "ander", "andere", "anderem", "anderen", "anderer", "anderes", "anstatt", "auch", "auf",
    "aus", "außer", "außerdem", "bald", "bei", "beide", "beiden", "beim", "bereits", "besonders",
    "bin", "bis", "bisher", "bist", "bzw", "da", "dabei", "dadurch", "dafür", "dagegen", "daher",
    "damals", "damit", "danach", "daneben", "dann", "daran", "darauf", "daraus", "darf", "darin",
    "darum", "darunter", "darüber", "das", "dass", "davon", "dazu", "daß", "dein", "deine",
    "deinem", "deinen", "deiner", "dem", "demnach", "den", "denen", "denn", "dennoch", "der",
    "deren", "derer", "des", "deshalb", "dessen", "desto", "dich", "die", "dies", "diese",
    "diesem", "diesen", "dieser", "dieses", "dir", "doch", "dort", "du", "durch", "eben",
    "ebenfalls", "ebenso", "ehe", "eigentlich", "ein", "eine", "einem", "einen", "einer", "eines",
    "einige", "einigen", "einiger", "einiges", "einmal", "er", "es", "etwa", "etwas", "euch",
    "euer", "eure", "falls", "fast", "ferner", "für", "gab", "ganz", "gar", "gegen", "gegenüber",
    "gewesen", "gibt", "hab", "habe", "haben", "hast", "hat", "hatte", "hatten", "her", "heute",
    "hier", "hin", "hinter", "hätte", "hätten", "ich", "ihm", "ihn", "ihnen", "ihr", "ihre",
    "ihrem", "ihren", "ihrer", "ihres", "im", "immer", "in", "indem", "ins", "insbesondere",
    "ist", "ja", "je", "jede", "jedem", "jeden", "jeder", "jedes", "jedoch", "jene", "jenem",
    "jenen", "jener", "jenes", "jetzt", "kam", "kann", "kaum", "kein", "keine", "keinem",
    "keinen", "keiner", "können", "könnte", "könnten", "man", "manche", "manchem", "manchen",
    "mancher", "manches", "mehr", "mein", "meine", "meinem", "meinen", "meiner", "meist", "mich",
    "mir", "mit", "muss", "musste", "müssen", "nach", "nachdem", "neben", "nein", "nicht",
    "nichts", "noch", "nun", "nur", "ob", "obwohl", "oder", "ohne", "per", "schon", "sehr", "sei",
    "seid", "sein", "seine", "seinem", "seinen", "seiner", "seines", "seit", "selbst", "sich",
    "sie", "sind", "so", "sobald", "sodass", "sofern", "solch", "solche", "solchem", "solchen",
    "solcher", "soll", "sollen", "sollte", "sollten", "sondern", "sonst", "sowie", "sowohl",
    "statt", "trotz", "um", "und", "uns", "unser", "unsere", "unserem", "unseren", "unserer",
    "unter", "viel", "viele", "vielen", "vielleicht", "vom", "von", "vor", "war", "waren",
    "warum", "was", "weder", "wegen", "weil", "welche", "welchem", "welchen", "welcher",
    "welches", "wenig", "wenn", "wer", "werde", "werden", "wessen", "wie", "wieder", "will",
    "wir", "wird", "wo", "wobei", "wohl", "worden", "wurde", "wurden", "während", "wäre", "wären",
    "würde", "würden", "z", "zu", "zudem", "zum", "zur", "zwar", "zwischen", "über",
];

/// Italian function words (222).
#[rustfmt::skip]
static IT: &[&str] = &[
    "a", "abbia", "abbiamo", "ad", "agli", "ai", "al", "alcune", "alcuni", "all", "alla", "alle",
    "allo", "allora", "altre", "altri", "altro", "anche", "ancora", "avere", "aveva", "avevano",
    "avuto", "c", "che", "chi", "ché", "ci", "ciò", "coi", "col", "come", "comunque", "con",
    "contro", "cosa", "così", "cui", "d", "da", "dagli", "dai", "dal", "dall", "dalla", "dalle",
    "dallo", "degli", "dei", "del", "dell", "della", "delle", "dello", "dentro", "di", "dopo",
    "dov", "dove", "due", "dunque", "e", "ecco", "ed", "egli", "ella", "era", "erano", "essa",
    "esse", "essere", "essi", "esso", "fa", "fare", "fino", "fra", "fu", "fuori", "già", "gli",
    "ha", "hanno", "ho", "i", "il", "in", "infatti", "inoltre", "invece", "io", "l", "la", "le",
    "lei", "li", "lo", "loro", "lui", "ma", "mai", "me", "medesimo", "meno", "mentre", "mi",
    "mia", "mie", "miei", "mio", "molta", "molte", "molti", "molto", "ne", "negli", "nei", "nel",
    "nell", "nella", "nelle", "nello", "nemmeno", "neppure", "nessun", "nessuna", "nessuno",
    "niente", "no", "noi", "non", "nostra", "nostre", "nostri", "nostro", "o", "ogni", "oltre",
    "oppure", "ora", "per", "perché", "però", "più", "po", "poi", "poiché", "può", "qual",
    "qualche", "quale", "quali", "quando", "quanto", "quasi", "quel", "quella", "quelle",
    "quelli", "quello", "questa", "queste", "questi", "questo", "qui", "quindi", "se", "sebbene",
    "secondo", "sei", "sembra", "sempre", "senza", "si", "sia", "siamo", "siano", "sino", "solo",
    "sono", "sopra", "sotto", "sta", "stata", "state", "stati", "stato", "stesso", "su", "sua",
    "sue", "sui", "sul", "sull", "sulla", "sulle", "sullo", "suo", "suoi", "sé", "tale", "tali",
    "tanto", "te", "ti", "tra", "tre", "tu", "tua", "tue", "tuo", "tuoi", "tutta", "tutte",
    "tutti", "tutto", "un", "una", "uno", "vi", "voi", "è",
];

/// Spanish function words (167).
#[rustfmt::skip]
static ES: &[&str] = &[
    "a", "al", "algo", "alguien", "alguna", "algunas", "alguno", "algunos", "algún", "allí",
    "ante", "antes", "aquel", "aquella", "aquellas", "aquellos", "aquí", "así", "aun", "aunque",
    "aún", "bajo", "bien", "cada", "casi", "como", "con", "contra", "cual", "cuales", "cuando",
    "cuanto", "cuál", "cuándo", "cómo", "de", "del", "desde", "donde", "dos", "durante", "dónde",
    "e", "el", "ella", "ellas", "ello", "ellos", "en", "entonces", "entre", "era", "eran", "es",
    "esa", "esas", "ese", "eso", "esos", "esta", "estar", "estas", "este", "esto", "estos",
    "estoy", "está", "están", "fue", "fueron", "ha", "había", "habían", "han", "hasta", "hay",
    "la", "las", "le", "les", "lo", "los", "me", "mi", "mientras", "mis", "mismo", "mucho",
    "muchos", "muy", "más", "mí", "nada", "ni", "ninguna", "ninguno", "ningún", "no", "nos",
    "nosotros", "nuestra", "nuestras", "nuestro", "nuestros", "o", "os", "otra", "otras", "otro",
    "otros", "para", "pero", "poco", "por", "porque", "pues", "que", "quien", "quienes", "quién",
    "qué", "se", "sea", "sean", "según", "ser", "si", "sido", "siempre", "sin", "sino", "sobre",
    "sois", "somos", "son", "soy", "su", "sus", "sí", "también", "tan", "tanto", "te", "tener",
    "tiene", "tienen", "todas", "todavía", "todo", "todos", "tras", "tu", "tus", "tú", "u", "un",
    "una", "unas", "uno", "unos", "usted", "ustedes", "vosotros", "y", "ya", "yo", "él",
];

/// Czech function words (204).
#[rustfmt::skip]
static CS: &[&str] = &[
    "a", "aby", "ale", "anebo", "ani", "ano", "asi", "ač", "ačkoli", "ačkoliv", "až", "bez",
    "bude", "budem", "budeme", "budete", "budou", "bych", "bychom", "byl", "byla", "byli", "bylo",
    "byly", "být", "co", "cokoli", "což", "další", "do", "dokud", "i", "jak", "jako", "jakož",
    "jaká", "jaké", "jaký", "je", "jeho", "jej", "jejich", "její", "jemu", "jen", "jenom", "jenž",
    "jestli", "jestliže", "ještě", "jež", "ji", "jich", "jimi", "jinak", "jiná", "jiné", "jiný",
    "již", "jsem", "jsi", "jsme", "jsou", "jste", "jí", "jím", "k", "kam", "kde", "kdo", "kdy",
    "kdyby", "když", "ke", "kolik", "kterou", "která", "které", "který", "kteří", "kvůli", "mají",
    "mezi", "mi", "mnou", "mně", "moc", "moje", "my", "má", "mám", "máme", "máte", "mé", "mít",
    "mě", "můj", "může", "můžeme", "na", "nad", "naopak", "naše", "ne", "nebo", "nebyl", "nebyla",
    "nebylo", "nechť", "není", "než", "nic", "nich", "nimi", "nám", "námi", "nás", "náš", "ním",
    "něco", "nějak", "nějaká", "nějaké", "nějaký", "někde", "někdo", "o", "od", "ode", "on",
    "ona", "oni", "ono", "ony", "pak", "po", "pod", "podle", "pokud", "potom", "pouze", "pro",
    "proto", "protože", "proč", "právě", "před", "přes", "přesto", "při", "s", "se", "si", "sice",
    "snad", "svou", "své", "svých", "svůj", "ta", "tady", "tak", "také", "takže", "tam", "tato",
    "tedy", "ten", "tento", "to", "tohle", "toho", "tom", "tomto", "tomu", "toto", "tu", "tuto",
    "ty", "tyto", "tím", "tě", "těch", "u", "už", "v", "vaše", "ve", "velmi", "vy", "vám", "vámi",
    "vás", "váš", "však", "všechno", "všichni", "z", "za", "zda", "ze", "či", "čí", "že",
];

/// Portuguese function words (195).
#[rustfmt::skip]
static PT: &[&str] = &[
    "a", "ainda", "ali", "além", "ao", "aos", "apenas", "após", "aquela", "aquelas", "aquele",
    "aqueles", "aqui", "aquilo", "as", "assim", "até", "bem", "cada", "com", "como", "contra",
    "contudo", "cuja", "cujo", "da", "daquela", "daquele", "das", "de", "dela", "delas", "dele",
    "deles", "depois", "desde", "dessa", "desse", "desta", "deste", "disso", "disto", "do", "dos",
    "durante", "e", "ela", "elas", "ele", "eles", "em", "embora", "enquanto", "entre", "era",
    "eram", "essa", "essas", "esse", "esses", "esta", "estar", "estas", "estava", "estavam",
    "este", "estes", "estou", "está", "estão", "eu", "faz", "fazer", "feito", "foi", "for",
    "foram", "fosse", "havia", "há", "isso", "isto", "já", "lhe", "lhes", "lá", "mais", "mas",
    "me", "mesma", "mesmas", "mesmo", "mesmos", "meu", "meus", "minha", "minhas", "muita",
    "muitas", "muito", "muitos", "na", "nas", "nem", "nessa", "nesse", "nesta", "neste", "nisso",
    "no", "nos", "nossa", "nossas", "nosso", "nossos", "num", "numa", "não", "nós", "o", "onde",
    "os", "ou", "outra", "outras", "outro", "outros", "para", "pela", "pelas", "pelo", "pelos",
    "pode", "podem", "pois", "por", "porque", "porquê", "porém", "pouco", "quais", "qual",
    "qualquer", "quando", "quanto", "que", "quem", "se", "seja", "sejam", "sem", "sempre",
    "sendo", "ser", "seria", "será", "seu", "seus", "si", "sido", "sob", "sobre", "sua", "suas",
    "são", "também", "tanto", "te", "tem", "temos", "tendo", "ter", "teu", "tinha", "tinham",
    "toda", "todas", "todo", "todos", "tu", "tua", "tudo", "tão", "têm", "um", "uma", "umas",
    "uns", "vai", "você", "vocês", "vos", "à", "às", "é",
];

/// Dutch function words (187).
#[rustfmt::skip]
static NL: &[&str] = &[
    "aan", "aangezien", "al", "alhoewel", "alle", "alleen", "alles", "als", "alsof", "altijd",
    "andere", "anders", "beide", "ben", "bij", "bijna", "bijvoorbeeld", "binnen", "boven",
    "buiten", "daar", "daarbij", "daardoor", "daarin", "daarna", "daarom", "daarop", "daarvan",
    "dan", "dat", "de", "deze", "dezelfde", "die", "dit", "doch", "doen", "door", "dus", "echter",
    "een", "eens", "eerst", "eigen", "elk", "elke", "en", "enkele", "er", "erg", "even",
    "evenals", "ge", "geen", "geweest", "haar", "had", "hadden", "heb", "hebben", "heeft", "hem",
    "hen", "het", "hier", "hierdoor", "hierin", "hij", "hoe", "hoewel", "hun", "ieder", "iedere",
    "iemand", "iets", "ik", "immers", "in", "is", "ja", "je", "jezelf", "jij", "jou", "jouw",
    "jullie", "kan", "komen", "kon", "kunnen", "laat", "maar", "me", "meer", "men", "met", "mij",
    "mijn", "moet", "moeten", "na", "naar", "naast", "net", "niemand", "niet", "niets", "nog",
    "nooit", "nou", "nu", "of", "ofwel", "om", "omdat", "ondanks", "onder", "ongeveer", "ons",
    "onze", "ook", "op", "opdat", "over", "pas", "rond", "samen", "sinds", "steeds", "te",
    "tegen", "terwijl", "tijdens", "toch", "toe", "toen", "tot", "tussen", "u", "uit", "uw",
    "vaak", "van", "vanaf", "veel", "verder", "voor", "vooral", "waar", "waarom", "wanneer",
    "want", "waren", "was", "wat", "we", "weer", "wel", "welk", "welke", "wellicht", "werd",
    "werden", "wie", "wiens", "wier", "wij", "wil", "worden", "wordt", "zal", "ze", "zeer", "zei",
    "zelf", "zelfs", "zich", "zij", "zijn", "zo", "zoals", "zodat", "zonder", "zou", "zouden",
    "zowel", "zullen",
];

/// Polish function words (197).
#[rustfmt::skip]
static PL: &[&str] = &[
    "a", "aby", "albo", "ale", "ani", "aż", "bardzo", "bez", "bo", "bowiem", "by", "byli", "być",
    "był", "była", "było", "będzie", "będą", "chociaż", "chyba", "ci", "co", "coś", "czego",
    "czy", "czyli", "czym", "dalej", "dla", "dlatego", "do", "dość", "dziś", "gdy", "gdyby",
    "gdyż", "gdzie", "go", "i", "ich", "ile", "im", "inne", "innych", "iż", "ja", "jak", "jakby",
    "jaki", "jakie", "jakiś", "jako", "je", "jeden", "jedna", "jednak", "jedno", "jego", "jej",
    "jemu", "jest", "jestem", "jesteś", "jesteśmy", "jeszcze", "jeśli", "jeżeli", "już", "każdy",
    "kiedy", "kto", "która", "które", "którego", "której", "który", "których", "którym", "ku",
    "lub", "ma", "mają", "mam", "mi", "między", "mnie", "mną", "mogą", "moja", "moje", "może",
    "można", "mu", "my", "mój", "na", "nad", "nam", "nas", "nasz", "nasza", "nasze", "naszych",
    "natomiast", "nawet", "nic", "nich", "nie", "niech", "niego", "niej", "niemu", "nigdy", "nim",
    "nimi", "nią", "niż", "o", "obok", "od", "około", "on", "ona", "one", "oni", "ono", "oraz",
    "po", "pod", "podczas", "ponieważ", "potem", "poza", "prawie", "przecież", "przed", "przez",
    "przy", "raz", "sam", "sama", "się", "sobie", "sobą", "swoich", "swoje", "swoją", "swój",
    "są", "ta", "tak", "taki", "takie", "także", "tam", "te", "tego", "tej", "ten", "teraz",
    "też", "to", "tobie", "tu", "tutaj", "twój", "ty", "tych", "tylko", "tym", "tą", "tę", "u",
    "w", "wam", "was", "wasz", "we", "według", "wiele", "więc", "więcej", "wszyscy", "wszystkie",
    "wszystko", "wtedy", "właśnie", "wśród", "z", "za", "zanim", "zawsze", "ze", "znowu", "żaden",
    "że", "żeby",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_unique_and_lower_case() {
        for lang in LANGUAGES {
            let list = stopwords(lang).unwrap_or_default();
            assert!(list.len() > 150, "{lang}: {} words", list.len());
            for pair in list.windows(2) {
                assert!(
                    pair[0] < pair[1],
                    "{lang}: {:?} before {:?}",
                    pair[0],
                    pair[1]
                );
            }
            for word in list {
                assert_eq!(*word, word.to_lowercase(), "{lang}");
                assert!(word.chars().all(char::is_alphanumeric), "{lang}: {word:?}");
            }
        }
    }

    #[test]
    fn look_ups() {
        assert!(is_stopword("fr", "les"));
        assert!(is_stopword("fr", "Où"));
        assert!(is_stopword("fr-FR", "qu"));
        assert!(!is_stopword("fr", "maison"));
        assert!(is_stopword("EN", "The"));
        assert!(!is_stopword("en", "house"));
        assert!(is_stopword("de", "über"));
        assert!(is_stopword("it", "perché"));
        assert!(is_stopword("es", "también"));
        assert!(is_stopword("cs", "že"));
        assert!(is_stopword("pt", "não"));
        assert!(is_stopword("nl", "niet"));
        assert!(is_stopword("pl", "się"));
        assert!(!is_stopword("xx", "the"));
        assert!(stopwords("ru").is_none());
        assert!(stopwords("").is_none());
    }
}
