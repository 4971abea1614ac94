//! SVG badges, rendered from the one template `templates/badge.svg.j2` (minijinja escapes every
//! value).

use std::sync::OnceLock;

use agentrep_model::decision::ShieldColor;
use minijinja::{AutoEscape, Environment, context};

const TEMPLATE: &str = include_str!("../templates/badge.svg.j2");

/// Badge colour of a shield colour (grey for none).
pub fn badge_color(shield: Option<ShieldColor>) -> &'static str {
    match shield {
        Some(ShieldColor::Green) => "#2ea44f",
        Some(ShieldColor::Yellow) => "#dbab09",
        Some(ShieldColor::Red) => "#d73a49",
        None => "#9f9f9f",
    }
}

/// Renders a badge: `agentrep | <value>` in the shield's colour.
pub fn badge(value: &str, shield: Option<ShieldColor>) -> String {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    let env = ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::Html);
        env.add_template("badge", TEMPLATE).expect("badge template parses");
        env
    });
    let label = "agentrep";
    // Verdana 11px averages ~7px per character; pad 10px each side.
    let label_width = label.len() * 7 + 10;
    let value_width = value.chars().count() * 7 + 10;
    env.get_template("badge")
        .and_then(|t| {
            t.render(context! {
                label, value, color => badge_color(shield), label_width, value_width,
                width => label_width + value_width,
            })
        })
        .expect("badge renders")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn badge_escapes_and_colours() {
        let svg = badge("<87>", Some(ShieldColor::Green));
        assert!(svg.contains("&lt;87&gt;"));
        assert!(svg.contains("#2ea44f"));
        assert!(svg.starts_with("<svg"));
    }
}
