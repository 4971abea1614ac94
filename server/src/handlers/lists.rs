//! Lists: categories, the scored marketplace, the health summary.

use std::sync::Arc;

use super::{computed, snapshot};
use crate::App;
use crate::http::{HandlerResult, Request};
use crate::query::lists as lq;

/// `GET /categories`.
pub async fn categories(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&lq::categories(&*snapshot(&app)?, app.base_path()))
}

/// `GET /by-category/{cat}`.
pub async fn by_category(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&lq::by_category(&*snapshot(&app)?, req.param("cat"), &req.query()?)?)
}

/// `GET /bazaar-scored`.
pub async fn bazaar_scored(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&lq::bazaar_scored(&*snapshot(&app)?, &req.query()?))
}

/// `GET /health-summary`.
pub async fn health_summary(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&lq::health_summary(&*snapshot(&app)?))
}
