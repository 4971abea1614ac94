//! Pages for people in a real browser: headless Chromium (Debian's `chromium`, installed by
//! `make setup`) loads the leaderboard and a profile from the server on loopback; the test checks
//! the rendered DOM and saves screenshots (desktop and phone widths) under
//! `<target>/test-artifacts/pages/`.

use std::path::PathBuf;
use std::process::Command;

use agentrep_tests::{RunningServer, shared_world};
use serde_json::Value;

fn chromium() -> PathBuf {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output().ok()?;
            out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_owned()))
        })
        .expect("headless Chromium is required: `make setup` installs the Debian package `chromium`")
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").join("target"));
    let dir = target.join("test-artifacts/pages");
    std::fs::create_dir_all(&dir).expect("artifacts folder");
    dir
}

/// Runs headless Chromium with a throwaway profile and a bounded run time.
fn browse(args: &[String]) -> String {
    let profile = tempfile::tempdir().expect("profile dir");
    let out = Command::new("timeout")
        .arg("60")
        .arg(chromium())
        .args(["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn dom(url: &str) -> String {
    browse(&["--dump-dom".to_owned(), url.to_owned()])
}

fn screenshot(url: &str, name: &str, size: (u32, u32)) -> PathBuf {
    let path = artifacts().join(name);
    let _ = std::fs::remove_file(&path);
    browse(&[
        format!("--screenshot={}", path.display()),
        format!("--window-size={},{}", size.0, size.1),
        url.to_owned(),
    ]);
    let bytes = std::fs::read(&path).expect("screenshot written");
    assert_eq!(&bytes[1..4], b"PNG", "{name} is a PNG");
    assert!(bytes.len() > 10_000, "{name} has content ({} bytes)", bytes.len());
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn leaderboard_and_profile_pages_render_in_chromium() {
    let s = RunningServer::start(&shared_world().snapshots());
    let lb: Value = reqwest::get(format!("{}/leaderboard?limit=1", s.base)).await.unwrap().json().await.unwrap();
    let top = lb["results"][0]["payTo"].as_str().unwrap().to_owned();
    let score = lb["results"][0]["score"].as_u64().unwrap();
    let origin = format!("http://{}", s.addr);

    let page = tokio::task::spawn_blocking({
        let url = format!("{origin}/");
        move || dom(&url)
    })
    .await
    .unwrap();
    assert!(page.contains("<table id=\"leaderboard\">"), "the leaderboard table renders");
    assert_eq!(page.matches("<tr data-address=").count(), 50, "50 agents a page");
    assert!(page.contains(&format!("href=\"/agent/{top}\"")), "the top agent links to its profile");
    assert!(page.contains("/api/agent/scores.csv") && page.contains("/api/agent/exports/scores.parquet"));

    let profile = tokio::task::spawn_blocking({
        let url = format!("{origin}/agent/{top}");
        move || dom(&url)
    })
    .await
    .unwrap();
    assert!(profile.contains(&format!("<div class=\"score\" data-score=\"\">{score}</div>")), "the score shows");
    assert!(profile.contains("<svg id=\"sparkline\""), "the history sparkline is inline SVG");
    assert!(profile.contains("<polyline"), "with a line");
    assert!(profile.contains("<table id=\"breakdown\">"), "the score breakdown shows");
    assert!(profile.contains("Trust shield") && profile.contains("id=\"metrics\""));
    assert!(profile.contains(&format!("/api/agent/score/{top}")), "links to the data");

    let (desktop, phone, widget) = tokio::task::spawn_blocking(move || {
        (
            screenshot(&format!("{origin}/"), "leaderboard-desktop.png", (1280, 900)),
            screenshot(&format!("{origin}/agent/{top}"), "profile-phone.png", (390, 844)),
            screenshot(&format!("{origin}/api/agent/embed/widget/{top}"), "widget.png", (420, 200)),
        )
    })
    .await
    .unwrap();
    eprintln!("screenshots: {}, {}, {}", desktop.display(), phone.display(), widget.display());
}

#[tokio::test]
async fn unknown_profiles_widget_og_and_frame() {
    let s = RunningServer::start(&shared_world().snapshots());
    let origin = format!("http://{}", s.addr);
    let unknown = "0x00000000000000000000000000000000000000aa";
    let resp = reqwest::get(format!("{origin}/agent/{unknown}")).await.unwrap();
    assert_eq!(resp.status(), 404);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(resp.text().await.unwrap().contains("Not indexed"), "an unknown address gets a page that says so");
    let resp = reqwest::get(format!("{origin}/agent/0x12")).await.unwrap();
    assert_eq!(resp.status(), 400);

    let lb: Value = reqwest::get(format!("{}/leaderboard?limit=5", s.base)).await.unwrap().json().await.unwrap();
    let og = reqwest::get(format!("{}/og.png", s.base)).await.unwrap();
    assert_eq!(og.headers()["content-type"], "image/svg+xml");
    let svg = og.text().await.unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<circle").count(), 5, "the top 5");
    for entry in lb["results"].as_array().unwrap() {
        assert!(svg.contains(&format!(">{}</text>", entry["score"])), "{svg}");
    }
    let top = lb["results"][0]["payTo"].as_str().unwrap();
    let one = reqwest::get(format!("{}/og.png?addr={top}", s.base)).await.unwrap().text().await.unwrap();
    assert_eq!(one.matches("<circle").count(), 1);
    let bad = reqwest::get(format!("{}/og.png?addr=nobody", s.base)).await.unwrap();
    assert_eq!(bad.status(), 400);

    // Attribute values are HTML-escaped (`/` as `&#x2f;`); a reader of the meta tags decodes them.
    let frame = reqwest::get(format!("{}/frame/leaderboard", s.base)).await.unwrap().text().await.unwrap();
    let frame = frame.replace("&#x2f;", "/");
    assert!(frame.contains("<meta property=\"fc:frame\" content=\"vNext\">"));
    assert!(frame.contains("fc:frame:image\" content=\"http://"));
    // A client's Host header shapes only its own copy of the page.
    let client = reqwest::Client::new();
    let poisoned =
        client.get(format!("{}/frame/leaderboard", s.base)).header("host", "evil.example").send().await.unwrap();
    assert!(poisoned.text().await.unwrap().replace("&#x2f;", "/").contains("http://evil.example/"));
    let clean = reqwest::get(format!("{}/frame/leaderboard", s.base)).await.unwrap().text().await.unwrap();
    assert!(!clean.contains("evil.example"), "another client's Host never reaches this page");
    let widget = reqwest::get(format!("{}/embed/widget/{top}", s.base)).await.unwrap();
    assert!(widget.headers().get("x-frame-options").is_none(), "the widget can be framed");
    assert!(widget.text().await.unwrap().contains(&format!("data-agent=\"{top}\"")));
}
