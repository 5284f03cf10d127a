//! The search index's stemming filter, with the stems it has computed remembered.
//!
//! **In:** lower-cased, accent-folded tokens (the analyzer's earlier filters). **Out:** each
//! token's Snowball stem, from the same stemmer tantivy's own `Stemmer` filter runs (frostem).
//!
//! **Invariants:** every token gets exactly the stem tantivy's `Stemmer` gives it (tested on
//! French and English text); a word's stem is computed once and then read from a table, because
//! a corpus repeats its words (Zipf): on the 100,000-page bench the stemmer was 15 % of the
//! export's CPU for about 32 million tokens of a few hundred thousand types. The table holds
//! at most [`MAX_WORDS`] words and is emptied when full, so its memory is bounded whatever the
//! corpus. A clone (one per tantivy segment writer) starts with an empty table.

use frostem::{Algorithm, Stemmer};
use rustc_hash::FxHashMap;
use tantivy::tokenizer::{Token, TokenFilter, TokenStream, Tokenizer};

/// The most words the table holds (about 25 MB at most: two short strings and a slot each).
pub const MAX_WORDS: usize = 1 << 18;

/// The filter: Snowball stemming in one language.
#[derive(Clone, Copy)]
pub struct CachedStemmer {
    algorithm: Algorithm,
}

impl CachedStemmer {
    pub fn new(algorithm: Algorithm) -> CachedStemmer {
        CachedStemmer { algorithm }
    }
}

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter {
            inner: tokenizer,
            stemmer: Stemmer::new(self.algorithm),
            stems: FxHashMap::default(),
        }
    }
}

/// The tokenizer with the filter applied; it owns the table of stems.
pub struct CachedStemmerFilter<T> {
    inner: T,
    stemmer: Stemmer,
    /// Word → its stem.
    stems: FxHashMap<Box<str>, Box<str>>,
}

impl<T: Clone> Clone for CachedStemmerFilter<T> {
    fn clone(&self) -> Self {
        CachedStemmerFilter {
            inner: self.inner.clone(),
            stemmer: self.stemmer,
            stems: FxHashMap::default(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stemmer: self.stemmer,
            stems: &mut self.stems,
        }
    }
}

/// The stream of stemmed tokens.
pub struct CachedStemmerStream<'a, T> {
    tail: T,
    stemmer: Stemmer,
    stems: &'a mut FxHashMap<Box<str>, Box<str>>,
}

impl<T: TokenStream> TokenStream for CachedStemmerStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(stem);
            return true;
        }
        let stem: Box<str> = self.stemmer.stem(&token.text).into();
        if self.stems.len() >= MAX_WORDS {
            self.stems.clear();
        }
        self.stems.insert(token.text.as_str().into(), stem.clone());
        token.text.clear();
        token.text.push_str(&stem);
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::tokenizer::{
        AsciiFoldingFilter, Language, LowerCaser, SimpleTokenizer, Stemmer as TantivyStemmer,
        TextAnalyzer,
    };

    fn tokens(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        analyzer
            .token_stream(text)
            .process(&mut |t: &Token| out.push(t.clone()));
        out
    }

    /// Real text of both languages, run through tantivy's filter and ours, twice over the same
    /// analyzer so that the second pass reads every stem from the table.
    #[test]
    fn same_stems_as_tantivy() {
        let french = "Les calques sont des feuilles transparentes posées sur l'image. On peut \
            peindre sur un calque sans toucher aux autres, le déplacer, changer son opacité ou \
            son mode de fusion ; les calques empilés composent une image complexe. Maintenant, \
            nationalisations, continuellement, généralement, chevaux, cheval, heureuses.";
        let english = "The connections were fruitlessly consigned; generously running runners \
            ran, argued arguing arguments, happiness, relational conditional rationalisation.";
        for (language, algorithm, text) in [
            (Language::French, Algorithm::French, french),
            (Language::English, Algorithm::English, english),
        ] {
            let base = || {
                TextAnalyzer::builder(SimpleTokenizer::default())
                    .filter(LowerCaser)
                    .filter(AsciiFoldingFilter)
            };
            let mut theirs = base().filter(TantivyStemmer::new(language)).build();
            let mut ours = base().filter(CachedStemmer::new(algorithm)).build();
            let expected = tokens(&mut theirs, text);
            assert!(expected.len() > 15);
            assert_eq!(tokens(&mut ours, text), expected);
            assert_eq!(
                tokens(&mut ours, text),
                expected,
                "stems read from the table"
            );
            // A clone starts empty and still agrees.
            let mut cloned = ours.clone();
            assert_eq!(tokens(&mut cloned, text), expected);
        }
    }

    #[test]
    fn the_table_is_bounded() {
        let mut analyzer = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(CachedStemmer::new(Algorithm::English))
            .build();
        let mut reference = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(TantivyStemmer::new(Language::English))
            .build();
        let text: String = (0..MAX_WORDS + 10).map(|i| format!("w{i}ings ")).collect();
        assert_eq!(tokens(&mut analyzer, &text), tokens(&mut reference, &text));
        // After the table was emptied it fills again from the words after the clearing.
        assert_eq!(
            tokens(&mut analyzer, "w1ings running"),
            tokens(&mut reference, "w1ings running")
        );
    }
}
