"""The corpora of scripts/bench-kwic: a seeded Zipf corpus written as a CWB vertical file, the
statistics of any vertical file, and the choice of the query terms from those statistics.

Generated corpus (`generate`, needs numpy)
    VOCAB lemmas; lemma r (0-based rank) is drawn with probability proportional to
    (r + 1)^-EXPONENT. Lemma r has a fixed part of speech: the ~200 most frequent lemmas are
    function words (DET, ADP, PRON, AUX, CCONJ, SCONJ, ADV, VERB; twelve of them punctuation),
    the others open-class (NOUN, VERB, ADJ, PROPN, ADV, NUM), which gives token shares close
    to a UD French treebank's (measured: NOUN 19.9 %, ADP 17.4, PUNCT 12.4, DET 11.3,
    VERB 10.8, ADJ 6.4, PRON 5.3, PROPN 5.1, ADV 3.0, CCONJ 2.9, AUX 2.4, NUM 1.7, SCONJ 1.4).
    Its spelling is a stem of CV syllables numbering r, its word forms 1-4 inflections of the
    stem by part of speech (NOUN bari/baris, ADJ bari/barie/baris/baries, VERB
    barier/barie/barient/barié, ADV bariment, PROPN Bari, NUM 1234): no two lemmas share a
    form, capitalised or not. Sentences have 5-40 tokens (log-normal around 18) and end with
    . ? or !, their first word capitalised; paragraphs 1-8 sentences; documents 1-30
    paragraphs, each `<text id host lang>` on one of 50 hosts. The corpus stops after exactly
    N tokens (the last sentence is cut). One lemma, the collocation node (probability ~1e-3,
    i.e. ~100 k hits at 100 M tokens), is followed half the time by one of five planted ADJ
    partners, which must come out on top of a logDice list.
    Written in chunks of whole documents (bounded memory, numpy vectorised); the generator
    counts every form, lemma and ADJ+lemma pair as it writes, for the expected answers, and,
    for the lower-case forms of the CLOSED_RANKS most frequent lemmas (where the word of
    ~N/100 hits is), their hits per host and the words before them (L1, inside the document)
    that sort first (SMALL_KEYS lowest sort keys), for the breakdown and the sort.

Statistics of an existing file (`scan_vrt`): the same counts by reading the file once.
"""

import json
import math
import re
import time

VOCAB = 200_000
EXPONENT = 1.05
HOSTS = 50
CONSONANTS = "bcdfglmnprstv"
VOWELS = "aeiouéè"
SYLLABLES = [c + v for c in CONSONANTS for v in VOWELS]
TAGS = ["NOUN", "VERB", "ADJ", "ADV", "DET", "ADP", "PRON", "PUNCT", "PROPN", "AUX", "CCONJ",
        "SCONJ", "NUM"]
CLOSED = {"DET": .25, "ADP": .25, "PRON": .2, "AUX": .08, "CCONJ": .06, "SCONJ": .06,
          "ADV": .05, "VERB": .05}
OPEN = {"NOUN": .45, "VERB": .2, "ADJ": .15, "PROPN": .12, "ADV": .04, "NUM": .04}
CLOSED_RANKS = 200
# Punctuation lemmas at fixed ranks (0-based).
PUNCT = {1: ",", 4: ".", 25: ":", 40: "(", 41: ")", 60: "?", 80: "!", 90: ";", 120: "«",
         121: "»", 150: "-", 199: "..."}
# The most frequent function words, as in French (de, le, la, et, à, il, ...).
TOP = {0: "ADP", 2: "DET", 3: "DET", 5: "CCONJ", 6: "ADP", 7: "PRON", 8: "DET", 9: "AUX",
       10: "ADP", 11: "PRON", 12: "VERB", 13: "SCONJ", 14: "ADV"}
# Inflections by part of speech: (lemma suffix, [(form suffix, weight), ...]).
FORMS = {
    "NOUN": ("", [("", .75), ("s", .25)]),
    "ADJ": ("", [("", .4), ("e", .3), ("s", .2), ("es", .1)]),
    "VERB": ("er", [("er", .3), ("e", .35), ("ent", .15), ("é", .2)]),
    "AUX": ("er", [("e", .5), ("ent", .2), ("er", .1), ("é", .2)]),
    "DET": ("", [("", .5), ("e", .3), ("s", .2)]),
    "PRON": ("", [("", .8), ("s", .2)]),
    "ADV": ("ment", [("ment", 1.0)]),
}
PARTNERS = 5
CHUNK_TOKENS = 2_000_000
# The L1 words counted before each candidate word: those of the SMALL_KEYS lowest sort keys
# (glaneur's `--sort L1` key: the word in lower case, compared by code point; no word = "").
SMALL_KEYS = 64
SORT_FIRST = 50


def stem(r):
    """Bijective base-len(SYLLABLES) numeral of r + 1, in syllables: distinct for every r."""
    n, out = r + 1, []
    while n:
        n, d = divmod(n - 1, len(SYLLABLES))
        out.append(SYLLABLES[d])
    return "".join(reversed(out))


def lexicon(np, rng):
    """Per lemma: pos index, lemma string, up to 4 forms and their cumulative weights."""
    pos = np.empty(VOCAB, dtype=np.int8)
    closed = rng.choice([TAGS.index(t) for t in CLOSED], CLOSED_RANKS, p=list(CLOSED.values()))
    opened = rng.choice([TAGS.index(t) for t in OPEN], VOCAB - CLOSED_RANKS, p=list(OPEN.values()))
    pos[:CLOSED_RANKS], pos[CLOSED_RANKS:] = closed, opened
    for r, t in TOP.items():
        pos[r] = TAGS.index(t)
    for r in PUNCT:
        pos[r] = TAGS.index("PUNCT")
    lemmas, forms = [], []
    cdf = np.ones((VOCAB, 4))
    rows = {t: np.minimum(np.cumsum([w for _, w in infl] + [1.0] * (4 - len(infl))), 1.0)
            for t, (_, infl) in FORMS.items()}
    for t in rows:
        rows[t][len(FORMS[t][1]) - 1:] = 1.0
    for r, p in enumerate(pos.tolist()):
        tag = TAGS[p]
        if tag == "PUNCT":
            lemma = PUNCT[r]
            fs = [lemma]
        elif tag == "NUM":
            lemma = str(r)
            fs = [lemma]
        elif tag in ("PROPN", "ADP", "CCONJ", "SCONJ"):
            lemma = stem(r).capitalize() if tag == "PROPN" else stem(r)
            fs = [lemma]
        else:
            st = stem(r)
            suffix, infl = FORMS[tag]
            lemma = st + suffix
            fs = [st + s for s, _ in infl]
            cdf[r] = rows[tag]
        lemmas.append(lemma)
        forms.append(fs)
    return pos, lemmas, forms, cdf


def line_table(pos, lemmas, forms):
    """Every output line, indexed by (lemma * 4 + form) * 2 + capitalised."""
    table = [b""] * (VOCAB * 8)
    for r, (lemma, fs) in enumerate(zip(lemmas, forms)):
        tail = f"\t{TAGS[pos[r]]}\t{lemma}\n"
        for k, f in enumerate(fs):
            table[(r * 4 + k) * 2] = (f + tail).encode()
            table[(r * 4 + k) * 2 + 1] = (f[:1].upper() + f[1:] + tail).encode()
    return table + [b"<s>\n", b"</s>\n", b"<p>\n", b"</p>\n", b"</text>\n"]


def generate(path, n_tokens, seed, sample_tokens):
    """Writes the corpus; returns its statistics (see `stats_from_arrays`) and those of the
    prefix that ends with the first document end at or past `sample_tokens` tokens."""
    import numpy as np
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    pos, lemmas, forms, form_cdf = lexicon(np, rng)
    weights = (np.arange(1, VOCAB + 1, dtype=np.float64)) ** -EXPONENT
    prob = weights / weights.sum()
    cdf = np.cumsum(prob)
    cdf[-1] = 1.0
    table = line_table(pos, lemmas, forms)
    base = len(table)
    S_OPEN, S_CLOSE, P_OPEN, P_CLOSE, T_CLOSE = range(base - 5, base)
    host_w = 1.0 / np.arange(1, HOSTS + 1)
    host_w /= host_w.sum()
    tag = {t: TAGS.index(t) for t in TAGS}
    # The collocation node: the lemma (not punctuation) of probability closest to 1e-3; its
    # partners: the ADJ lemmas closest to rank 3000.
    words = np.flatnonzero(pos != tag["PUNCT"])
    node = int(words[np.argmin(np.abs(prob[words] - 1e-3))])
    adjs = np.flatnonzero(pos == tag["ADJ"])
    partners = adjs[np.argsort(np.abs(adjs - 3000))[:PARTNERS]]
    first_det = int(np.flatnonzero(pos == tag["DET"])[0])
    finals = np.array([4, 60, 80])  # . ? !

    # Candidates for the breakdown word: the lower-case forms of the most frequent lemmas;
    # their hits per host and their L1 words of the lowest sort keys (index NO_L1 = the hit
    # starts its document).
    cand_ids = np.array([(r * 4 + k) * 2 for r in range(CLOSED_RANKS)
                         for k in range(len(forms[r]))], np.int64)
    cand_of = np.full(VOCAB * 8, -1, np.int64)
    cand_of[cand_ids] = np.arange(len(cand_ids))
    NO_L1 = VOCAB * 8
    small_keys = set(sorted({f.lower() for fs in forms for f in fs})[:SMALL_KEYS])
    small_ids = [NO_L1] + [(r * 4 + k) * 2 + c for r, fs in enumerate(forms)
                           for k, f in enumerate(fs) if f.lower() in small_keys
                           for c in (0, 1)]
    small_of = np.full(VOCAB * 8 + 1, -1, np.int64)
    small_of[small_ids] = np.arange(len(small_ids))
    n_cand, n_small = len(cand_ids), len(small_ids)
    total = dict(forms=np.zeros(VOCAB * 8, np.int64), lemmas=np.zeros(VOCAB, np.int64),
                 adj_before=np.zeros(VOCAB, np.int64), tokens=0, texts=0, paragraphs=0,
                 sentences=0, bytes=0, cand_host=np.zeros((n_cand, HOSTS), np.int64),
                 cand_l1=np.zeros((n_cand, n_small), np.int64))
    sample = None
    written, doc_no = 0, 0
    with open(path, "wb") as out:
        while written < n_tokens:
            # Structure: documents -> paragraphs -> sentences, about CHUNK_TOKENS tokens.
            n_docs = max(1, CHUNK_TOKENS // 600)
            pars = np.minimum(rng.geometric(1 / 8, n_docs), 30)
            sents = 1 + rng.binomial(7, 0.4, pars.sum())
            lens = np.clip(np.rint(np.exp(rng.normal(math.log(18), 0.45, sents.sum()))), 5, 40)
            lens = lens.astype(np.int64)
            sent_par = np.repeat(np.arange(len(sents)), sents)
            par_doc = np.repeat(np.arange(n_docs), pars)
            ends = np.cumsum(lens)
            if written + ends[-1] >= n_tokens:  # the last chunk: cut at exactly n_tokens
                cut = int(np.searchsorted(ends, n_tokens - written))
                lens = lens[:cut + 1]
                lens[-1] -= ends[cut] - (n_tokens - written)
                sent_par = sent_par[:cut + 1]
                par_doc = par_doc[:sent_par[-1] + 1]
            n_s, n_p, n_d = len(lens), len(par_doc), int(par_doc[-1]) + 1
            sent_doc = par_doc[sent_par]
            first_s_of_p = np.r_[True, sent_par[1:] != sent_par[:-1]]
            last_s_of_p = np.r_[sent_par[1:] != sent_par[:-1], True]
            first_s_of_d = np.r_[True, sent_doc[1:] != sent_doc[:-1]]
            last_s_of_d = np.r_[sent_doc[1:] != sent_doc[:-1], True]
            # Tokens.
            t = int(lens.sum())
            starts = np.cumsum(lens) - lens
            lem = np.searchsorted(cdf, rng.random(t), side="right")
            initial = np.zeros(t, bool)
            initial[starts] = True
            final = np.zeros(t, bool)
            final[starts + lens - 1] = True
            lem[initial & (pos[lem] == tag["PUNCT"])] = first_det
            lem[~final & np.isin(lem, finals)] = 1  # . ? ! end sentences only: "," instead
            lem[final] = finals[np.searchsorted([.9, .95], rng.random(n_s), side="right")]
            hits = np.flatnonzero((lem[:-1] == node) & ~final[:-1] & ~final[1:])
            hits = hits[rng.random(len(hits)) < 0.5]
            lem[hits + 1] = partners[rng.integers(0, PARTNERS, len(hits))]
            k = (rng.random(t)[:, None] > form_cdf[lem]).sum(axis=1)
            tok_pos = pos[lem]
            cap = initial & (tok_pos != tag["PUNCT"]) & (tok_pos != tag["NUM"])
            ids = (lem * 4 + k) * 2 + cap
            # Lines: each sentence is [<text ...>] [<p>] <s> tokens </s> [</p>] [</text>].
            opens = 1 + first_s_of_p + first_s_of_d
            closes = 1 + last_s_of_p + last_s_of_d
            sent_line = np.cumsum(opens + lens + closes) - (opens + lens + closes)
            lines = np.empty(int((opens + lens + closes).sum()), np.int64)
            tok_line = np.repeat(sent_line + opens - starts, lens) + np.arange(t)
            lines[tok_line] = ids
            docs_here = np.flatnonzero(first_s_of_d)
            lines[sent_line[docs_here]] = base + np.arange(len(docs_here))
            lines[sent_line[first_s_of_p] + first_s_of_d[first_s_of_p]] = P_OPEN
            lines[sent_line + opens - 1] = S_OPEN
            after = sent_line + opens + lens
            lines[after] = S_CLOSE
            lines[after[last_s_of_p] + 1] = P_CLOSE
            lines[after[last_s_of_d] + 1 + last_s_of_p[last_s_of_d]] = T_CLOSE
            hosts = rng.choice(HOSTS, n_d, p=host_w) + 1
            tok_host = np.repeat(hosts[sent_doc] - 1, lens)  # 0-based host of each token
            doc_start = np.zeros(t, bool)
            doc_start[starts[first_s_of_d]] = True
            heads = [f'<text id="d{doc_no + i + 1:06d}" host="h{h}.test" lang="fr">\n'.encode()
                     for i, h in enumerate(hosts.tolist())]
            doc_no += n_d
            chunk_table = table + heads
            # The sample's end: the first document end at or past sample_tokens.
            doc_starts = starts[first_s_of_d]
            parts, snap = [(0, t, 0, len(lines))], None
            if sample is None and written + t >= sample_tokens:
                doc_end_tok = (starts + lens)[last_s_of_d]
                i = int(np.searchsorted(written + doc_end_tok, sample_tokens))
                snap = 0
                if doc_end_tok[i] < t:
                    cut_line = int(after[last_s_of_d][i]) + 3  # past </s> </p> </text>
                    parts = [(0, int(doc_end_tok[i]), 0, cut_line),
                             (int(doc_end_tok[i]), t, cut_line, len(lines))]
            for j, (a, b, la, lb) in enumerate(parts):
                data = b"".join(map(chunk_table.__getitem__, lines[la:lb].tolist()))
                out.write(data)
                total["bytes"] += len(data)
                total["forms"] += np.bincount(ids[a:b], minlength=VOCAB * 8)
                total["lemmas"] += np.bincount(lem[a:b], minlength=VOCAB)
                nxt = np.arange(a, b - 1)
                nxt = nxt[(tok_pos[nxt] == tag["ADJ"]) & ~initial[nxt + 1]] + 1
                total["adj_before"] += np.bincount(lem[nxt], minlength=VOCAB)
                total["tokens"] += b - a
                # The candidates' hits per host and their L1 words of the lowest keys.
                at = np.flatnonzero(cand_of[ids[a:b]] >= 0) + a
                c = cand_of[ids[at]]
                total["cand_host"] += np.bincount(c * HOSTS + tok_host[at],
                                                  minlength=n_cand * HOSTS).reshape(n_cand, HOSTS)
                s = small_of[np.where(doc_start[at], NO_L1, ids[at - 1])]
                keep = s >= 0
                total["cand_l1"] += np.bincount(c[keep] * n_small + s[keep],
                                                minlength=n_cand * n_small).reshape(n_cand,
                                                                                    n_small)
                total["texts"] += int(np.count_nonzero((doc_starts >= a) & (doc_starts < b)))
                ps = starts[first_s_of_p]
                total["paragraphs"] += int(np.count_nonzero((ps >= a) & (ps < b)))
                total["sentences"] += int(np.count_nonzero((starts >= a) & (starts < b)))
                if j == snap:
                    sample = {key: (v.copy() if hasattr(v, "copy") else v)
                              for key, v in total.items()}
            written += t
    seconds = time.perf_counter() - t0
    meta = dict(vocab=VOCAB, exponent=EXPONENT, seed=seed, generate_s=round(seconds, 1),
                node_lemma=lemmas[node], partners=[lemmas[p] for p in partners])
    cand = dict(ids=cand_ids.tolist(), small=small_ids, no_l1=NO_L1)
    full = stats_from_arrays(total, pos, lemmas, forms, cand)
    part = stats_from_arrays(sample, pos, lemmas, forms, cand) if sample else full
    return meta, full, part


def id_word(i, forms):
    """The word written for a form id ((lemma * 4 + form) * 2 + capitalised)."""
    r, rest = divmod(i, 8)
    k, cap = divmod(rest, 2)
    f = forms[r][k]
    return f[:1].upper() + f[1:] if cap else f  # a PROPN is capitalised either way


def stats_from_arrays(total, pos, lemmas, forms, cand):
    """Counts as plain dicts (only the non-zero ones), the shape `scan_vrt` returns;
    `words_by_host` and `l1` only for the candidate words (`l1` partial: the L1 words of the
    lowest sort keys only)."""
    import numpy as np
    by_host, l1 = {}, {}
    for j, i in enumerate(cand["ids"]):
        w = id_word(i, forms)
        counts = total["cand_host"][j]
        if counts.any() and w == w.lower():  # (a PROPN's two ids write the same word)
            by_host[w] = {f"h{h + 1}.test": int(n) for h, n in enumerate(counts.tolist()) if n}
            keys = {}
            for s, n in zip(cand["small"], total["cand_l1"][j].tolist()):
                if n:
                    key = "" if s == cand["no_l1"] else id_word(s, forms).lower()
                    keys[key] = keys.get(key, 0) + n
            l1[w] = dict(keys=sorted(keys.items()), partial=True)
    words = {}
    for i in np.flatnonzero(total["forms"]).tolist():
        w = id_word(i, forms)
        words[w] = words.get(w, 0) + int(total["forms"][i])
    nz = np.flatnonzero(total["lemmas"]).tolist()
    return dict(
        tokens=int(total["tokens"]), texts=total["texts"], paragraphs=total["paragraphs"],
        sentences=total["sentences"], bytes=total["bytes"], words=words,
        lemmas={lemmas[r]: int(total["lemmas"][r]) for r in nz},
        lemma_pos={lemmas[r]: TAGS[pos[r]] for r in nz},
        adj_before={lemmas[r]: int(n) for r, n in enumerate(total["adj_before"].tolist()) if n},
        words_by_host=by_host, l1=l1)


ATTR = re.compile(r"^<(/?)(\w+)")


HOST = re.compile(r'\bhost="([^"]*)"')


def scan_vrt(path, max_tokens=None, focus=()):
    """The statistics of a vertical file: tokens, structures, counts of words, lemmas and
    ADJ+lemma pairs within a sentence, and whether the structure is balanced and every token
    line has the same number of columns. Stops at the first `</text>` at or past max_tokens.
    `<g/>` glue marks and other empty elements are skipped. For the words in `focus`: their
    hits per document host (`words_by_host`) and the sort keys of the words before them inside
    the document (`l1`, complete; "" when a hit starts its document)."""
    words, lemmas, lemma_pos, adj_before = {}, {}, {}, {}
    focus = set(focus)
    by_host = {w: {} for w in focus}
    l1 = {w: {} for w in focus}
    host, prev_word = "", None
    n = texts = paragraphs = sentences = 0
    stack, problems, columns = [], [], set()
    prev_adj = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("<"):
                m = ATTR.match(line)
                if not m or line.endswith("/>"):
                    continue
                closing, name = m.groups()
                if closing:
                    if not stack or stack.pop() != name:
                        problems.append(f"unbalanced </{name}> after token {n}")
                    if name == "text" and max_tokens and n >= max_tokens:
                        break
                else:
                    stack.append(name)
                    texts += name == "text"
                    paragraphs += name == "p"
                    sentences += name == "s"
                    if name == "text":
                        h = HOST.search(line)
                        host, prev_word = (h.group(1) if h else ""), None
                prev_adj = False
                continue
            cols = line.split("\t")
            columns.add(len(cols))
            n += 1
            w = cols[0]
            words[w] = words.get(w, 0) + 1
            if w in focus:
                by_host[w][host] = by_host[w].get(host, 0) + 1
                key = "" if prev_word is None else prev_word.lower()
                l1[w][key] = l1[w].get(key, 0) + 1
            prev_word = w
            if len(cols) >= 3:
                p, lem = cols[1], cols[2]
                lemmas[lem] = lemmas.get(lem, 0) + 1
                lemma_pos.setdefault(lem, p)
                if prev_adj:
                    adj_before[lem] = adj_before.get(lem, 0) + 1
                prev_adj = p == "ADJ"
    if stack:
        problems.append(f"unclosed at the end: {stack}")
    return dict(tokens=n, texts=texts, paragraphs=paragraphs, sentences=sentences,
                words=words, lemmas=lemmas, lemma_pos=lemma_pos, adj_before=adj_before,
                columns=sorted(columns), problems=problems,
                words_by_host={w: c for w, c in by_host.items() if c},
                l1={w: dict(keys=sorted(c.items()), partial=False) for w, c in l1.items() if c})


def is_punct(s):
    return not any(c.isalnum() for c in s)


def has_letter(s):
    return any(c.isalpha() for c in s)


def choose_queries(stats, n_tokens):
    """The query terms, from the statistics alone:
    kwic_word    the word (as written, lower case, with a letter) whose count is closest to
                 max(200, N / 100,000)
    count_word   the most frequent word (as written, lower case, with a letter)
    seq_lemma    the most frequent NOUN lemma with [pos="ADJ"][lemma=x] hits within a sentence
                 (any lemma with such hits when there are no NOUNs)
    colloc_term  the lemma (not punctuation) whose count is closest to 100,000 x N / 100 M;
                 a word when the file has no lemma column (colloc_attr says which)
    freq_word    the word (as kwic_word) whose count is closest to N / 100 (1 M hits at
                 100 M tokens): the breakdown by host, the sort by L1, the random sample
    """
    words = [(c, w) for w, c in stats["words"].items() if has_letter(w) and w == w.lower()]
    words = words or [(c, w) for w, c in stats["words"].items() if has_letter(w)]
    if not words:
        raise SystemExit("bench-kwic: the corpus has no word with a letter")
    target = max(200, n_tokens // 100_000)
    q = dict(kwic_word=min(words, key=lambda cw: (abs(cw[0] - target), cw[1]))[1],
             count_word=max(words)[1])
    q["freq_word"] = min(words, key=lambda cw: (abs(cw[0] - n_tokens / 100), cw[1]))[1]
    pairs = stats["adj_before"]
    nouns = [x for x in pairs if stats["lemma_pos"].get(x) == "NOUN"] or list(pairs)
    if nouns:
        q["seq_lemma"] = max(nouns, key=lambda x: (stats["lemmas"][x], x))
    q["colloc_attr"] = "lemma" if stats["lemmas"] else "word"
    counts = stats["lemmas"] or stats["words"]
    target = 100_000 * n_tokens / 100_000_000
    q["colloc_term"] = min((abs(c - target), x) for x, c in counts.items() if not is_punct(x))[1]
    return q


def expected(stats, q):
    """What a correct engine answers to the queries `q` on the corpus of these statistics."""
    e = dict(tokens=stats["tokens"], kwic_hits=stats["words"].get(q["kwic_word"], 0),
             count_hits=stats["words"].get(q["count_word"], 0))
    if "seq_lemma" in q:
        e["seq_hits"] = stats["adj_before"].get(q["seq_lemma"], 0)
    e["colloc_hits"] = stats[q["colloc_attr"] + "s"].get(q["colloc_term"], 0)
    if "freq_word" in q:
        w = q["freq_word"]
        e["freq_hits"] = stats["words"].get(w, 0)
        # None when these statistics did not count this word by host (then glaneur and NLTK
        # are compared with each other only).
        e["freq_by_host"] = stats.get("words_by_host", {}).get(w)
        e["sort_l1"] = first_keys(stats.get("l1", {}).get(w), e["freq_hits"])
    return e


def first_keys(l1, hits, n=SORT_FIRST):
    """The sort keys of the first n lines of `--sort L1` (the n smallest, in order), from the
    counted L1 keys; None when they are not known (not counted, or only the lowest keys were
    counted and they are fewer than n)."""
    if l1 is None:
        return None
    out = []
    for key, c in l1["keys"]:
        out.extend([key] * min(c, n - len(out)))
        if len(out) >= n:
            break
    return out if len(out) >= min(n, hits) or not l1["partial"] else None


def summary(stats):
    """The corpus's size and shape, for the report."""
    shares = {}
    for lemma, n in stats["lemmas"].items():
        p = stats["lemma_pos"][lemma]
        shares[p] = shares.get(p, 0) + n
    n = max(stats["tokens"], 1)
    counts = stats["lemmas"] or stats["words"]
    return dict(tokens=stats["tokens"], texts=stats["texts"], paragraphs=stats["paragraphs"],
                sentences=stats["sentences"], distinct_words=len(stats["words"]),
                distinct_lemmas=len(stats["lemmas"]),
                zipf_slope_ranks_10_10000=round(zipf_slope(counts.values()) or 0, 3),
                pos_percent={p: round(100 * c / n, 1)
                             for p, c in sorted(shares.items(), key=lambda pc: -pc[1])})


def zipf_slope(counts, lo=10, hi=10_000):
    """Least-squares slope of log(count) on log(rank) over ranks lo..hi (1-based)."""
    c = sorted(counts, reverse=True)[lo - 1:hi]
    if len(c) < 3:
        return None
    xs = [math.log(r) for r in range(lo, lo + len(c))]
    ys = [math.log(v) for v in c]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def save(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
