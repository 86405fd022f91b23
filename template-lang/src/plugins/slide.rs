//! The slide family: the predicate cover pages use to test the kind of the current slice.

use super::Registry;
use super::content::enums::{self, slice_type};
use crate::exec::Ctx;
use crate::syntax::tag::Args;
use crate::value::number::to_int32;

pub fn register(r: &mut Registry) {
    r.add_predicate("current-type?", current_type);
}

/// `current-type? NAME`: the node's `currentType` (as a 32-bit integer) is the code of
/// slice type NAME. Without a name the reference looks up the name "undefined", whose
/// code is -1; unknown names never match.
fn current_type<'a>(ctx: &mut Ctx<'a>, args: &'a Args) -> bool {
    let expected = to_int32(ctx.node().child("currentType", None).view().to_number());
    let name = args.get(0).unwrap_or("undefined");
    enums::from_name(slice_type::ALL, name).is_some_and(|t| t.code == expected)
}

#[cfg(test)]
mod tests {
    use crate::compile::Template;
    use crate::value::Node;

    fn render(template: &str, json: &str) -> String {
        let t = Template::parse_strict(template).expect("template compiles");
        t.render(&Node::from_json_str(json).expect("valid JSON"))
    }

    /// Expectations produced by running the reference (`ref-render.js`).
    #[test]
    fn current_type() {
        let t = "{.current-type? body}B{.or}-{.end}{.current-type? twitter}T{.or}-{.end}\
                 {.current-type?}U{.or}-{.end}{.current-type? sub-heading}S{.or}-{.end}";
        assert_eq!(render(t, r#"{"currentType": 3}"#), "B---");
        assert_eq!(render(t, r#"{"currentType": "19"}"#), "-T--");
        assert_eq!(render(t, r#"{"currentType": 3.9}"#), "B---");
        assert_eq!(render(t, r#"{"currentType": -1}"#), "--U-");
        assert_eq!(render(t, r#"{"currentType": 2}"#), "----");
        assert_eq!(render(t, r#"{}"#), "----");
        assert_eq!(render(t, r#"[1]"#), "----");
        assert_eq!(
            render(
                "{.current-type? constructor}C{.or}-{.end}",
                r#"{"currentType": 0}"#
            ),
            "-"
        );
    }
}
