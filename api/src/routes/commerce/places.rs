//! `GET /api/commerce/countries`: every country an address may name (ISO 3166-1), with its
//! regions (ISO 3166-2), for a checkout whose store ships anywhere (a store that ships to a
//! list gives those countries in the cart's `checkout.countries` instead). The same for
//! every site and every call, so browsers and caches keep it for a day.

use std::sync::LazyLock;

use axum::http::header;
use serde::Serialize;
use utoipa::ToSchema;

use crate::http::commerce::json::{CountryView, country_view};
use crate::openapi::{COMMERCE, VisitorErrors};

/// Every country with its regions.
#[derive(Serialize, ToSchema)]
#[schema(as = Countries)]
pub struct CountriesView {
    /// By code.
    pub countries: Vec<CountryView>,
}

static ALL: LazyLock<String> = LazyLock::new(|| {
    serde_json::to_string(&CountriesView {
        countries: tenants::commerce::places::countries()
            .map(country_view)
            .collect(),
    })
    .expect("countries serialize")
});

/// `GET /api/commerce/countries`: every country with its regions.
#[utoipa::path(get, path = "/api/commerce/countries", tag = COMMERCE,
    responses((status = 200, body = CountriesView, description = "Every ISO 3166-1 country with its ISO 3166-2 regions, by name.",
        headers(("Cache-Control" = String, description = "`public, max-age=86400`."))), VisitorErrors))]
pub(crate) async fn countries() -> impl axum::response::IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        ALL.as_str(),
    )
}
