//! After checkout: an order's JSON for its buyer (`GET /api/commerce/orders/{id}?token=`),
//! the download of a digital line (a signed link that expires), and a gift card's balance.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use tenants::{StoreError, normalize_gift_card_code, now_ms};
use utoipa::ToSchema;

use crate::http::call::Call;
use crate::http::commerce::json::{OrderView, order_view};
use crate::http::commerce::messages::store_error;
use crate::http::commerce::money::{Money, money_of};
use crate::http::commerce::session::{download_signed, order_token_valid};
use crate::http::error::store_failure;
use crate::http::extract::family::GiftCard;
use crate::http::{ApiError, Json, Write};
use crate::openapi::{COMMERCE, ErrorBody, VisitorErrors, WriteErrors};
use crate::server::state::App;
use tenants::Store;

/// What a visitor is told about an order they cannot open.
pub const NO_ORDER: &str = "Order not found.";

/// An order, for its buyer.
#[derive(Serialize, ToSchema)]
pub struct OrderAnswer {
    pub order: OrderView,
}

/// `GET /api/commerce/orders/{orderId}?token=`: an order, for its buyer.
///
/// The token is the one in the order's status URL. Without it, or for another tenant's
/// order: 404.
#[utoipa::path(get, path = "/api/commerce/orders/{order_id}", tag = COMMERCE,
    params(("order_id" = String, Path, description = "The order's id."),
        ("token" = String, Query, description = "The token of the order's status URL.")),
    responses((status = 200, body = OrderAnswer, description = "The order."), VisitorErrors))]
pub async fn order(
    State(app): State<App>,
    Path(order_id): Path<String>,
    call: Call,
) -> Result<Json<OrderAnswer>, ApiError> {
    let token = call.query("token").unwrap_or_default();
    if !order_token_valid(&call.site, &order_id, &token) {
        return Err(ApiError::not_found(NO_ORDER));
    }
    let order = app
        .store
        .order(call.site.tenant.id, &order_id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_ORDER))?;
    Ok(Json(OrderAnswer {
        order: order_view(&order, &call.site),
    }))
}

/// `GET /api/commerce/downloads/{orderId}/{line}?expires=&signature=`: a digital line's file.
///
/// The file of a digital line of a paid order, as an attachment. A forged or other
/// tenant's link is 404; an expired one 410 (the order page gives a fresh one).
#[utoipa::path(get, path = "/api/commerce/downloads/{order_id}/{line}", tag = COMMERCE,
    params(("order_id" = String, Path, description = "The order's id."),
        ("line" = i64, Path, description = "The line's position in the order."),
        ("expires" = i64, Query, description = "When the link stops working (ms since 1970)."),
        ("signature" = String, Query, description = "The link's signature.")),
    responses((status = 200, content_type = "*/*",
            description = "The file, as an attachment (in its own content type).",
            headers(("Content-Disposition" = String, description = "`attachment` with the file's name."))),
        (status = 403, body = ErrorBody, description = "The order is waiting for payment."),
        (status = 410, body = ErrorBody, description = "The link has expired."),
        VisitorErrors))]
pub async fn download(
    State(app): State<App>,
    Path((order_id, line)): Path<(String, String)>,
    call: Call,
) -> Result<Download, ApiError> {
    // Read here rather than by the extractor, so a line that is not a number gets the
    // API's JSON 400 instead of axum's text.
    let line: i64 = line
        .parse()
        .map_err(|_| ApiError::field("line", "The line must be a whole number."))?;
    let expires: i64 = call
        .query("expires")
        .and_then(|e| e.parse().ok())
        .unwrap_or(0);
    let sig = call.query("signature").unwrap_or_default();
    if !download_signed(&call.site, &order_id, line, expires, &sig) {
        return Err(ApiError::not_found("Download not found."));
    }
    if now_ms() > expires {
        return Err(ApiError::new(
            StatusCode::GONE,
            "This download link has expired. Open your order page for a new one.",
        ));
    }
    let settings = call.settings();
    let file = app
        .store
        .download(call.site.tenant.id, &order_id, line)
        .await
        .map_err(|e| {
            store_error(
                &e,
                &call.site.content,
                &settings.currency,
                "Download not found.",
            )
        })?;
    Ok(Download(file))
}

/// A digital line's file as an attachment, in its own content type, kept by no cache.
pub struct Download(tenants::DigitalFile);

impl IntoResponse for Download {
    fn into_response(self) -> Response {
        let file = self.0;
        let disposition = format!(
            "attachment; filename=\"{}\"",
            file.file_name.replace(['"', '\\', '\r', '\n'], "_")
        );
        let mut r = Response::new(Body::from(file.content));
        let h = r.headers_mut();
        if let Ok(v) = HeaderValue::from_str(&file.content_type) {
            h.insert(header::CONTENT_TYPE, v);
        }
        if let Ok(v) = HeaderValue::from_str(&disposition) {
            h.insert(header::CONTENT_DISPOSITION, v);
        }
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
        h.insert(
            "x-content-type-options",
            HeaderValue::from_static("nosniff"),
        );
        r
    }
}

/// A gift card's code.
#[derive(Deserialize, ToSchema)]
#[schema(as = GiftCardBalanceBody)]
pub(crate) struct BalanceBody {
    /// `XXXX-XXXX-XXXX-XXXX`; any case, with or without the dashes.
    #[schema(value_type = String, required = true, min_length = 1)]
    code: Option<String>,
}

/// A gift card's balance.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardBalance {
    pub gift_card: GiftCardView,
}

/// A gift card and what is left on it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = GiftCard)]
pub struct GiftCardView {
    pub code: String,
    pub currency: String,
    pub balance: Money,
    pub balance_cents: i64,
}

/// `POST /api/commerce/gift-cards/balance`: a gift card's balance.
///
/// {code} → `{"giftCard": {code, currency, balance, balanceCents}}`; a code that is no
/// card's is a field error (400, `errors.code`). Crumb and a tight rate limit: codes must
/// not be guessable by asking.
#[utoipa::path(post, path = "/api/commerce/gift-cards/balance", tag = COMMERCE,
    request_body = BalanceBody, security(("crumb" = [])),
    responses((status = 200, body = GiftCardBalance, description = "The card's balance."),
        WriteErrors))]
pub(crate) async fn gift_card_balance(
    State(store): State<Store>,
    call: Call,
    _: Write<GiftCard>,
    Json(b): Json<BalanceBody>,
) -> Result<Json<GiftCardBalance>, ApiError> {
    let typed = b.code.unwrap_or_default();
    if typed.trim().is_empty() {
        return Err(ApiError::field("code", "Required"));
    }
    let unknown = || ApiError::field("code", "No gift card has this code.");
    let code = normalize_gift_card_code(&typed).ok_or_else(unknown)?;
    let card = match store.gift_card(call.site.tenant.id, &code).await {
        Ok(Some(c)) => c,
        Ok(None) | Err(StoreError::NotFound(_)) => return Err(unknown()),
        Err(e) => return Err(store_failure(&e)),
    };
    Ok(Json(GiftCardBalance {
        gift_card: GiftCardView {
            balance: money_of(card.balance_minor, &card.currency),
            balance_cents: card.balance_minor,
            code: card.code,
            currency: card.currency,
        },
    }))
}
