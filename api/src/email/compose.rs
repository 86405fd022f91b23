//! Writing a site's emails from JSON-T templates: the site's own `emails/<kind>.txt` and
//! `emails/<kind>.html` from its template folder when it has them, else the defaults in
//! `email/defaults/`. The plain-text template's first line is `Subject: …`; a blank line
//! after it is dropped. The HTML part is optional (plain text alone is a valid email).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use renderer::folder::TemplateFolder;
use serde_json::Value;
use template_lang::value::Node;
use template_lang::{CompileOptions, Env, Registry, Template, execute};
use tenants::Email;

/// The kinds of email, each with a default template pair.
pub const FORM_SUBMISSION: &str = "form-submission";
pub const RESTOCK: &str = "restock";
pub const ORDER_CONFIRMATION: &str = "order-confirmation";
/// The owner's notice of a new order.
pub const ORDER_NOTIFICATION: &str = "order-notification";
pub const MEMBER_CONFIRMATION: &str = "member-confirmation";
pub const MEMBER_EXISTING: &str = "member-existing";
/// A gift card's code, to the recipient the buyer named.
pub const GIFT_CARD: &str = "gift-card";
/// An owner's password-reset link.
pub const OWNER_RESET: &str = "owner-reset";
/// An invitation to the owner app.
pub const OWNER_INVITE: &str = "owner-invite";
/// The owner marked a pay-later order paid: what payment opens (gift card codes, downloads).
pub const ORDER_PAID: &str = "order-paid";
/// The owner shipped units of an order (carrier and tracking number when given).
pub const ORDER_SHIPPED: &str = "order-shipped";
/// The owner cancelled an order.
pub const ORDER_CANCELLED: &str = "order-cancelled";
/// The owner refunded part or all of an order.
pub const ORDER_REFUNDED: &str = "order-refunded";

const DEFAULTS: [(&str, &str); 26] = [
    ("order-paid.txt", include_str!("defaults/order-paid.txt")),
    ("order-paid.html", include_str!("defaults/order-paid.html")),
    (
        "order-shipped.txt",
        include_str!("defaults/order-shipped.txt"),
    ),
    (
        "order-shipped.html",
        include_str!("defaults/order-shipped.html"),
    ),
    (
        "order-cancelled.txt",
        include_str!("defaults/order-cancelled.txt"),
    ),
    (
        "order-cancelled.html",
        include_str!("defaults/order-cancelled.html"),
    ),
    (
        "order-refunded.txt",
        include_str!("defaults/order-refunded.txt"),
    ),
    (
        "order-refunded.html",
        include_str!("defaults/order-refunded.html"),
    ),
    ("gift-card.txt", include_str!("defaults/gift-card.txt")),
    ("gift-card.html", include_str!("defaults/gift-card.html")),
    (
        "form-submission.txt",
        include_str!("defaults/form-submission.txt"),
    ),
    (
        "form-submission.html",
        include_str!("defaults/form-submission.html"),
    ),
    ("restock.txt", include_str!("defaults/restock.txt")),
    ("restock.html", include_str!("defaults/restock.html")),
    (
        "order-confirmation.txt",
        include_str!("defaults/order-confirmation.txt"),
    ),
    (
        "order-confirmation.html",
        include_str!("defaults/order-confirmation.html"),
    ),
    (
        "order-notification.txt",
        include_str!("defaults/order-notification.txt"),
    ),
    (
        "order-notification.html",
        include_str!("defaults/order-notification.html"),
    ),
    (
        "member-confirmation.txt",
        include_str!("defaults/member-confirmation.txt"),
    ),
    (
        "member-confirmation.html",
        include_str!("defaults/member-confirmation.html"),
    ),
    (
        "member-existing.txt",
        include_str!("defaults/member-existing.txt"),
    ),
    (
        "member-existing.html",
        include_str!("defaults/member-existing.html"),
    ),
    ("owner-reset.txt", include_str!("defaults/owner-reset.txt")),
    (
        "owner-reset.html",
        include_str!("defaults/owner-reset.html"),
    ),
    (
        "owner-invite.txt",
        include_str!("defaults/owner-invite.txt"),
    ),
    (
        "owner-invite.html",
        include_str!("defaults/owner-invite.html"),
    ),
];

static DEFAULT_TEMPLATES: LazyLock<BTreeMap<&'static str, Template>> = LazyLock::new(|| {
    DEFAULTS
        .iter()
        .map(|(name, source)| {
            let c =
                Template::compile_with(source, Registry::standard(), &CompileOptions::default());
            assert!(
                c.errors.is_empty(),
                "default email template {name}: {:?}",
                c.errors
            );
            (*name, c.template)
        })
        .collect()
});

/// Who a message is from and to.
pub struct Envelope {
    pub from: String,
    pub to: String,
    pub reply_to: Option<String>,
}

/// The `From` of a site's mail: its title as the name, `no-reply@` the host it was asked
/// on (one of its own domains).
pub fn site_sender(site_title: &str, host: &str) -> String {
    let host = host.split(':').next().unwrap_or(host);
    let name: String = site_title
        .chars()
        .filter(|c| !matches!(c, '"' | '\\' | '\r' | '\n' | '<' | '>'))
        .collect();
    if name.trim().is_empty() {
        format!("no-reply@{host}")
    } else {
        format!("\"{}\" <no-reply@{host}>", name.trim())
    }
}

/// The email of `kind` with `data` as the template's context; the site's folder
/// overrides each part it has.
pub fn compose(
    folder: Option<&TemplateFolder>,
    kind: &str,
    data: &Value,
    envelope: Envelope,
    locale: &icu_locale::Locale,
) -> Email {
    let template = |ext: &str| -> Option<&Template> {
        let name = format!("{kind}.{ext}");
        folder
            .and_then(|f| f.emails.get(&name))
            .or_else(|| DEFAULT_TEMPLATES.get(name.as_str()))
    };
    let node = Node::from_json(data);
    let partials = Default::default();
    let injects = Default::default();
    let env = Env {
        partials: &partials,
        injects: &injects,
        locale: Some(locale.clone()),
        ..Env::default()
    };
    let run = |t: &Template| {
        let mut out = String::new();
        execute(t, &node, &env, &mut out);
        out
    };
    let text = template("txt").map(run).unwrap_or_default();
    let (subject, body) = split_subject(&text, kind);
    Email {
        kind: kind.to_owned(),
        from: envelope.from,
        to: envelope.to,
        reply_to: envelope.reply_to,
        subject,
        text: body,
        html: template("html").map(run).filter(|h| !h.trim().is_empty()),
    }
}

/// `Subject: …` off the top of the text part (one line; a template without it gets the
/// kind as its subject).
fn split_subject(text: &str, kind: &str) -> (String, String) {
    let text = text.trim_start_matches(['\n', '\r']);
    match text.split_once('\n') {
        Some((first, rest)) if first.starts_with("Subject:") => (
            first["Subject:".len()..].trim().to_owned(),
            rest.trim_start_matches(['\n', '\r']).trim_end().to_owned() + "\n",
        ),
        _ => (kind.replace('-', " "), text.trim_end().to_owned() + "\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope() -> Envelope {
        Envelope {
            from: site_sender("Loam & Lantern", "loam.test:8080"),
            to: "ann@example.test".into(),
            reply_to: None,
        }
    }

    #[test]
    fn the_default_restock_notice_reads_the_product_and_escapes_html() {
        let data = json!({
            "website": {"siteTitle": "Loam & Lantern"},
            "product": {"title": "Fern <Pot>", "url": "http://loam.test/shop/fern?a=1&b=2"},
            "variant": {"sku": "FTP-L", "description": "Size: Large"},
        });
        let m = compose(
            None,
            RESTOCK,
            &data,
            envelope(),
            &icu_locale::locale!("en-US"),
        );
        assert_eq!(m.subject, "Fern <Pot> is back in stock at Loam & Lantern");
        assert!(
            m.text
                .starts_with("Good news: Fern <Pot> (Size: Large) is back in stock"),
            "{}",
            m.text
        );
        assert!(m.text.contains("http://loam.test/shop/fern?a=1&b=2"));
        let html = m.html.unwrap();
        assert!(
            html.contains("Fern &lt;Pot&gt;") && html.contains("?a=1&amp;b=2"),
            "{html}"
        );
        assert_eq!(m.from, "\"Loam & Lantern\" <no-reply@loam.test>");
    }

    #[test]
    fn a_site_template_replaces_the_part_it_has() {
        let files: renderer::folder::TemplateFiles = [(
            "emails/restock.txt".to_string(),
            b"Subject: Back: {product.title}\n\nHi {email}!"
                .to_vec()
                .into(),
        )]
        .into_iter()
        .collect();
        let folder = renderer::folder::load(&files);
        let data = json!({"product": {"title": "Pot"}, "email": "ann@example.test"});
        let m = compose(
            Some(&folder),
            RESTOCK,
            &data,
            envelope(),
            &icu_locale::locale!("en-US"),
        );
        assert_eq!(
            (m.subject.as_str(), m.text.as_str()),
            ("Back: Pot", "Hi ann@example.test!\n")
        );
        // The site overrides the text part only; the HTML part stays the default.
        assert!(m.html.unwrap().contains("<strong>Pot</strong>"));
        assert_eq!(
            split_subject("no subject line", "order-confirmation").0,
            "order confirmation"
        );
    }
}
