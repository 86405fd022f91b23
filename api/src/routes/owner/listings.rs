//! What came in, for the owner to read: orders, form answers and newsletter subscribers.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/orders` | orders, read | `{orders}` newest first (as the order status page shows them) |
//! | `GET /api/owner/forms` | forms, read | `{forms: [{id, name, submissions}]}` |
//! | `GET /api/owner/forms/{formId}/submissions` | forms, read | `{submissions}` oldest first |
//! | `GET /api/owner/subscribers` | forms, read | `{subscribers}` |

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::ApiError;
use crate::http::call::respond;
use crate::http::error::{json_response, store_failure};
use crate::http::owner::{Access, Area, begin};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::App;

pub const NO_FORM: &str = "That form does not exist.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(orders))
        .routes(routes!(forms))
        .routes(routes!(submissions))
        .routes(routes!(subscribers))
}

/// The site's orders.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerOrderList)]
struct OrderList {
    /// Newest first, each as the order status page shows it.
    orders: Vec<crate::routes::commerce::json::OrderView>,
}

/// `GET /api/owner/orders`: the site's orders.
#[utoipa::path(get, path = "/api/owner/orders", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = OrderList), OwnerErrors))]
async fn orders(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Orders, Access::Read).await?;
            let orders = app
                .store
                .orders(call.site.tenant.id)
                .await
                .map_err(|e| store_failure(&e))?;
            let orders: Vec<_> = orders
                .iter()
                .map(|o| crate::routes::commerce::json::order_view(o, &call.site))
                .collect();
            Ok(json_response(StatusCode::OK, &json!(OrderList { orders })))
        }
        .await,
    )
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
async fn forms(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Forms, Access::Read).await?;
            let tenant = call.site.tenant.id;
            let forms = app
                .store
                .forms(tenant)
                .await
                .map_err(|e| store_failure(&e))?;
            let counts = app
                .store
                .form_submission_counts(tenant)
                .await
                .map_err(|e| store_failure(&e))?;
            let out = forms
                .into_iter()
                .map(|f| FormSummary {
                    submissions: counts.get(&f.id).copied().unwrap_or(0),
                    id: f.id,
                    name: f.name,
                })
                .collect();
            Ok(json_response(
                StatusCode::OK,
                &json!(FormList { forms: out }),
            ))
        }
        .await,
    )
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
    State(app): State<App>,
    Path(form_id): Path<String>,
    req: Request,
) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Forms, Access::Read).await?;
            let tenant = call.site.tenant.id;
            let form = app
                .store
                .form(tenant, &form_id)
                .await
                .map_err(|e| store_failure(&e))?;
            if form.is_none() {
                return Err(ApiError::not_found(NO_FORM));
            }
            let subs = app
                .store
                .form_submissions(tenant, &form_id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!(SubmissionList { submissions: subs }),
            ))
        }
        .await,
    )
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
async fn subscribers(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Forms, Access::Read).await?;
            let subs = app
                .store
                .subscribers(call.site.tenant.id)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!(SubscriberList { subscribers: subs }),
            ))
        }
        .await,
    )
}
