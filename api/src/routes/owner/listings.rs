//! What came in, for the owner to read: form answers and newsletter subscribers (orders
//! are [`super::orders`]).
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/forms` | forms, read | `{forms: [{id, name, submissions}]}` |
//! | `GET /api/owner/forms/{formId}/submissions` | forms, read | `{submissions}` oldest first |
//! | `GET /api/owner/subscribers` | forms, read | `{subscribers}` |

use axum::extract::{Path, State};
use serde::Serialize;
use tenants::Store;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NO_FORM: &str = "That form does not exist.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(forms))
        .routes(routes!(submissions))
        .routes(routes!(subscribers))
}

/// The site's forms.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFormList)]
struct FormList {
    forms: Vec<FormSummary>,
}

/// A form, with how many answers it has.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFormSummary)]
struct FormSummary {
    id: String,
    name: String,
    /// How many submissions are stored.
    submissions: u64,
}

/// `GET /api/owner/forms`: the site's forms.
#[utoipa::path(get, path = "/api/owner/forms", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = FormList), OwnerErrors))]
async fn forms(
    State(store): State<Store>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<FormList>, ApiError> {
    let tenant = owner.site.tenant.id;
    let forms = store.forms(tenant).await.map_err(|e| store_failure(&e))?;
    let counts = store
        .form_submission_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))?;
    let forms = forms
        .into_iter()
        .map(|f| FormSummary {
            submissions: counts.get(&f.id).copied().unwrap_or(0),
            id: f.id,
            name: f.name,
        })
        .collect();
    Ok(Json(FormList { forms }))
}

/// A form's submissions.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubmissionList)]
struct SubmissionList {
    /// Oldest first, as stored.
    #[schema(value_type = Vec<Object>)]
    submissions: Vec<tenants::FormSubmission>,
}

/// `GET /api/owner/forms/{form_id}/submissions`: a form's submissions.
#[utoipa::path(get, path = "/api/owner/forms/{form_id}/submissions", tag = OWNER,
    params(("form_id" = String, Path, description = "The form's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = SubmissionList), OwnerErrors))]
async fn submissions(
    State(store): State<Store>,
    Path(form_id): Path<String>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<SubmissionList>, ApiError> {
    let tenant = owner.site.tenant.id;
    let form = store
        .form(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?;
    if form.is_none() {
        return Err(ApiError::not_found(NO_FORM));
    }
    let submissions = store
        .form_submissions(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(SubmissionList { submissions }))
}

/// The newsletter's subscribers.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubscriberList)]
struct SubscriberList {
    #[schema(value_type = Vec<Object>)]
    subscribers: Vec<tenants::Subscriber>,
}

/// `GET /api/owner/subscribers`: the newsletter subscribers (form sign-ups).
#[utoipa::path(get, path = "/api/owner/subscribers", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = SubscriberList), OwnerErrors))]
async fn subscribers(
    State(store): State<Store>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<SubscriberList>, ApiError> {
    let subscribers = store
        .subscribers(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(SubscriberList { subscribers }))
}
