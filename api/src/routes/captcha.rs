//! The captcha challenge route: what a visitor's browser needs to show the site's captcha.
//! The providers, and how a token is checked, are [`crate::services::captcha`].

use std::collections::BTreeMap;

use axum::extract::State;
use utoipa::IntoResponses;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::site::Site;
use crate::http::{ApiError, Json};
use crate::openapi::{CAPTCHA, VisitorErrors};
use crate::server::state::App;
pub use crate::services::captcha::{
    CHALLENGE_LIFETIME, Captcha, Challenge, DEFAULT_DIFFICULTY, FAILED, MISSING,
    RECAPTCHA_VERIFY_URL, Refusal, solve,
};

/// What asking for a challenge can get besides it: 404 (unknown site) and 503.
struct ChallengeErrors;

impl IntoResponses for ChallengeErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        r.remove("400");
        r
    }
}

/// `GET /api/captcha/challenge`: a fresh challenge (never cached).
#[utoipa::path(get, path = "/api/captcha/challenge", tag = CAPTCHA,
    responses((status = 200, body = Challenge), ChallengeErrors))]
async fn challenge(
    State(captcha): State<Captcha>,
    site: Site,
) -> Result<Json<Challenge>, ApiError> {
    Ok(Json(captcha.challenge(&site.secret)))
}

/// The captcha route.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(challenge))
}
