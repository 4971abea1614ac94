//! Ranking and discovery.

use std::sync::Arc;

use hyper::StatusCode;

use super::{computed, serve, snapshot};
use crate::App;
use crate::http::respond::{self, mime};
use crate::http::{HandlerResult, Request};
use crate::query::{ranking as rq, search as sq};

/// `GET /leaderboard`: filtered views are built once per snapshot and kept.
pub async fn leaderboard(app: Arc<App>, req: Request) -> HandlerResult {
    let query: rq::LeaderboardQuery = req.query()?;
    serve(&req, &*rq::leaderboard_view(&*snapshot(&app)?, &query)?, mime::JSON)
}

/// `GET /compare`.
pub async fn compare(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&rq::compare(&*snapshot(&app)?, &req.query()?)?)
}

/// `GET /movers`.
pub async fn movers(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&rq::movers(&*snapshot(&app)?, &req.query()?))
}

/// `GET /featured`.
pub async fn featured(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&rq::featured(&*snapshot(&app)?))
}

/// `GET /trending`.
pub async fn trending(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&rq::trending(&*snapshot(&app)?, &req.query()?))
}

/// `GET /random`: a new draw on every call, never cached.
pub async fn random(app: Arc<App>, req: Request) -> HandlerResult {
    Ok(respond::json(StatusCode::OK, &rq::random(&*snapshot(&app)?, &req.query()?)?))
}

/// `GET /search`.
pub async fn search(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&sq::search(&*snapshot(&app)?, &req.query()?))
}

/// `GET /recommend`.
pub async fn recommend(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&sq::recommend(&*snapshot(&app)?, &req.query()?)?)
}

/// `GET /tags`.
pub async fn tags(app: Arc<App>, _req: Request) -> HandlerResult {
    computed(&sq::tags(&*snapshot(&app)?))
}

/// `GET /tags/{tag}`.
pub async fn tag(app: Arc<App>, req: Request) -> HandlerResult {
    computed(&sq::tag(&*snapshot(&app)?, req.param("tag"), &req.query()?)?)
}

/// `POST /match`.
pub async fn match_intent(app: Arc<App>, mut req: Request) -> HandlerResult {
    let body: sq::MatchRequest = req.json().await?;
    Ok(respond::json(StatusCode::OK, &sq::match_intent(&*snapshot(&app)?, app.base_path(), &body)))
}
