//! The rendered part of a snapshot's file tree: every seller's score document and badge, every
//! deployer's document, and the keyed bundles of one document per seller or token (preflight,
//! trust shield, history, buyer trust). [`layout::classify`] names them: `Wallet` and `Bundle`.
//!
//! They are not files of a published snapshot: the server renders each one from the snapshot's
//! record tables ([`crate::tables`]) with [`DocumentRenderer`], and [`export_static`] renders them
//! all into a folder that any static file server (nginx, a CDN) can serve as it is, with the
//! snapshot's other files beside them (the tables aside) and its manifest.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use agentrep_model::buyers::BuyerTrust;
use agentrep_model::{DeployerRecord, SellerRecord};
use rayon::prelude::*;

use crate::layout::{self, BADGE, BUYER_TRUST, DEPLOYER, FileKind, HISTORY, PREFLIGHT, SCORE, SHIELD, WalletDoc};
use crate::payloads::{self, CategoryIndex, PayloadContext};
use crate::reader::LoadedSnapshot;
use crate::tables::SnapshotRecords;
use crate::wire::{ManifestFileV1, ManifestV1};
use crate::writer::{self, Out, RetiredFiles};
use crate::{PublishError, svg};

/// The records the rendered files are made of.
#[derive(Debug, Clone, Copy)]
struct Rendered<'a> {
    /// Sellers, in address order.
    pub sellers: &'a [SellerRecord],
    /// Deployers, in address order.
    pub deployers: &'a [DeployerRecord],
    /// Tokens, in token order.
    pub tokens: &'a [BuyerTrust],
    /// The category ranks of the ranked sellers.
    pub categories: &'a CategoryIndex,
}

fn seller_files(
    out: &Out<'_>,
    ctx: &PayloadContext,
    s: &SellerRecord,
    categories: &CategoryIndex,
    deployer: Option<&DeployerRecord>,
) -> Result<[ManifestFileV1; 2], PublishError> {
    let a = &s.address;
    Ok([
        out.json(&format!("{SCORE}/{a}.json"), &payloads::score_payload(ctx, s, categories, deployer))?,
        out.write(&format!("{BADGE}/{a}.svg"), badge(s).as_bytes())?,
    ])
}

/// Every seller's score document and badge, and every deployer's document.
fn wallet_files(out: &Out<'_>, ctx: &PayloadContext, r: Rendered<'_>) -> Result<Vec<ManifestFileV1>, PublishError> {
    let deployers: HashMap<&str, &DeployerRecord> = r.deployers.iter().map(|d| (d.address.as_str(), d)).collect();
    let mut files: Vec<ManifestFileV1> = r
        .sellers
        .par_iter()
        .map(|s| seller_files(out, ctx, s, r.categories, deployers.get(s.address.as_str()).copied()))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    files.extend(
        r.deployers
            .par_iter()
            .map(|d| out.json(&format!("{DEPLOYER}/{}.json", d.address), &payloads::deployer(ctx, d)))
            .collect::<Result<Vec<_>, _>>()?,
    );
    Ok(files)
}

fn seller_address(s: &SellerRecord) -> &str {
    &s.address
}

/// The keyed bundles: one line per seller (preflight, shield, history) or token (buyer trust).
fn bundle_files(out: &Out<'_>, ctx: &PayloadContext, r: Rendered<'_>) -> Result<Vec<ManifestFileV1>, PublishError> {
    Ok(vec![
        writer::keyed_bundle(out, PREFLIGHT, r.sellers, seller_address, |s| payloads::preflight(ctx, s))?,
        writer::keyed_bundle(out, SHIELD, r.sellers, seller_address, |s| payloads::shield_payload(ctx, s))?,
        writer::keyed_bundle(out, HISTORY, r.sellers, seller_address, |s| payloads::history(ctx, s))?,
        writer::keyed_bundle(out, BUYER_TRUST, r.tokens, |t| t.token.as_str(), |t| payloads::buyer_trust(ctx, t))?,
    ])
}

/// Writes every rendered file of the records into `out`'s folder (whose folders exist).
fn write_rendered(
    out: &Out<'_>,
    ctx: &PayloadContext,
    records: Rendered<'_>,
) -> Result<Vec<ManifestFileV1>, PublishError> {
    let (wallets, bundles) = rayon::join(|| wallet_files(out, ctx, records), || bundle_files(out, ctx, records));
    let mut files = wallets?;
    files.extend(bundles?);
    Ok(files)
}

/// Renders one wallet's document from a snapshot's tables, as the publisher renders its file.
#[derive(Debug)]
pub struct DocumentRenderer {
    ctx: PayloadContext,
    categories: CategoryIndex,
    records: SnapshotRecords,
}

impl DocumentRenderer {
    /// Renders from `records` in the context `ctx`, with the snapshot's category ranks.
    pub fn new(records: SnapshotRecords, ctx: PayloadContext, categories: CategoryIndex) -> Self {
        Self { ctx, categories, records }
    }

    /// The tables rendered from.
    pub fn records(&self) -> &SnapshotRecords {
        &self.records
    }

    /// A seller's record, from its two rows.
    ///
    /// # Errors
    /// When a row cannot be decoded, or the seller has one of its two rows only.
    pub fn seller(&self, address: &str) -> Result<Option<SellerRecord>, PublishError> {
        let Some(row) = self.records.sellers.get(address)? else { return Ok(None) };
        let live =
            self.records.live.get(address)?.ok_or_else(|| crate::tables::unpaired(address, layout::LIVE_BASIS))?;
        Ok(Some(crate::tables::seller_record(address.to_owned(), live, row)))
    }

    /// The bytes of `key`'s document of kind `doc` (a seller's, a deployer's or a token's), those of
    /// its published file or bundle line; `None` when the snapshot has no such document.
    ///
    /// # Errors
    /// When a row cannot be decoded or the payload not encoded.
    pub fn render(&self, doc: WalletDoc, key: &str) -> Result<Option<Vec<u8>>, PublishError> {
        let ctx = &self.ctx;
        fn json<T: serde::Serialize>(payload: &T) -> Result<Vec<u8>, PublishError> {
            serde_json::to_vec(payload).map_err(PublishError::Encode)
        }
        let bytes = match doc {
            WalletDoc::Deployer => match self.records.deployers.get(key)? {
                Some(d) => json(&payloads::deployer(ctx, &d))?,
                None => return Ok(None),
            },
            WalletDoc::BuyerTrust => match self.records.tokens.get(key)? {
                Some(t) => json(&payloads::buyer_trust(ctx, &t))?,
                None => return Ok(None),
            },
            WalletDoc::Score | WalletDoc::Badge | WalletDoc::Preflight | WalletDoc::Shield | WalletDoc::History => {
                let Some(s) = self.seller(key)? else { return Ok(None) };
                match doc {
                    WalletDoc::Score => {
                        let deployer = self.records.deployers.get(key)?;
                        json(&payloads::score_payload(ctx, &s, &self.categories, deployer.as_ref()))?
                    }
                    WalletDoc::Badge => badge(&s).into_bytes(),
                    WalletDoc::Preflight => json(&payloads::preflight(ctx, &s))?,
                    WalletDoc::Shield => json(&payloads::shield_payload(ctx, &s))?,
                    _ => json(&payloads::history(ctx, &s))?,
                }
            }
        };
        Ok(Some(bytes))
    }
}

/// A seller's badge.
fn badge(s: &SellerRecord) -> String {
    let color = payloads::shield(&s.assessment).color;
    let value = s.assessment.score.map_or_else(|| "unscored".to_owned(), |v| format!("{v}/100"));
    svg::badge(&value, Some(color))
}

/// Whether the file at `path` is one the tables render.
pub fn is_rendered(path: &str) -> bool {
    matches!(layout::classify(path), FileKind::Wallet(..) | FileKind::Bundle(_))
}

/// What [`export_static`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticExport {
    /// Files rendered from the tables.
    pub rendered: u64,
    /// The snapshot's other files but the tables, linked (or copied, across file systems).
    pub linked: u64,
    /// Bytes of the whole tree, manifest aside.
    pub bytes: u64,
}

/// The payload context a snapshot's manifest states.
pub fn context_of(manifest: &ManifestV1) -> PayloadContext {
    PayloadContext {
        base_path: manifest.base_path.clone(),
        date: manifest.snapshot_date.clone(),
        snapshot_id: manifest.snapshot_id.clone(),
        generated_at: manifest.generated_at.clone(),
        verifier_contract: manifest.verifier_contract.clone(),
    }
}

/// Writes the rendered files of the records into `to` (creating its folders): what the server
/// serves for each wallet, as files; returns their manifest entries.
///
/// # Errors
/// When a write fails.
pub fn render_tree(
    to: &Path,
    ctx: &PayloadContext,
    sellers: &[SellerRecord],
    deployers: &[DeployerRecord],
    tokens: &[BuyerTrust],
) -> Result<Vec<ManifestFileV1>, PublishError> {
    for sub in layout::STATIC_FOLDERS {
        let sub = to.join(sub);
        fs::create_dir_all(&sub).map_err(PublishError::io(&sub))?;
    }
    let ranked = writer::ranked(sellers);
    let categories = CategoryIndex::new(&ranked);
    let retired = RetiredFiles::default();
    let out = Out::new(to, &retired);
    write_rendered(&out, ctx, Rendered { sellers, deployers, tokens, categories: &categories })
}

/// Writes the static file tree of the published snapshot in `snapshot` into `to`, a folder that
/// does not exist yet or is empty: every file the tables render, rendered, and every other file of
/// the snapshot but the tables hard-linked (copied where `to` is on another file system), then the
/// snapshot's manifest listing them. The snapshot's files are verified against its manifest first.
///
/// # Errors
/// When the snapshot does not verify, its tables cannot be read, `to` holds files, or a write
/// fails.
pub fn export_static(snapshot: &Path, to: &Path) -> Result<StaticExport, PublishError> {
    let manifest = LoadedSnapshot::verify(snapshot)?;
    if fs::read_dir(to).map(|mut d| d.next().is_some()).unwrap_or(false) {
        return Err(PublishError::Export(format!(
            "{} is not empty: the export writes into a new folder",
            to.display()
        )));
    }
    let records = SnapshotRecords::open(snapshot)?;
    let (sellers, deployers, tokens) = (records.all_sellers()?, records.all_deployers()?, records.all_tokens()?);
    drop(records);
    let mut files = render_tree(to, &context_of(&manifest), &sellers, &deployers, &tokens)?;
    if manifest.files.iter().any(|f| f.path == layout::COUNTERPARTIES) {
        let path = snapshot.join(layout::COUNTERPARTIES);
        let parquet = fs::read(&path).map_err(PublishError::io(&path))?;
        let (retired, export) = (RetiredFiles::default(), crate::exports::counterparties());
        let out = Out::new(to, &retired);
        files.push(out.stream(layout::COUNTERPARTIES_CSV, |w| export.write_csv_from_parquet(parquet.into(), w))?);
    }
    let rendered_count = files.len() as u64;

    let kept: Vec<&ManifestFileV1> = manifest
        .files
        .iter()
        .filter(|f| !is_rendered(&f.path) && layout::classify(&f.path) != FileKind::ServerOnly)
        .collect();
    kept.par_iter().try_for_each(|f| link_or_copy(&snapshot.join(&f.path), &to.join(&f.path)))?;
    files.extend(kept.iter().map(|f| (*f).clone()));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let bytes = files.iter().map(|f| f.size).sum();
    writer::write_manifest(to, &ManifestV1 { files, ..manifest })?;
    Ok(StaticExport { rendered: rendered_count, linked: kept.len() as u64, bytes })
}

fn link_or_copy(from: &Path, to: &Path) -> Result<(), PublishError> {
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(PublishError::io(parent))?;
    }
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to).map(drop).map_err(PublishError::io(to))
}
