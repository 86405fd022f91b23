//! What every JSON route shares (DESIGN.md "JSON API conventions"): one call's context
//! ([`call`]), the site a request is for ([`site`]) and its strictly parsed `Host` ([`host`]), the crumb check ([`crumb`]), JSON errors ([`error`]), bodies ([`body`]),
//! rate limits ([`limits`]), the one rule for redirects back to the site ([`local_path`]), the owner's token ([`owner`]), the signed-in member ([`member`]), cookies ([`cookies`]), signed values ([`signing`]), the security headers of every response ([`security`]) and the server's own small pages ([`small_page`]).

pub mod body;
pub mod call;
pub mod client;
pub mod commerce;
pub mod cookies;
pub mod crumb;
pub mod error;
pub mod extract;
pub mod host;
pub mod limits;
pub mod local_path;
pub mod member;
pub mod owner;
pub mod signing;
pub mod site;
pub mod small_page;

pub use error::ApiError;
pub use extract::{Created, Json, JsonOrDefault, Owner, SetCookies, Visitor, Write};
