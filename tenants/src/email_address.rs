//! The one check of an email address a visitor gives: form answers (and so a form's reply-to
//! and newsletter sign-ups), member sign-up, restock sign-ups and checkout. An address that
//! passes is one the mailer can send to: it is parsed with the mailer's own parser (lettre's
//! `Address`, then `Mailbox` as `api/src/email` parses a message's `To`/`Reply-To`), and the
//! mailbox must be exactly that address with no display name. Without that, `a"b@x.com` or
//! `a,b@x.com` passed a form's looser check and then the owner's notice could not be sent,
//! and `x<attacker@evil.com>` read as a mailbox named "x" at another address.
//!
//! On top of the parser: at most [`MAX_LENGTH`] bytes, no spaces or control characters,
//! and a domain name with a dot and a top-level part of at least two letters (`a@b`,
//! `a@[10.0.0.1]` and `a@b.c0m` are refused: nobody types those for a shop or a form).

use std::str::FromStr;

use lettre::Address;
use lettre::message::Mailbox;

/// The longest address taken (RFC 5321's limit on a path).
pub const MAX_LENGTH: usize = 254;

/// The address `raw` holds, trimmed, if the mailer can send to it; else `None`. Case is
/// kept (callers that key by address lower-case it).
pub fn deliverable(raw: &str) -> Option<&str> {
    let email = raw.trim();
    if email.len() > MAX_LENGTH || email.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let address = Address::from_str(email).ok()?;
    let mailbox = Mailbox::from_str(email).ok()?;
    if mailbox.name.is_some() || mailbox.email != address || AsRef::<str>::as_ref(&address) != email
    {
        return None;
    }
    let (host, tld) = address.domain().rsplit_once('.')?;
    let named = !host.is_empty()
        && !host.starts_with('.')
        && tld.chars().count() >= 2
        && tld.chars().all(char::is_alphabetic);
    named.then_some(email)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_people_type_pass() {
        for ok in [
            "a@b.co",
            "ada.lovelace+shop@example.com",
            "x@sub.domain.museum",
            "O'Neil@Example.COM",
            "  ana@example.com ",
        ] {
            assert_eq!(deliverable(ok), Some(ok.trim()), "{ok}");
        }
    }

    #[test]
    fn what_the_mailer_cannot_send_is_refused() {
        let long = format!("{}@example.com", "a".repeat(250));
        for bad in [
            "",
            "a",
            "a@b",
            "@b.com",
            "a@.com",
            "a b@c.com",
            "a@b.c",
            "a@b@c.com",
            "a@b.c0m",
            "a\"b@example.com",
            "a,b@example.com",
            "x<attacker@evil.com>",
            "Ana <ana@example.com>",
            "a@[10.0.0.1]",
            "a\0b@example.com",
            "a@example.com\r\nBcc: x@evil.com",
            &long,
        ] {
            assert_eq!(deliverable(bad), None, "{bad:?}");
        }
    }
}
