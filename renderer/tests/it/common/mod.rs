//! What the renderer's integration tests share.

/// A one-layout template folder's `template.conf` and its region, which shows the `main`
/// navigation with the `nav` block and the main content.
pub const LAYOUT: [(&str, &str); 2] = [
    (
        "template.conf",
        r#"{ "name": "Test", "layouts": { "default": { "name": "Default", "regions": ["site"] } },
                 "navigations": [ { "name": "main", "title": "Main" } ] }"#,
    ),
    (
        "site.region",
        concat!(
            "<html><head>{squarespace-headers}</head><body id=\"{squarespace.page-id}\" class=\"{squarespace.page-classes}\">",
            "<squarespace:navigation navigationId=\"main\" template=\"nav\" />",
            "<main>{squarespace.main-content}</main></body></html>"
        ),
    ),
];
