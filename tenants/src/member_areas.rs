//! Member areas: parts of a site only its members may open (SPEC.md page types 105 and 106).
//!
//! A site declares its areas in `websiteSettings.memberAreas`, a list of
//! `{ id, title, description?, joinButtonText? }`; a collection joins one with
//! `memberAreaId` (its items and, for a folder or index, its child collections follow it).
//! A member belongs to the areas they joined ([`crate::Store::member_areas_of`]).
//!
//! An area is free to join unless it names a `planProductId`: a product of the site's store
//! that is its price (a digital, service or paywall product for a one-time payment, a
//! subscription product for a recurring one). A paid area is joined only by buying that
//! product while signed in: placing the paid order puts the member in the area, recording
//! the order ([`crate::Store::member_areas_of`]), and cancelling the order, refunding it in
//! full or cancelling its subscription ends that membership. Which products qualify is
//! checked against the store where an area's plan is set
//! ([`crate::Store::update_member_area`]); here only that no two areas name the same one.

use serde::Serialize;
use serde_json::{Map, Value};

/// One member area as the site declares it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberArea {
    /// 1-64 of `a-z`, `0-9` and `-`.
    pub id: String,
    /// Shown on the join page.
    pub title: String,
    /// Shown under the title; may be empty.
    pub description: String,
    /// The join button's label, if the site names one (the renderer's join page has a
    /// default).
    pub join_button_text: Option<String>,
    /// The product that is its price, if it is a paid area (`planProductId`); `None`: free
    /// to join.
    pub plan_product_id: Option<String>,
}

/// Why a product cannot be an area's price: another area sells it already.
pub const PLAN_TAKEN: &str = "Another member area is already sold by this product.";

/// The area a product sells, if any: the paid area whose `planProductId` it is.
pub fn area_sold_by<'a>(areas: &'a [MemberArea], item_id: &str) -> Option<&'a MemberArea> {
    areas
        .iter()
        .find(|a| a.plan_product_id.as_deref() == Some(item_id))
}

/// Whether `id` can name a member area: 1-64 lower-case letters, digits and hyphens.
pub fn area_id_ok(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The areas `websiteSettings` declares, checked: `Err((path, reason))` names the first
/// problem (`memberAreas[1].id`).
pub fn member_areas(
    website_settings: &Map<String, Value>,
) -> Result<Vec<MemberArea>, (String, String)> {
    let Some(list) = website_settings.get("memberAreas") else {
        return Ok(Vec::new());
    };
    let Some(list) = list.as_array() else {
        return Err(("memberAreas".into(), "must be a list".into()));
    };
    let mut out: Vec<MemberArea> = Vec::with_capacity(list.len());
    for (i, a) in list.iter().enumerate() {
        let at = |f: &str| format!("memberAreas[{i}].{f}");
        let text = |f: &str| a.get(f).and_then(Value::as_str).map(str::trim);
        let id = text("id").unwrap_or_default();
        if !area_id_ok(id) {
            return Err((
                at("id"),
                "needs 1-64 lower-case letters, digits or hyphens".into(),
            ));
        }
        if out.iter().any(|o| o.id == id) {
            return Err((at("id"), format!("{id:?} is declared twice")));
        }
        let title = text("title").unwrap_or_default();
        if title.is_empty() {
            return Err((at("title"), "must not be empty".into()));
        }
        let plan = text("planProductId").filter(|p| !p.is_empty());
        if let Some(p) = plan
            && out.iter().any(|o| o.plan_product_id.as_deref() == Some(p))
        {
            return Err((at("planProductId"), PLAN_TAKEN.into()));
        }
        out.push(MemberArea {
            id: id.to_owned(),
            title: title.to_owned(),
            description: text("description").unwrap_or_default().to_owned(),
            join_button_text: text("joinButtonText")
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
            plan_product_id: plan.map(str::to_owned),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn areas(v: Value) -> Result<Vec<MemberArea>, (String, String)> {
        member_areas(v.as_object().unwrap())
    }

    #[test]
    fn declared_areas_are_checked() {
        assert_eq!(areas(json!({})), Ok(vec![]));
        let ok = areas(json!({"memberAreas": [{"id": "club", "title": " Studio Club "}]})).unwrap();
        assert_eq!(ok[0].title, "Studio Club");
        assert_eq!(ok[0].join_button_text, None);
        assert_eq!(ok[0].plan_product_id, None);
        let paid = areas(json!({"memberAreas": [
            {"id": "a", "title": "A", "planProductId": "p1"},
            {"id": "b", "title": "B", "planProductId": ""}]}))
        .unwrap();
        assert_eq!(paid[0].plan_product_id.as_deref(), Some("p1"));
        assert_eq!(paid[1].plan_product_id, None);
        assert_eq!(area_sold_by(&paid, "p1").map(|a| a.id.as_str()), Some("a"));
        assert!(area_sold_by(&paid, "p2").is_none());
        for (bad, path) in [
            (json!({"memberAreas": {}}), "memberAreas"),
            (
                json!({"memberAreas": [{"id": "Club", "title": "t"}]}),
                "memberAreas[0].id",
            ),
            (
                json!({"memberAreas": [{"title": "t"}]}),
                "memberAreas[0].id",
            ),
            (
                json!({"memberAreas": [{"id": "a", "title": ""}]}),
                "memberAreas[0].title",
            ),
            (
                json!({"memberAreas": [{"id": "a", "title": "t"}, {"id": "a", "title": "u"}]}),
                "memberAreas[1].id",
            ),
            (
                json!({"memberAreas": [{"id": "a", "title": "t", "planProductId": "p1"},
                    {"id": "b", "title": "u", "planProductId": "p1"}]}),
                "memberAreas[1].planProductId",
            ),
        ] {
            assert_eq!(areas(bad).unwrap_err().0, path);
        }
    }
}
