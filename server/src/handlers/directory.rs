//! Directory reads: proofs, lists, funding, activity, identities, crawl sources.

use std::sync::Arc;

use super::{computed, snapshot};
use crate::App;
use crate::http::{HandlerResult, Request};
use crate::query::directory as dq;

/// `GET /proofs`.
pub async fn proofs(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::proofs(&*snapshot(&app)?, &req.query()?)?)
}

/// `GET /denylist`.
pub async fn denylist(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::denylist(&*snapshot(&app)?, &req.query()?))
}

/// `GET /top-buyers`.
pub async fn top_buyers(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::top_buyers(&*snapshot(&app)?, &req.query()?))
}

/// `GET /agents-of-interest`.
pub async fn agents_of_interest(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&dq::agents_of_interest(&*snapshot(&app)?, app.base_path(), &req.query()?)?)
}

/// `GET /funded-by/{address}`.
pub async fn funded_by(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&dq::funded_by(&*snapshot(&app)?, &a))
}

/// `GET /recent-activity/{address}`.
pub async fn recent_activity(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&dq::recent_activity(&*snapshot(&app)?, &a))
}

/// `GET /canonical-id/{address}`.
pub async fn canonical_id(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&dq::canonical_id(&*snapshot(&app)?, &a))
}

/// `GET /has-mainstreet-ref/{address}`.
pub async fn has_ref(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&dq::has_ref(&*snapshot(&app)?, &a))
}

/// `GET /snippet/{address}`.
pub async fn snippet(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    computed(&dq::snippet(app.base_path(), &a))
}

/// `GET /crawlers`.
pub async fn crawlers(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&dq::crawlers(&*snapshot(&app)?))
}
