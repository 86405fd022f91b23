//! Who may call the owner routes: a bearer token of the request's site, or an owner
//! account signed in to the site (the [`SESSION_COOKIE`]), with a role.
//!
//! Tokens are made by `tessera token create SITE --role ROLE` and stored as their SHA-256
//! (`tenants::ApiToken`); `tessera serve --owner-token SITE=TOKEN` (or
//! `TESSERA_OWNER_TOKENS`) adds admin tokens for one run, never stored. A token is looked
//! up under the site the request's `Host` names, so one site's token is useless on
//! another's host: 401, as for no token at all. A known token whose role may not do what
//! the route does gets 403.
//!
//! Roles are SPEC.md §3's numbers; what each may do is ours ([`allows`], README's "Owner
//! API").

use std::collections::HashMap;

use sha2::{Digest, Sha256};

/// SHA-256 of each site's serve-time admin token, by site identifier.
#[derive(Clone, Debug, Default)]
pub struct OwnerTokens(HashMap<String, [u8; 32]>);

/// A missing, unknown or revoked token, or one of another site.
pub const UNAUTHORIZED: &str = "This needs the site owner's token (Authorization: Bearer …).";
/// A token whose role may not do this.
pub const FORBIDDEN: &str = "This token's role does not allow this.";
/// A signed-in owner's write without the session's CSRF token in [`CSRF_HEADER`].
pub const CSRF_FAIL: &str = "This needs the owner app's CSRF token.";

/// The owner app's session cookie (HttpOnly, SameSite=Strict; not the member's
/// `tessera-member`).
pub const SESSION_COOKIE: &str = "tessera-owner";
/// The header a signed-in owner's writes carry the session's `csrf` in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long an owner session lasts: 14 days from its last use, 30 days at most.
pub const SESSION_LIFE: tenants::SessionLife = tenants::SessionLife {
    idle_ms: 14 * 86_400_000,
    max_ms: 30 * 86_400_000,
};

/// SPEC.md §3's user roles: number and the name `tessera token create --role` takes.
pub const ROLES: [(u8, &str); 14] = [
    (1, "admin"),
    (2, "billing"),
    (3, "reporting"),
    (4, "editor"),
    (6, "moderator"),
    (7, "commenter"),
    (8, "store-manager"),
    (9, "scheduling"),
    (10, "viewer"),
    (11, "campaigns-editor"),
    (12, "scheduling-viewer"),
    (13, "scheduling-editor"),
    (14, "none"),
    (15, "website-manager"),
];
pub const ADMIN: u8 = 1;
pub const VIEWER: u8 = 10;

/// A role by name or number.
pub fn parse_role(s: &str) -> Result<u8, String> {
    let s = s.trim().to_ascii_lowercase().replace([' ', '_'], "-");
    ROLES
        .iter()
        .find(|(n, name)| *name == s || n.to_string() == s)
        .map(|(n, _)| *n)
        .ok_or_else(|| {
            let names: Vec<_> = ROLES.iter().map(|(_, n)| *n).collect();
            format!("unknown role {s:?}: one of {}", names.join(", "))
        })
}

/// A role's name ("role 5" for a number we do not know).
pub fn role_name(role: u8) -> String {
    ROLES
        .iter()
        .find(|(n, _)| *n == role)
        .map_or_else(|| format!("role {role}"), |(_, name)| (*name).to_owned())
}

/// What an owner route touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    /// Collections, items, navigation, header and footer, assets.
    Content,
    /// The site's look: templates and their versions, style tweaks, site identity, the
    /// announcement bar and cookie banner.
    Design,
    /// Products, prices, stock, store setup, commerce preferences, sending restock notices.
    Store,
    /// Orders and restock sign-ups: the names and addresses of people who buy, or want to.
    Orders,
    /// Form submissions and newsletter subscribers (people's addresses).
    Forms,
    /// Visits and conversions.
    Analytics,
    /// Comment moderation.
    Comments,
    /// Languages and the translation connection.
    Languages,
    /// Who may sign in to the owner app, invitations, and the API tokens.
    Access,
}

impl Area {
    /// Every area, in the order `GET /api/owner/session` lists them.
    pub const ALL: [Area; 9] = [
        Area::Content,
        Area::Design,
        Area::Store,
        Area::Orders,
        Area::Forms,
        Area::Analytics,
        Area::Comments,
        Area::Languages,
        Area::Access,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Whether `role` may `access` `area`. Admins and website managers may do anything (they
/// alone manage access); the viewer reads what holds no one's personal data; the others do
/// their job.
pub fn allows(role: u8, area: Area, access: Access) -> bool {
    use Area::{Analytics, Comments, Content, Design, Forms, Languages, Orders, Store};
    const READ: Access = Access::Read;
    match role {
        1 | 15 => true,
        // billing: what was bought.
        2 => (area, access) == (Orders, READ),
        // reporting: numbers and what came in.
        3 => access == READ && matches!(area, Analytics | Orders | Forms),
        // editor: the site's words, pages, look and languages, and its comments.
        4 => matches!(area, Content | Design | Languages | Comments),
        // moderator: comments.
        6 => area == Comments,
        // store manager: the store, and reading its orders and restock lists.
        8 => area == Store || (area == Orders && access == READ),
        // viewer: read anything without personal data.
        10 => access == READ && matches!(area, Content | Design | Store | Analytics | Languages),
        // campaigns editor: the mailing lists (newsletter sign-ups are form answers).
        11 => (area, access) == (Forms, READ),
        // commenter, scheduling roles, none: nothing in this API.
        _ => false,
    }
}

impl OwnerTokens {
    /// From `SITE=TOKEN` pairs; an empty token or a pair without `=` is an error.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<OwnerTokens, String> {
        let mut map = HashMap::new();
        for pair in pairs {
            let (site, token) = pair
                .split_once('=')
                .filter(|(s, t)| !s.trim().is_empty() && t.trim().len() >= 16)
                .ok_or_else(|| {
                    format!("owner token {pair:?}: write SITE=TOKEN, with a token of 16 characters or more")
                })?;
            map.insert(
                site.trim().to_owned(),
                Sha256::digest(token.trim().as_bytes()).into(),
            );
        }
        Ok(OwnerTokens(map))
    }

    pub(crate) fn admits(&self, identifier: &str, digest: &[u8; 32]) -> bool {
        // Digests compared whole: equal-length values whose comparison time says nothing
        // about the token.
        self.0.get(identifier) == Some(digest)
    }
}

/// A new token: what `tessera token create` prints (the store keeps its
/// [`tenants::secret_digest`]).
pub fn new_token() -> String {
    format!("tsk_{}", super::signing::random_hex(32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_need_a_site_and_a_long_token() {
        assert!(OwnerTokens::parse(["loam=0123456789abcdef"]).is_ok());
        for bad in ["loam", "=0123456789abcdef", "loam=short"] {
            assert!(OwnerTokens::parse([bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn roles_by_name_or_number() {
        assert_eq!(parse_role("store-manager"), Ok(8));
        assert_eq!(parse_role("Store Manager"), Ok(8));
        assert_eq!(parse_role("10"), Ok(VIEWER));
        assert!(parse_role("5").is_err());
        assert!(parse_role("owner").unwrap_err().contains("admin, billing"));
        assert_eq!(role_name(4), "editor");
        assert_eq!(role_name(5), "role 5");
    }

    #[test]
    fn what_roles_may_do() {
        use Access::{Read, Write};
        use Area::{Analytics, Comments, Content, Design, Forms, Orders, Store};
        for area in Area::ALL {
            for access in [Read, Write] {
                assert!(allows(ADMIN, area, access) && allows(15, area, access));
                for nothing in [7, 9, 12, 13, 14, 0, 5] {
                    assert!(!allows(nothing, area, access), "{nothing} {area:?}");
                }
                // The viewer never writes, and never reads people's data.
                assert_eq!(
                    allows(VIEWER, area, access),
                    access == Read && !matches!(area, Orders | Forms | Comments | Area::Access)
                );
                // Access is the admin's and the website manager's alone.
                if area == Area::Access {
                    assert!((2..15).all(|r| !allows(r, area, access)));
                }
            }
        }
        assert!(allows(8, Store, Write) && allows(8, Orders, Read) && !allows(8, Orders, Write));
        assert!(!allows(8, Content, Write) && !allows(4, Store, Write));
        assert!(
            allows(4, Design, Write) && allows(6, Comments, Write) && !allows(6, Content, Read)
        );
        assert!(allows(3, Forms, Read) && !allows(3, Forms, Write) && allows(2, Orders, Read));
        assert!(allows(11, Forms, Read) && !allows(11, Analytics, Read));
    }

    #[test]
    fn tokens_are_long_and_digested() {
        let t = new_token();
        assert!(t.starts_with("tsk_") && t.len() == 68, "{t}");
        assert_ne!(new_token(), t);
        assert_eq!(
            tenants::secret_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
