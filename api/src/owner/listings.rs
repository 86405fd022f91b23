//! What came in, for the owner to read: orders, form answers and newsletter subscribers.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/orders` | orders, read | `{orders}` newest first (as the order status page shows them) |
//! | `GET /api/owner/forms` | forms, read | `{forms: [{id, name, submissions}]}` |
//! | `GET /api/owner/forms/{formId}/submissions` | forms, read | `{submissions}` oldest first |
//! | `GET /api/owner/subscribers` | forms, read | `{subscribers}` |

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

use crate::http::ApiError;
use crate::http::call::respond;
use crate::http::error::{json_response, store_failure};
use crate::http::owner::{Access, Area, begin};
use crate::server::App;

pub const NO_FORM: &str = "That form does not exist.";

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/owner/orders", get(orders))
        .route("/api/owner/forms", get(forms))
        .route("/api/owner/forms/{form_id}/submissions", get(submissions))
        .route("/api/owner/subscribers", get(subscribers))
}

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
                .map(|o| crate::commerce::json::order_json(o, &call.site))
                .collect();
            Ok(json_response(StatusCode::OK, &json!({ "orders": orders })))
        }
        .await,
    )
}

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
            let mut out = Vec::with_capacity(forms.len());
            for f in forms {
                let n = app
                    .store
                    .form_submissions(tenant, &f.id)
                    .await
                    .map_err(|e| store_failure(&e))?
                    .len();
                out.push(json!({"id": f.id, "name": f.name, "submissions": n}));
            }
            Ok(json_response(StatusCode::OK, &json!({ "forms": out })))
        }
        .await,
    )
}

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
                &json!({ "submissions": subs }),
            ))
        }
        .await,
    )
}

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
                &json!({ "subscribers": subs }),
            ))
        }
        .await,
    )
}
