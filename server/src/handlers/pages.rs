//! Pages for people: rendered once per snapshot and query, then served like the snapshot's files
//! (ETag, gzip).

use std::sync::Arc;

use bytes::Bytes;
use hyper::StatusCode;

use super::{serve, snapshot};
use crate::App;
use crate::blob::Blob;
use crate::http::params::address;
use crate::http::respond::mime;
use crate::http::{HandlerResult, Request};
use crate::pages::{model, render};
use crate::query::pages as pq;

/// The rendered body of this request's page, built on a miss; `vary` names what else the page
/// depends on besides its path and query (the origin it links to).
fn cached(
    app: &Arc<App>,
    req: &Request,
    vary: &str,
    build: impl FnOnce(&crate::ServedSnapshot) -> String,
) -> Result<Arc<Blob>, crate::ApiError> {
    let snap = snapshot(app)?;
    let path = req.uri.path_and_query().map_or_else(|| req.uri.path().to_owned(), |p| p.as_str().to_owned());
    Ok(snap.page_views.get_or_build(&format!("{vary} {path}"), || Blob::new(Bytes::from(build(&snap)))))
}

/// The origin absolute links point at: the configured public domain, else the request's host.
fn public_origin(app: &App, req: &Request) -> String {
    match &app.identity.domain {
        Some(domain) => format!("https://{domain}"),
        None => format!(
            "http://{}",
            req.headers.get(hyper::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("127.0.0.1")
        ),
    }
}

/// `GET /`: the leaderboard page.
pub async fn leaderboard(app: Arc<App>, req: Request) -> HandlerResult {
    let query: pq::LeaderboardPageQuery = req.query()?;
    let base = app.base_path().to_owned();
    // A page built while the history filled is not served once it is complete, and back.
    let vary = app.backfill_fills_to().unwrap_or_default();
    let page = cached(&app, &req, &vary, |snap| {
        let page = pq::LeaderboardModel { history_filling: app.history_filling(snap), ..pq::leaderboard(snap, &query) };
        render("leaderboard.html.j2", snap, &base, model(&page))
    })?;
    serve(&req, &page, mime::HTML)
}

/// `GET /agent/{address}`: an agent's profile (404 with the page for an unknown address).
pub async fn agent(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let snap = snapshot(&app)?;
    let (profile, indexed) = pq::agent(&snap, &a);
    let base = app.base_path().to_owned();
    let page = cached(&app, &req, "", |snap| render("agent.html.j2", snap, &base, model(&profile)))?;
    let mut response = serve(&req, &page, mime::HTML)?;
    if !indexed {
        *response.status_mut() = StatusCode::NOT_FOUND;
    }
    Ok(response)
}

/// `GET /embed/widget/{address}`: the reputation card alone, for an iframe.
pub async fn widget(app: Arc<App>, req: Request) -> HandlerResult {
    let a = req.address("address")?;
    let base = app.base_path().to_owned();
    let page = cached(&app, &req, "", |snap| {
        let (card, _) = pq::card(snap, &a);
        render("widget.html.j2", snap, &base, minijinja::context! { agent => model(&card) })
    })?;
    serve(&req, &page, mime::HTML)
}

/// `GET /og.png`: the social image (an SVG body, as the original serves it).
pub async fn og(app: Arc<App>, req: Request) -> HandlerResult {
    let query: pq::OgQuery = req.query()?;
    let agent = match query.addr.as_deref() {
        Some(raw) => Some(address(raw).map_err(|e| crate::ApiError::param("addr", format!("addr: {e}")))?),
        None => None,
    };
    let base = app.base_path().to_owned();
    let image = cached(&app, &req, "", |snap| {
        render("og.svg.j2", snap, &base, model(&pq::og(snap, agent.as_ref(), query.page.get())))
    })?;
    serve(&req, &image, mime::SVG)
}

/// `GET /frame/leaderboard`: an HTML page with frame metadata around the og image.
pub async fn frame(app: Arc<App>, req: Request) -> HandlerResult {
    let base = app.base_path().to_owned();
    // The page links absolutely, so a cached copy is kept per origin: one client's Host header
    // never decides what another client is shown.
    let origin = public_origin(&app, &req);
    let page = cached(&app, &req, &origin, |snap| {
        let frame = minijinja::context! {
            image => format!("{origin}{base}/og.png"),
            leaderboard_url => format!("{origin}/"),
        };
        render("frame.html.j2", snap, &base, frame)
    })?;
    serve(&req, &page, mime::HTML)
}
