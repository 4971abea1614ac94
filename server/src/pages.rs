//! Rendering the pages for people (minijinja, templates in `server/templates/`, embedded at
//! build time, HTML auto-escaped): the leaderboard, agent profiles, the embeddable widget, the
//! og image (SVG) and the frame.

use std::sync::OnceLock;

use minijinja::value::Serde;
use minijinja::{AutoEscape, Environment, Value, context};
use serde::Serialize;

use crate::ServedSnapshot;

const TEMPLATES: &[(&str, &str)] = &[
    ("base.html.j2", include_str!("../templates/base.html.j2")),
    ("card.html.j2", include_str!("../templates/card.html.j2")),
    ("leaderboard.html.j2", include_str!("../templates/leaderboard.html.j2")),
    ("agent.html.j2", include_str!("../templates/agent.html.j2")),
    ("widget.html.j2", include_str!("../templates/widget.html.j2")),
    ("og.svg.j2", include_str!("../templates/og.svg.j2")),
    ("frame.html.j2", include_str!("../templates/frame.html.j2")),
];

fn env() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        for (name, source) in TEMPLATES {
            env.add_template(name, source).expect("templates parse (a unit test renders each)");
        }
        env
    })
}

/// A page model as a template value.
pub fn model(value: &impl Serialize) -> Value {
    Value::from(Serde(value))
}

/// Renders a template with the page's model and the snapshot's common fields.
pub fn render(template: &str, snap: &ServedSnapshot, base: &str, model: Value) -> String {
    let common = context! {
        base,
        snapshot_id => &snap.id,
        snapshot_date => snap.date(),
        methodology => &snap.manifest.methodology,
    };
    let ctx = context! { ..model, ..common };
    env().get_template(template).and_then(|t| t.render(ctx)).expect("templates render (a unit test renders each)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses() {
        for (name, _) in TEMPLATES {
            assert!(env().get_template(name).is_ok(), "{name}");
        }
    }
}
