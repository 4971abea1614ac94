//! Words, stems and the inverted indexes `/search` and `POST /match` read: built once per
//! snapshot, so a query touches only the postings of its own words.

use std::collections::{BTreeMap, HashSet};

use rust_stemmers::{Algorithm, Stemmer};

/// Words of a description that count toward matching: a seller cannot cover every intent by
/// stuffing its description with keywords.
pub const MAX_DESCRIPTION_WORDS: usize = 60;

/// Words that carry no intent.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from", "get", "give", "i", "in", "is",
    "it", "me", "my", "need", "of", "on", "or", "our", "please", "some", "that", "the", "this", "to", "us", "want",
    "we", "what", "which", "with", "you", "your",
];

/// Lowercase words: runs of ASCII letters and digits (other characters, `%` and `_` included,
/// separate words and never act as wildcards).
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_ascii_lowercase)
}

/// Words of an intent without stop words, first occurrence order, deduplicated.
pub fn intent_tokens(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    words(text).filter(|w| !STOP_WORDS.contains(&w.as_str())).filter(|w| seen.insert(w.clone())).collect()
}

/// The English stem of a lowercase word.
pub fn stem(stemmer: &Stemmer, word: &str) -> String {
    stemmer.stem(word).into_owned()
}

/// The shared English stemmer.
pub fn stemmer() -> Stemmer {
    Stemmer::create(Algorithm::English)
}

/// Where a word of a listing was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// In the description.
    Description,
    /// In a tag.
    Tag,
}

/// Postings: word → (document, field) pairs, sorted by document.
#[derive(Debug, Default, Clone)]
pub struct WordIndex {
    postings: BTreeMap<String, Vec<(u32, Field)>>,
    /// Distinct documents per word, counted by `finish`.
    documents: std::collections::HashMap<String, u32>,
}

impl WordIndex {
    /// Adds a document's words.
    pub fn add(&mut self, doc: u32, field: Field, words: impl IntoIterator<Item = String>) {
        for w in words {
            let list = self.postings.entry(w).or_default();
            if list.last() != Some(&(doc, field)) {
                list.push((doc, field));
            }
        }
    }

    /// Sorts and deduplicates postings (call once after the last `add`).
    pub fn finish(&mut self) {
        for (word, list) in &mut self.postings {
            list.sort_unstable();
            list.dedup();
            let mut docs: Vec<u32> = list.iter().map(|(d, _)| *d).collect();
            docs.dedup();
            self.documents.insert(word.clone(), docs.len() as u32);
        }
    }

    /// How many documents hold `word`.
    pub fn documents(&self, word: &str) -> u32 {
        self.documents.get(word).copied().unwrap_or(0)
    }

    /// Documents with `word` exactly, with the best field each.
    pub fn exact(&self, word: &str) -> impl Iterator<Item = (u32, Field)> + '_ {
        self.postings.get(word).into_iter().flatten().copied()
    }

    /// Documents with a word starting with `prefix`, at most `cap` distinct words expanded.
    pub fn prefixed(&self, prefix: &str, cap: usize) -> Vec<(u32, Field)> {
        let mut hits: Vec<(u32, Field)> = self
            .postings
            .range(prefix.to_owned()..)
            .take_while(|(w, _)| w.starts_with(prefix))
            .take(cap)
            .flat_map(|(_, list)| list.iter().copied())
            .collect();
        hits.sort_unstable();
        hits.dedup();
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_are_word_separators() {
        assert_eq!(words("Web_search 100%").collect::<Vec<_>>(), vec!["web", "search", "100"]);
        assert_eq!(intent_tokens("I need the weather for the weekend, weather!"), vec!["weather", "weekend"]);
    }

    #[test]
    fn stems_join_word_forms() {
        let s = stemmer();
        assert_eq!(stem(&s, "translations"), stem(&s, "translate"));
        assert_eq!(stem(&s, "images"), stem(&s, "image"));
    }

    #[test]
    fn prefix_and_exact_postings() {
        let mut idx = WordIndex::default();
        idx.add(0, Field::Description, words("weather forecast"));
        idx.add(1, Field::Tag, words("weather"));
        idx.add(1, Field::Description, words("wealth"));
        idx.finish();
        assert_eq!(idx.exact("weather").count(), 2);
        assert_eq!(idx.prefixed("wea", 10).len(), 3);
        assert!(idx.prefixed("zzz", 10).is_empty());
    }
}
