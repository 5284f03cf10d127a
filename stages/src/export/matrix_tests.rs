use super::*;

#[test]
fn counts_words_not_punctuation() {
    let mut m = MatrixBuilder::new(true);
    let (row, n) = m.add(&["Le", "calque", ",", "le", "calque", "."]);
    assert_eq!((row, n), (0, 4));
    m.add(&["Un", "calque"]);
    m.add::<&str>(&[]);
    assert_eq!(m.n_docs(), 3);
    let vocab: Vec<_> = m.vocabulary().iter().map(|w| w.word).collect();
    assert_eq!(vocab, ["le", "calque", "un"]);
    assert_eq!(m.vocabulary().get(1).unwrap().df, 2);
    assert_eq!(m.vocabulary().get(1).unwrap().count, 3);
    assert_eq!(
        m.to_matrix_market(),
        "%%MatrixMarket matrix coordinate integer general\n\
         % glaneur document x word counts: rows = docs.tsv, columns = vocab.tsv\n\
         3 3 4\n1 1 2\n1 2 2\n2 2 1\n2 3 1\n"
    );
    assert!(
        m.vocabulary_tsv()
            .starts_with("col\tword\tdf\tcount\n1\tle\t1\t2\n")
    );
}

#[test]
fn rows_taken_in_chunks_give_the_filtered_matrix() {
    let options = MatrixOptions {
        lowercase: true,
        stoplist: Some("fr".into()),
        min_df: 2,
        max_df_ratio: 0.9,
        max_vocabulary: Some(4),
    };
    let docs: Vec<Vec<String>> = (0..50)
        .map(|i| {
            (0..(i % 7 + 2))
                .map(|k| {
                    ["Le", "calque", "masque", "de", "couche", "flou", "Calque"][(i * k + k) % 7]
                        .to_string()
                })
                .collect()
        })
        .collect();
    let mut whole = MatrixBuilder::with_options(options.clone()).unwrap();
    let mut chunked = MatrixBuilder::with_options(options).unwrap();
    let mut taken = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        whole.add(doc);
        let (row, _) = chunked.add(doc);
        assert_eq!(row, i);
        if i % 9 == 8 {
            taken.extend(chunked.take_rows());
        }
    }
    taken.extend(chunked.take_rows());
    assert_eq!(chunked.n_docs(), 50);
    assert_eq!(chunked.pending_nnz(), 0);
    let columns = chunked.filtered_columns();
    let rows: Vec<Vec<(u32, u32)>> = taken.iter().map(|r| columns.row(r)).collect();
    let m = columns.matrix(rows);
    assert_eq!(m, whole.filtered());
    assert_eq!(columns.vocabulary_tsv(), whole.filtered().vocabulary_tsv());
    let mut mm = matrix_market_header(m.n_rows(), m.n_cols(), m.nnz());
    let mut long = LONG_CSV_HEADER.to_string();
    for i in 0..m.n_rows() {
        matrix_market_row(&mut mm, i, m.row(i));
        long_csv_row(&mut long, i, m.row(i), columns.vocabulary());
    }
    assert_eq!(mm, whole.filtered().to_matrix_market());
    assert_eq!(long, whole.filtered().to_long_csv());
}

#[test]
fn keeps_case_when_asked() {
    let mut m = MatrixBuilder::new(false);
    m.add(&["Le", "le"]);
    assert_eq!(m.vocabulary().len(), 2);
}
fn corpus(options: MatrixOptions) -> MatrixBuilder {
    let mut m = MatrixBuilder::with_options(options).unwrap();
    m.add(&["Le", "chat", "et", "le", "chien", "1,5"]);
    m.add(&["Un", "chien", "\"x\""]);
    m.add(&["le", "chien", "dort", "."]);
    m.add::<&str>(&[]);
    m
}

#[test]
fn filtered_orders_by_df_then_word_and_keeps_rows() {
    let m = corpus(MatrixOptions {
        lowercase: true,
        ..MatrixOptions::default()
    });
    let f = m.filtered();
    let words: Vec<_> = f.vocabulary().iter().map(|w| w.word).collect();
    // chien df 3, le df 2, then df 1 in byte order.
    assert_eq!(
        words,
        ["chien", "le", "\"x\"", "1,5", "chat", "dort", "et", "un"]
    );
    assert_eq!(f.n_rows(), 4);
    assert_eq!(f.nnz(), m.nnz());
    assert_eq!(f.row(0), &[(0, 1), (1, 2), (3, 1), (4, 1), (6, 1)]);
    assert!(f.row(3).is_empty());
    assert!(f.to_matrix_market().contains("\n4 8 11\n1 1 1\n1 2 2\n"));
    assert!(
        f.vocabulary_tsv()
            .starts_with("col\tword\tdf\tcount\n1\tchien\t3\t3\n")
    );
}

#[test]
fn filters_stopwords_df_and_cap() {
    let options = MatrixOptions {
        lowercase: true,
        stoplist: Some("fr, en".to_string()),
        min_df: 1,
        max_df_ratio: 0.5,
        max_vocabulary: Some(3),
    };
    let f = corpus(options).filtered();
    let words: Vec<_> = f.vocabulary().iter().map(|w| w.word).collect();
    // chien (3 of 4 docs) exceeds 0.5; le, et, un are stop words; cap 3.
    assert_eq!(words, ["\"x\"", "1,5", "chat"]);
    assert_eq!(f.row(2), &[]);
    let min2 = corpus(MatrixOptions {
        lowercase: true,
        min_df: 2,
        ..MatrixOptions::default()
    })
    .filtered();
    assert_eq!(min2.n_cols(), 2);
}

#[test]
fn rejects_bad_options() {
    let bad = |o: MatrixOptions| MatrixBuilder::with_options(o).err();
    assert_eq!(
        bad(MatrixOptions {
            stoplist: Some("fr,xx".into()),
            ..MatrixOptions::default()
        }),
        Some(MatrixError::UnknownStoplist("xx".into()))
    );
    for ratio in [0.0, -1.0, 1.5, f64::NAN] {
        assert!(
            bad(MatrixOptions {
                max_df_ratio: ratio,
                ..MatrixOptions::default()
            })
            .is_some()
        );
    }
}

#[test]
fn long_and_dense_csv_quote_and_guard() {
    let f = corpus(MatrixOptions {
        lowercase: true,
        min_df: 1,
        max_df_ratio: 1.0,
        max_vocabulary: Some(4),
        stoplist: None,
    })
    .filtered();
    let long = f.to_long_csv();
    assert!(long.starts_with("doc,word,count\r\n1,chien,1\r\n1,le,2\r\n1,\"1,5\",1\r\n"));
    assert!(long.contains("2,\"\"\"x\"\"\",1\r\n"));
    let dense = f.to_dense_csv(DENSE_MAX_CELLS).unwrap();
    assert_eq!(
        dense,
        ",chien,le,\"\"\"x\"\"\",\"1,5\"\r\n1,1,2,0,1\r\n2,1,0,1,0\r\n3,1,1,0,0\r\n4,0,0,0,0\r\n"
    );
    assert_eq!(
        f.to_dense_csv(15),
        Err(MatrixError::DenseTooLarge {
            rows: 4,
            cols: 4,
            cells: 16,
            max_cells: 15
        })
    );
}

#[test]
fn hostile_words_stay_one_row_each_and_keep_their_columns() {
    // Words R's read.delim or pandas once split, merged or misread: quotes around and
    // inside a word, an apostrophe, a leading `#`, and words that name a missing value or
    // the dense CSV's row column.
    let words = [
        "\"calque\"",
        "d\"écraser",
        "l'",
        "#0000ff",
        "NA",
        "null",
        "doc",
        "é",
    ];
    let mut m = MatrixBuilder::new(false);
    m.add(&words);
    m.add(&words[..3]);
    let f = m.filtered();
    let tsv = f.vocabulary_tsv();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines.len(), 1 + words.len(), "{tsv}");
    assert_eq!(
        &lines[..5],
        [
            "col\tword\tdf\tcount",
            "1\t\"\"\"calque\"\"\"\t2\t2",
            "2\t\"d\"\"écraser\"\t2\t2",
            "3\t\"l'\"\t2\t2",
            "4\t\"#0000ff\"\t1\t1",
        ]
    );
    // Words no quote can protect from a reader's missing values stay verbatim.
    assert!(lines.contains(&"5\tNA\t1\t1") && lines.contains(&"7\tnull\t1\t1"));
    for line in &lines {
        assert_eq!(line.matches('\t').count(), 3, "{line}");
    }
    let dense = f.to_dense_csv(DENSE_MAX_CELLS).unwrap();
    assert!(
        dense.starts_with(
            ",\"\"\"calque\"\"\",\"d\"\"écraser\",\"l'\",\"#0000ff\",NA,doc,null,é\r\n"
        ),
        "{dense}"
    );
    assert!(f.to_long_csv().contains("\r\n2,\"l'\",1\r\n"));
}

#[test]
fn the_vocabulary_table_in_pieces_is_the_whole_table() {
    let mut m = MatrixBuilder::new(true);
    let words: Vec<String> = (0..20_000).map(|i| format!("mot{i}")).collect();
    m.add(&words);
    m.add(&words[..7]);
    let columns = m.filtered_columns();
    let mut pieces = Vec::new();
    columns
        .write_vocabulary_tsv(|piece| {
            pieces.push(piece.to_string());
            Ok::<_, ()>(())
        })
        .unwrap();
    assert!(pieces.len() > 3, "{}", pieces.len());
    assert_eq!(pieces.concat(), columns.vocabulary_tsv());
    assert_eq!(pieces.concat(), m.filtered().vocabulary_tsv());
    // The first failing piece stops the table.
    let mut calls = 0;
    let failed = columns.write_vocabulary_tsv(|_| {
        calls += 1;
        Err("disk full")
    });
    assert_eq!((failed, calls), (Err("disk full"), 1));
    let vocabulary = columns.vocabulary();
    assert_eq!(vocabulary.len(), 20_000);
    assert_eq!(vocabulary.get(0).map(|w| (w.word, w.df)), Some(("mot0", 2)));
    assert_eq!(vocabulary.get(20_000), None);
}

/// The columns as sorting every kept word by (descending df, word) gives them: what the
/// placement from counted runs must equal.
fn sorted_columns(m: &MatrixBuilder) -> Vec<(String, u32, u64)> {
    let o = m.options();
    let n_docs = m.n_docs() as f64;
    let codes: Vec<&str> = o
        .stoplist
        .as_deref()
        .map_or(Vec::new(), |l| l.split(',').collect());
    let mut kept: Vec<Word> = m
        .vocabulary()
        .iter()
        .filter(|w| {
            w.df >= o.min_df
                && f64::from(w.df) <= o.max_df_ratio * n_docs
                && !codes.iter().any(|c| stopwords::is_stopword(c, w.word))
        })
        .collect();
    kept.sort_by(|a, b| (std::cmp::Reverse(a.df), a.word).cmp(&(std::cmp::Reverse(b.df), b.word)));
    kept.truncate(o.max_vocabulary.unwrap_or(usize::MAX));
    kept.into_iter()
        .map(|w| (w.word.to_string(), w.df, w.count))
        .collect()
}

/// The runs of `taken` merged by word, as a caller keeping them on disk reads them back.
fn merged(taken: &[(u32, Vocabulary)]) -> Vec<(String, u32, u64, Vec<u32>)> {
    let mut words: std::collections::BTreeMap<String, (u32, u64, Vec<u32>)> = Default::default();
    for (base, run) in taken {
        for local in run.sorted() {
            let w = run.get(local as usize).unwrap();
            let entry = words.entry(w.word.to_string()).or_default();
            entry.0 += w.df;
            entry.1 += w.count;
            entry.2.push(base + local);
        }
    }
    words
        .into_iter()
        .map(|(w, (df, count, raw))| (w, df, count, raw))
        .collect()
}

#[test]
fn columns_placed_from_vocabulary_runs_are_the_sorted_columns() {
    // Words of a Zipf-like draw, some capitalised, some stop words, some multi-byte.
    let pool: Vec<String> = (0..400)
        .map(|i| match i % 9 {
            0 => ["le", "de", "the", "of", "et"][i % 5].to_string(),
            1 => format!("Été{i}"),
            _ => format!("mot{}", i * 7919 % 1000),
        })
        .collect();
    let docs: Vec<Vec<&str>> = (0..600usize)
        .map(|d| {
            (0..(d % 23 + 1))
                .map(|k| pool[(d * 31 + k * k * 17) % (k * 13 + d % 50 + 1).min(400)].as_str())
                .collect()
        })
        .collect();
    let cases = [
        MatrixOptions::default(),
        MatrixOptions {
            lowercase: true,
            stoplist: Some("fr,en".into()),
            min_df: 2,
            max_df_ratio: 0.5,
            max_vocabulary: None,
        },
        // Cut inside a document frequency's words, and past the vocabulary.
        MatrixOptions {
            max_vocabulary: Some(37),
            ..MatrixOptions::default()
        },
        MatrixOptions {
            lowercase: true,
            max_vocabulary: Some(100_000),
            ..MatrixOptions::default()
        },
        MatrixOptions {
            min_df: 1000,
            ..MatrixOptions::default()
        },
    ];
    for options in cases {
        let mut whole = MatrixBuilder::with_options(options.clone()).unwrap();
        for doc in &docs {
            whole.add(doc);
        }
        let want = sorted_columns(&whole);
        let got: Vec<_> = whole
            .filtered_columns()
            .vocabulary()
            .iter()
            .map(|w| (w.word.to_string(), w.df, w.count))
            .collect();
        assert_eq!(got, want, "{options:?}");
        for every in [1, 7, 100, 1000] {
            let mut runs = MatrixBuilder::with_options(options.clone()).unwrap();
            let (mut taken, mut rows) = (Vec::new(), Vec::new());
            for (i, doc) in docs.iter().enumerate() {
                runs.add(doc);
                if i % every == every - 1 {
                    taken.push(runs.take_vocabulary());
                    rows.extend(runs.take_rows());
                }
            }
            taken.push(runs.take_vocabulary());
            rows.extend(runs.take_rows());
            assert_eq!(
                runs.raw_ids(),
                taken.iter().map(|(_, v)| v.len()).sum::<usize>()
            );
            let merged = merged(&taken);
            let mut counter = runs.column_counter();
            for (word, df, _, _) in &merged {
                counter.count(word, *df);
            }
            let mut placer = counter.placer();
            for (word, df, count, raw) in &merged {
                placer.place(
                    Word {
                        word,
                        df: *df,
                        count: *count,
                    },
                    raw,
                );
            }
            let columns = FilteredColumns::placed(placer).unwrap();
            let m = columns.matrix(rows.iter().map(|r| columns.row(r)).collect());
            assert_eq!(
                m,
                whole.filtered(),
                "{options:?}, a run every {every} documents"
            );
            assert_eq!(columns.vocabulary_tsv(), whole.filtered().vocabulary_tsv());
        }
    }
}

#[test]
fn readings_that_disagree_are_refused() {
    let mut m = MatrixBuilder::new(false);
    m.add(&["calque", "masque", "calque"]);
    m.add(&["masque", "flou"]);
    let counted = [("calque", 1), ("flou", 1), ("masque", 2)];
    let read_again: [&[(&str, u32)]; 3] = [
        // A word missing, a word longer, a word more.
        &[("calque", 1), ("masque", 2)],
        &[("calque", 1), ("floue", 1), ("masque", 2)],
        &[("calque", 1), ("flou", 1), ("masque", 2), ("zinc", 1)],
    ];
    for again in read_again {
        let mut counter = m.column_counter();
        for (word, df) in counted {
            counter.count(word, df);
        }
        let mut placer = counter.placer();
        for (i, &(word, df)) in again.iter().enumerate() {
            placer.place(Word { word, df, count: 1 }, &[i as u32]);
        }
        let finished = FilteredColumns::placed(placer);
        if again.len() == 4 {
            // The extra word has no column: it is left out, the others are right.
            let columns = finished.unwrap();
            let words: Vec<_> = columns.vocabulary().iter().map(|w| w.word).collect();
            assert_eq!(words, ["masque", "calque", "flou"]);
        } else {
            assert_eq!(
                finished.err(),
                Some(MatrixError::VocabularyChanged),
                "{again:?}"
            );
        }
    }
}
