"""The Python side of scripts/bench-kwic: NLTK's concordancer on the same vertical file.

Run as a child process (`python bench_kwic_peer.py VRT QUERIES.json OUT.json --max-tokens M
--repeat R`) under /usr/bin/time -v, so that its start-up, imports and peak memory are its own.

What NLTK offers, and what this does with it
    load     NLTK has no reader for CWB vertical files: the file is read line by line into three
             parallel token lists (word, pos, lemma; strings shared through one dict), a
             bytearray marking sentence starts (1) and document starts (2), and an array of
             each token's document host (a number: 4 bytes a token; the names in a list),
             stopping at the first </text> at or past M tokens.
    index    nltk.text.ConcordanceIndex(words) (case-sensitive, as CQL's [word="W"]) and
             ConcordanceIndex(lemmas): word -> list of offsets, in memory only (NLTK keeps no
             index on disk: every new Python session rebuilds it).
    kwic     index.find_concordance(W)[:50], as nltk.Text.concordance_list does (NLTK builds
             the ConcordanceLine of every hit, then keeps the first 50).
    count    len(index.offsets(W)).
    sequence NLTK has no query language over several attributes: offsets of lemma x from the
             lemma index, kept when the previous token's pos is ADJ and no sentence starts at x
             (plain Python over NLTK's token lists; `[pos="ADJ"][lemma="x"] within s`).
    colloc   nltk.collocations.BigramCollocationFinder.from_words(lemmas, window_size=6) (words
             when the file has no lemma column): every ordered pair at most 5 tokens apart,
             over the whole corpus (NLTK has no node-centred collocation search; this is its
             documented way, then an ngram filter on the node). Window pairs (L, c) and
             (c, L) together = +-5 tokens around L; the windows cross sentence and text
             boundaries (NLTK's token stream is flat).
             NLTK has no logDice and its `dice` scales counts by 1/(window-1) and takes one
             direction, so logDice = 14 + log2(2 f(L,c) / (f(L) + f(c))) is computed from the
             finder's own counts; the top 20 by logDice, ties by lemma.
  The workbench (issue 47), on the offsets of the breakdown word W (index.offsets(W)):
    breakdown  collections.Counter of the hosts of W's offsets (`freq --query [word="W"]
               --by host`).
    sort       the offsets sorted by the word before each (in lower case, as glaneur's sort
               key; "" when the hit starts its document; ties by position), then the
               ConcordanceLines of the first 50 (`kwic --sort L1 --limit 50`).
    sample     random.Random(1).sample(offsets, 100) in corpus order, then their
               ConcordanceLines (`kwic --sample 100 --seed 1`; not the same 100 lines as
               glaneur's, which draws its own).
    sketch     not measured: NLTK has no grammatical relations (no sketch grammar, no query
               language over pos and lemma to write one in).
    ConcordanceLines of chosen offsets are built as find_concordance builds them (its loop,
    width 80, over those offsets only: NLTK has no call for it).
Times are in-process (time.perf_counter), each query repeated R times (median); peak RSS
after each phase from getrusage.
"""

import json
import math
import random
import re
import resource
import statistics
import sys
import time
from array import array
from collections import Counter

HOST = re.compile(r'\bhost="([^"]*)"')


def rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(path, max_tokens):
    words, pos, lemmas, starts = [], [], [], bytearray()
    hosts, host_names, host_ids = array("I"), [], {}
    host = 0
    shared = {}
    intern = lambda s: shared.setdefault(s, s)
    new_sentence = 1
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line[0] == "<":
                if line.startswith("<s"):
                    new_sentence = max(new_sentence, 1)
                elif line.startswith("<text"):
                    new_sentence = 2
                    m = HOST.search(line)
                    name = m.group(1) if m else ""
                    host = host_ids.setdefault(name, len(host_names))
                    if host == len(host_names):
                        host_names.append(name)
                elif line.startswith("</text") and max_tokens and len(words) >= max_tokens:
                    break
                continue
            cols = line.rstrip("\n").split("\t")
            words.append(intern(cols[0]))
            if len(cols) >= 3:
                pos.append(intern(cols[1]))
                lemmas.append(intern(cols[2]))
            starts.append(new_sentence)
            hosts.append(host)
            new_sentence = 0
    return words, pos, lemmas, starts, hosts, host_names


def lines_at(index, offsets, width=80):
    """The ConcordanceLines of these offsets, built as ConcordanceIndex.find_concordance builds
    them for a one-word query (nltk/text.py, NLTK 3.10)."""
    from nltk.text import ConcordanceLine, cut_string
    import unicodedata
    tokens = index.tokens()
    out = []
    for i in offsets:
        query_word = tokens[i]
        phrase_len = sum(1 for char in query_word if not unicodedata.combining(char))
        half_width = (width - phrase_len - 2) // 2
        context = width // 4
        left_context = tokens[max(0, i - context):i]
        right_context = tokens[i + 1:i + context]
        left_print = cut_string(" ".join(left_context), -half_width).rjust(half_width)
        right_print = cut_string(" ".join(right_context), half_width)
        line_print = " ".join([left_print, query_word, right_print])
        out.append(ConcordanceLine(left_context, query_word, right_context, i, left_print,
                                   right_print, line_print))
    return out


def timed(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return result, times


def main():
    t0 = time.perf_counter()
    from nltk.collocations import BigramCollocationFinder
    from nltk.text import ConcordanceIndex
    import nltk

    vrt, queries_path, out_path = sys.argv[1:4]
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    max_tokens = int(opts.get("--max-tokens", 0))
    repeat = int(opts.get("--repeat", 5))
    with open(queries_path, encoding="utf-8") as f:
        q = json.load(f)
    res = {"tool": f"nltk {nltk.__version__}", "import_s": time.perf_counter() - t0,
           "rss_start_mib": rss_mib()}

    t = time.perf_counter()
    words, pos, lemmas, starts, hosts, host_names = load(vrt, max_tokens)
    res["load_s"] = time.perf_counter() - t
    res["tokens"] = len(words)
    res["rss_load_mib"] = rss_mib()
    t = time.perf_counter()
    by_word = ConcordanceIndex(words)
    by_lemma = ConcordanceIndex(lemmas) if lemmas else None
    res["index_s"] = time.perf_counter() - t
    res["rss_index_mib"] = rss_mib()

    lines, times = timed(lambda: by_word.find_concordance(q["kwic_word"])[:50], repeat)
    res["kwic"] = dict(times=times, lines=len(lines),
                       first=[ln.line.strip() for ln in lines[:3]])
    n, times = timed(lambda: len(by_word.offsets(q["count_word"])), repeat)
    res["count"] = dict(times=times, hits=n)

    if by_lemma and "seq_lemma" in q:
        adj = "ADJ"

        def sequence():
            return sum(1 for i in by_lemma.offsets(q["seq_lemma"])
                       if i and not starts[i] and pos[i - 1] == adj)
        n, times = timed(sequence, repeat)
        res["sequence"] = dict(times=times, hits=n)

    # The workbench: breakdown by host, sort by L1, seeded sample of W's hits (before the
    # collocation finder, whose millions of pairs would weigh on the garbage collector).
    if "freq_word" in q:
        w = q["freq_word"]

        def breakdown():
            return Counter(hosts[i] for i in by_word.offsets(w))
        counts, times = timed(breakdown, repeat)
        by_host = {host_names[h]: n for h, n in counts.items()}
        res["breakdown"] = dict(times=times, hits=sum(by_host.values()), by_host=by_host)

        def l1_key(i):
            return "" if starts[i] == 2 or i == 0 else words[i - 1].lower()

        def sort():
            order = sorted(by_word.offsets(w), key=lambda i: (l1_key(i), i))
            return order[:50], lines_at(by_word, order[:50])
        (first, lines), times = timed(sort, repeat)
        res["sort"] = dict(times=times, lines=len(lines),
                           hits_ok=sum(ln.query == w for ln in lines),
                           l1=["" if starts[i] == 2 else words[i - 1] for i in first],
                           first=[ln.line.strip() for ln in lines[:3]])

        def sample():
            offsets = by_word.offsets(w)
            chosen = sorted(random.Random(1).sample(offsets, min(100, len(offsets))))
            return lines_at(by_word, chosen)
        lines, times = timed(sample, repeat)
        res["sample"] = dict(times=times, lines=len(lines),
                             hits_ok=sum(ln.query == w for ln in lines),
                             distinct=len({ln.offset for ln in lines}))
    res["sketch"] = dict(na="NLTK has no grammatical relations: no sketch grammar, and no query "
                            "language over pos and lemma to write one in")

    stream, index = (lemmas, by_lemma) if q["colloc_attr"] == "lemma" else (words, by_word)
    if stream:
        node = q["colloc_term"]
        t = time.perf_counter()
        finder = BigramCollocationFinder.from_words(stream, window_size=6)
        res["colloc_finder_s"] = time.perf_counter() - t
        res["rss_colloc_mib"] = rss_mib()

        def colloc():
            pairs = {}
            for (a, b), c in finder.ngram_fd.items():
                if a == node and b != node:
                    pairs[b] = pairs.get(b, 0) + c
                elif b == node and a != node:
                    pairs[a] = pairs.get(a, 0) + c
            f_node = finder.word_fd[node]
            scored = [(14 + math.log2(2 * c / (f_node + finder.word_fd[w])), w)
                      for w, c in pairs.items()]
            scored.sort(key=lambda sw: (-sw[0], sw[1]))
            return scored[:20]
        top, times = timed(colloc, repeat)
        res["colloc"] = dict(times=times, hits=len(index.offsets(node)),
                             top=[[w, round(s, 3)] for s, w in top])
    for key in ("kwic", "count", "sequence", "colloc", "breakdown", "sort", "sample"):
        if key in res:
            res[key]["median_s"] = statistics.median(res[key]["times"])
    res["rss_end_mib"] = rss_mib()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(res, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
