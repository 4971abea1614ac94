//! Which sources are on in a deployment, and why the others are off: each source's needs (the
//! sources table's `needs`) checked against the configuration and the environment. The scheduler,
//! `agentrep ingest`, `schedule --plan` and `/status` all ask here.

use std::path::Path;

use super::{Need, PROBE_KEY_ENV, SourceName};
use crate::config::IngestConfig;

/// What a deployment has besides its configuration file.
#[derive(Debug, Clone, Copy)]
pub struct Deployment<'a> {
    /// The configuration.
    pub config: &'a IngestConfig,
    /// Whether the paid probe's key is set (`AGENTREP_PROBE_KEY`).
    pub probe_key: bool,
    /// The server's store, when one exists.
    pub store: Option<&'a Path>,
}

impl<'a> Deployment<'a> {
    /// The deployment as the environment describes it: the probe key from
    /// [`PROBE_KEY_ENV`], the store at `store` when that file exists.
    pub fn from_env(config: &'a IngestConfig, store: Option<&'a Path>) -> Self {
        let probe_key = std::env::var(PROBE_KEY_ENV).is_ok_and(|k| !k.trim().is_empty());
        Self { config, probe_key, store: store.filter(|p| p.is_file()) }
    }

    /// Why `need` is not met, if it is not.
    pub fn unmet(&self, need: Need) -> Option<String> {
        let c = self.config;
        match need {
            Need::Chain => c.chain.rpc_urls.is_empty().then(|| "no chain.rpc_urls".to_owned()),
            Need::DiscoveryUrl => c.marketplace.discovery.is_empty().then(|| "no marketplace.discovery URL".to_owned()),
            Need::DomainList => (!c.domain_ranks.enabled).then(|| "domain_ranks.enabled is false".to_owned()),
            Need::ProbeBudgetAndKey => {
                if !c.paid_probes.enabled {
                    Some("paid_probes.enabled is false (it spends the operator's money)".to_owned())
                } else if c.paid_probes.budget_per_day == 0 {
                    Some("paid_probes.budget_per_day is 0".to_owned())
                } else if !self.probe_key {
                    Some(format!("{PROBE_KEY_ENV} is not set"))
                } else {
                    None
                }
            }
            Need::Store => self.store.is_none().then(|| "no store file yet (the server writes it)".to_owned()),
        }
    }

    /// `None` when `source` can run here, else why it is off.
    pub fn off_reason(&self, source: SourceName) -> Option<String> {
        let reasons: Vec<String> = source.needs().iter().filter_map(|n| self.unmet(*n)).collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }

    /// The sources that are on, in run order.
    pub fn sources_on(&self) -> Vec<SourceName> {
        SourceName::ALL.iter().copied().filter(|s| self.off_reason(*s).is_none()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_deployment_runs_everything_but_the_paid_probe_and_the_store_export() {
        let config = IngestConfig::default();
        let d = Deployment { config: &config, probe_key: false, store: None };
        let off: Vec<_> = SourceName::ALL.iter().filter(|s| d.off_reason(**s).is_some()).collect();
        assert_eq!(off, [&SourceName::StoreExport, &SourceName::PaidProbes]);
        assert!(d.off_reason(SourceName::PaidProbes).unwrap().contains("paid_probes.enabled"));
        let mut paid = config.clone();
        paid.paid_probes.enabled = true;
        let d = Deployment { config: &paid, probe_key: false, store: None };
        assert!(d.off_reason(SourceName::PaidProbes).unwrap().contains(PROBE_KEY_ENV));
        let d = Deployment { config: &paid, probe_key: true, store: Some(Path::new("/store")) };
        assert_eq!(d.sources_on(), SourceName::ALL);
    }
}
