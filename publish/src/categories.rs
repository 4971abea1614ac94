//! The 30 categories of `/categories` and `/by-category/{cat}`: one table, and the one rule that
//! puts a seller in a category from its listing (tags weigh three times a description word).
//!
//! A category is seller-declared text: it groups agents for discovery and never moves a score.

/// A category: its slug (the URL segment), a label, and the words that select it.
#[derive(Debug, Clone, Copy)]
pub struct CategoryDef {
    /// URL segment, e.g. `market-data`.
    pub slug: &'static str,
    /// Human label.
    pub label: &'static str,
    /// Lowercase words (tags or description words) that count toward it.
    pub words: &'static [&'static str],
}

/// The fallback category of a listing no word places.
pub const OTHER: &str = "other";

/// Every category, in display order; ties between categories go to the earlier one.
pub const CATEGORIES: [CategoryDef; 30] = [
    CategoryDef {
        slug: "ai-inference",
        label: "AI inference",
        words: &[
            "ai",
            "llm",
            "gpt",
            "inference",
            "model",
            "chat",
            "completion",
            "agent",
            "agents",
            "prompt",
            "claude",
            "openai",
        ],
    },
    CategoryDef {
        slug: "image-generation",
        label: "Image generation",
        words: &["image", "images", "art", "diffusion", "picture", "photo", "avatar", "generate", "meme"],
    },
    CategoryDef {
        slug: "audio-speech",
        label: "Audio and speech",
        words: &["audio", "speech", "voice", "tts", "transcription", "transcribe", "music", "podcast"],
    },
    CategoryDef {
        slug: "video",
        label: "Video",
        words: &["video", "videos", "clip", "youtube", "stream", "streaming"],
    },
    CategoryDef { slug: "search", label: "Search", words: &["search", "serp", "lookup", "find", "discovery", "index"] },
    CategoryDef {
        slug: "web-scraping",
        label: "Web scraping",
        words: &["scrape", "scraper", "scraping", "crawl", "crawler", "extract", "html", "browser", "web"],
    },
    CategoryDef {
        slug: "market-data",
        label: "Market data",
        words: &["price", "prices", "market", "ohlc", "ticker", "quote", "quotes", "candles", "feed", "oracle"],
    },
    CategoryDef {
        slug: "defi",
        label: "DeFi",
        words: &["defi", "swap", "dex", "yield", "lending", "liquidity", "pool", "pools", "vault", "staking"],
    },
    CategoryDef {
        slug: "trading",
        label: "Trading",
        words: &["trading", "trade", "trader", "signal", "signals", "bot", "arbitrage", "alpha", "perp", "perps"],
    },
    CategoryDef {
        slug: "onchain-analytics",
        label: "Onchain analytics",
        words: &[
            "onchain",
            "analytics",
            "wallet",
            "wallets",
            "transactions",
            "chain",
            "explorer",
            "blockchain",
            "holders",
            "whale",
        ],
    },
    CategoryDef {
        slug: "security",
        label: "Security and risk",
        words: &[
            "security",
            "audit",
            "scan",
            "scanner",
            "risk",
            "fraud",
            "scam",
            "rug",
            "honeypot",
            "phishing",
            "sanctions",
        ],
    },
    CategoryDef {
        slug: "identity",
        label: "Identity and reputation",
        words: &["identity", "kyc", "verification", "verify", "reputation", "did", "ens", "basename", "trust", "score"],
    },
    CategoryDef { slug: "news", label: "News", words: &["news", "headlines", "articles", "article", "rss", "press"] },
    CategoryDef {
        slug: "social",
        label: "Social",
        words: &["social", "twitter", "farcaster", "sentiment", "tweets", "posts", "reddit", "telegram", "discord"],
    },
    CategoryDef {
        slug: "weather",
        label: "Weather",
        words: &["weather", "forecast", "climate", "temperature", "rain"],
    },
    CategoryDef {
        slug: "maps-geo",
        label: "Maps and places",
        words: &["map", "maps", "geo", "location", "geocoding", "places", "place", "address", "route", "travel"],
    },
    CategoryDef {
        slug: "finance",
        label: "Finance",
        words: &["finance", "financial", "stocks", "stock", "forex", "equities", "fx", "economic", "earnings", "tax"],
    },
    CategoryDef {
        slug: "nft",
        label: "NFTs",
        words: &["nft", "nfts", "collectible", "collectibles", "opensea", "mint"],
    },
    CategoryDef {
        slug: "tokens",
        label: "Tokens and launches",
        words: &["token", "tokens", "memecoin", "erc20", "launch", "launches", "clanker", "zora", "virtuals", "coin"],
    },
    CategoryDef {
        slug: "payments",
        label: "Payments",
        words: &["payment", "payments", "invoice", "checkout", "x402", "usdc", "pay", "billing", "paywall"],
    },
    CategoryDef {
        slug: "storage",
        label: "Storage and files",
        words: &["storage", "file", "files", "upload", "ipfs", "pin", "pinning", "arweave", "backup"],
    },
    CategoryDef {
        slug: "compute",
        label: "Compute",
        words: &["compute", "gpu", "sandbox", "execution", "execute", "run", "serverless", "container", "vm"],
    },
    CategoryDef {
        slug: "developer-tools",
        label: "Developer tools",
        words: &["developer", "dev", "github", "code", "testing", "tool", "tools", "sdk", "debug", "rpc"],
    },
    CategoryDef {
        slug: "data",
        label: "Data and datasets",
        words: &["data", "dataset", "datasets", "database", "query", "sql", "api", "records", "csv"],
    },
    CategoryDef {
        slug: "text-language",
        label: "Text and language",
        words: &["translate", "translation", "text", "summarize", "summary", "nlp", "language", "writing", "grammar"],
    },
    CategoryDef {
        slug: "documents",
        label: "Documents",
        words: &["pdf", "document", "documents", "ocr", "parse", "parser", "invoice", "contract", "docs"],
    },
    CategoryDef {
        slug: "messaging",
        label: "Email and messaging",
        words: &["email", "sms", "message", "messages", "notification", "notifications", "alert", "alerts", "webhook"],
    },
    CategoryDef {
        slug: "gaming",
        label: "Games and sports",
        words: &["game", "games", "gaming", "sports", "betting", "odds", "esports", "prediction", "polymarket"],
    },
    CategoryDef {
        slug: "health-science",
        label: "Health and science",
        words: &["health", "medical", "science", "research", "biology", "chemistry", "papers", "academic"],
    },
    CategoryDef { slug: OTHER, label: "Other", words: &[] },
];

/// The category of a slug.
pub fn find(slug: &str) -> Option<&'static CategoryDef> {
    CATEGORIES.iter().find(|c| c.slug == slug)
}

/// Every category word with the categories it counts toward (a bit per index of [`CATEGORIES`]),
/// built once: a listing's words are looked up instead of compared with every category's list.
static CATEGORIES_OF_WORD: std::sync::LazyLock<std::collections::HashMap<&'static str, u32>> =
    std::sync::LazyLock::new(|| {
        let mut map = std::collections::HashMap::new();
        for (i, c) in CATEGORIES.iter().enumerate() {
            for word in c.words {
                *map.entry(*word).or_insert(0u32) |= 1 << i;
            }
        }
        map
    });

/// The category of a listing: the one whose words its tags and description hit most.
pub fn classify(tags: &[String], description: Option<&str>) -> &'static str {
    let table = &*CATEGORIES_OF_WORD;
    let mut weights = [0u32; CATEGORIES.len()];
    let mut lowered = String::new();
    let mut add = |text: &str, weight: u32| {
        for word in text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()) {
            let word = if word.bytes().any(|b| b.is_ascii_uppercase()) {
                lowered.clear();
                lowered.push_str(word);
                lowered.make_ascii_lowercase();
                lowered.as_str()
            } else {
                word
            };
            let mut hits = table.get(word).copied().unwrap_or(0);
            while hits != 0 {
                weights[hits.trailing_zeros() as usize] += weight;
                hits &= hits - 1;
            }
        }
    };
    for tag in tags {
        add(tag, 3);
    }
    add(description.unwrap_or_default(), 1);
    // The first maximum wins, so ties go to the earlier category.
    let (best, weight) = weights.iter().enumerate().fold((0, 0), |acc, (i, w)| if *w > acc.1 { (i, *w) } else { acc });
    if weight == 0 { OTHER } else { CATEGORIES[best].slug }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_distinct_slugs() {
        let slugs: std::collections::HashSet<_> = CATEGORIES.iter().map(|c| c.slug).collect();
        assert_eq!(slugs.len(), 30);
        assert!(find(OTHER).is_some());
    }

    #[test]
    fn tags_outweigh_description_words() {
        let tags = vec!["weather".to_owned()];
        assert_eq!(classify(&tags, Some("price of a token, swap quotes")), "weather");
        assert_eq!(classify(&[], Some("Token launch tracker for any ERC20 memecoin")), "tokens");
        assert_eq!(classify(&[], Some("")), OTHER);
        assert_eq!(classify(&[], None), OTHER);
    }

    /// The rule as written: every word against every category's list.
    fn classify_plainly(tags: &[String], description: Option<&str>) -> &'static str {
        let mut weights = [0u32; CATEGORIES.len()];
        let texts = tags.iter().map(|t| (t.as_str(), 3)).chain(std::iter::once((description.unwrap_or_default(), 1)));
        for (text, weight) in texts {
            let words = text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
            for w in words.map(str::to_ascii_lowercase) {
                for (i, c) in CATEGORIES.iter().enumerate() {
                    if c.words.contains(&w.as_str()) {
                        weights[i] += weight;
                    }
                }
            }
        }
        let (best, weight) =
            weights.iter().enumerate().fold((0, 0), |acc, (i, w)| if *w > acc.1 { (i, *w) } else { acc });
        if weight == 0 { OTHER } else { CATEGORIES[best].slug }
    }

    #[test]
    fn the_word_table_gives_the_rule_as_written() {
        let mut cases: Vec<(Vec<String>, String)> = Vec::new();
        for (i, c) in CATEGORIES.iter().enumerate() {
            for (j, word) in c.words.iter().enumerate() {
                let other = CATEGORIES[(i + j) % CATEGORIES.len()].words.first().copied().unwrap_or("none");
                cases.push((vec![word.to_uppercase()], format!("{other} {other}, {other}! {word}")));
                cases.push((vec![], format!("A {} and {other}-{other}", word.to_uppercase())));
                cases.push((vec![format!("{word}/{other}"), "x".to_owned()], String::new()));
            }
        }
        for (tags, description) in &cases {
            assert_eq!(
                classify(tags, Some(description)),
                classify_plainly(tags, Some(description)),
                "{tags:?} {description}"
            );
        }
    }
}
