//! `tessera check` on template folders with one problem each (a small valid folder with one
//! file changed), asserting the exact findings, the JSON output and the exit statuses; and
//! the demo templates, which must be clean.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const CONF: &str = r#"{
  "name": "Tiny",
  "layouts": { "default": { "name": "Default", "regions": ["site"] } },
  "navigations": [ { "name": "main", "title": "Main" } ],
  "stylesheets": ["site.css"]
}"#;

const SITE: &str = r#"<!doctype html>
<html><head>{squarespace-headers}</head>
<body>
<squarespace:navigation navigationId="main" template="nav" />
<img src="/assets/logo.png" alt="Tiny">
{squarespace.main-content}
</body></html>
"#;

/// A clean folder with `changes` applied (`None` removes a file).
fn folder(name: &str, changes: &[(&str, Option<&str>)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut files: Vec<(&str, Option<&str>)> = vec![
        ("template.conf", Some(CONF)),
        ("site.region", Some(SITE)),
        (
            "blocks/nav.block",
            Some(
                "{.repeated section items}<a href=\"{collection.fullUrl}\">{collection.navigationTitle}</a>{.end}",
            ),
        ),
        ("styles/site.css", Some("body { margin: 0; }\n")),
        ("assets/logo.png", Some("png")),
        (
            "collections/blog.conf",
            Some(r#"{ "title": "Blog", "ordering": "chronological" }"#),
        ),
        (
            "collections/blog.list",
            Some("{.repeated section items}{@|apply card.block}{.end}\n"),
        ),
        (
            "collections/blog.item",
            Some("{.section item}<h1>{title}</h1>{.end}\n"),
        ),
        (
            "blocks/card.block",
            Some("<a href=\"{fullUrl}\">{title}</a>"),
        ),
    ];
    for (path, content) in changes {
        files.retain(|(p, _)| p != path);
        files.push((path, *content));
    }
    for (path, content) in files {
        if let Some(content) = content {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
    }
    dir
}

fn check(dir: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("check")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

/// The finding lines (without source lines, carets and the summary), and the exit code.
fn findings(name: &str, changes: &[(&str, Option<&str>)]) -> (Vec<String>, i32) {
    let dir = folder(name, changes);
    let out = check(&dir, &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines = text
        .lines()
        .filter(|l| l.contains(": error: ") || l.contains(": warning: "))
        .map(str::to_owned)
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    (lines, out.status.code().unwrap())
}

fn assert_findings(name: &str, changes: &[(&str, Option<&str>)], want: &[&str], code: i32) {
    let (got, status) = findings(name, changes);
    assert_eq!(got, want, "{name}");
    assert_eq!(status, code, "{name}: exit status");
}

#[test]
fn a_clean_folder_is_clean_and_says_so() {
    let dir = folder("clean", &[]);
    let out = check(&dir, &[]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.trim(),
        format!("{}: no problems (9 files checked)", dir.display())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn configuration_problems() {
    assert_findings(
        "conf",
        &[(
            "template.conf",
            Some("{ \"name\": \"Tiny\",\n  \"layouts\": }"),
        )],
        &["template.conf:2:14: error: expected value"],
        1,
    );
    assert_findings(
        "region",
        &[("site.region", None)],
        &["template.conf: error: layout 'default': region 'site' not found"],
        1,
    );
    assert_findings(
        "stylesheet",
        &[("styles/site.css", None)],
        &["template.conf: error: stylesheet 'site.css' not found in styles/"],
        1,
    );
    assert_findings(
        "collection-conf",
        &[(
            "collections/blog.conf",
            Some("{ \"title\": \"Blog\" \"x\": 1 }"),
        )],
        &["collections/blog.conf:1:19: error: expected `,` or `}`"],
        1,
    );
    // Templates of a type with no `.conf`: fine for one of the platform's types (real
    // folders ship `products.list` alone), a warning for any other.
    assert_findings(
        "platform-type",
        &[(
            "collections/products.list",
            Some("{.repeated section items}{title}{.end}"),
        )],
        &[],
        0,
    );
    assert_findings(
        "undeclared-type",
        &[(
            "collections/recipes.item",
            Some("{.section item}{title}{.end}"),
        )],
        &[
            "collections/recipes.item: warning: no collections/recipes.conf declares the type 'recipes', and it is not one of the platform's (album, blog, events, gallery, products): no collection can have it",
        ],
        0,
    );
}

#[test]
fn syntax_formatters_and_predicates() {
    assert_findings(
        "syntax",
        &[(
            "blocks/card.block",
            Some("<a>\n  {.section title}{title}\n</a>"),
        )],
        &["blocks/card.block:3:5: error: SyntaxError: Reached EOF in the middle of SECTION"],
        1,
    );
    assert_findings(
        "formatter",
        &[(
            "collections/blog.item",
            Some("{.section item}\n<h1>{title|shout}</h1>{.end}\n"),
        )],
        &["collections/blog.item:2:5: error: SyntaxError: Formatter 'shout' is unknown"],
        1,
    );
    assert_findings(
        "predicate",
        &[(
            "site.region",
            Some(&SITE.replace("<body>", "<body>{.shiny?}x{.end}")),
        )],
        &["site.region:3:7: error: SyntaxError: Predicate 'shiny?' is unknown"],
        1,
    );
}

/// A block tag missing its `}` is text to the engine, which then finds a `{.end}` with
/// nothing to end: the finding is at the tag, with a hint, the engine's words and where the
/// `{.end}` is. A region after one that does not end its last line: columns in its own
/// terms.
#[test]
fn an_unclosed_tag_is_pointed_at() {
    assert_findings(
        "unclosed",
        &[(
            "site.region",
            Some(&SITE.replace(
                "<body>",
                "<body>\n<div>{.section website.x\n  <b>{siteTitle}</b>\n{.end}</div>",
            )),
        )],
        &[
            "site.region:4:6: error: SyntaxError: Instruction END not allowed at root \
           (site.region:6:1); hint: this tag is not closed: it needs a `}`",
        ],
        1,
    );
    let two_regions = CONF.replace("[\"site\"]", "[\"top\", \"site\"]");
    assert_findings(
        "unclosed-across-regions",
        &[
            ("template.conf", Some(&two_regions)),
            ("top.region", Some("<!-- top -->\n  <i>{.if website.x</i>")),
            ("site.region", Some(&format!("{{.end}}{SITE}"))),
        ],
        &[
            "top.region:2:6: error: SyntaxError: Instruction END not allowed at root \
           (site.region:1:1); hint: this tag is not closed: it needs a `}`",
        ],
        1,
    );
    assert_findings(
        "region-columns",
        &[
            ("template.conf", Some(&two_regions)),
            ("top.region", Some("<!-- top -->")),
            ("site.region", Some(&format!("{{.shiny?}}x{{.end}}{SITE}"))),
        ],
        &["site.region:1:1: error: SyntaxError: Predicate 'shiny?' is unknown"],
        1,
    );
}

#[test]
fn partials_and_recursion() {
    assert_findings(
        "missing-partial",
        &[(
            "collections/blog.list",
            Some("{.repeated section items}\n  {@|apply teaser.block}{.end}\n"),
        )],
        &[
            "collections/blog.list:2:3: error: partial 'teaser.block' is applied but blocks/teaser.block does not exist",
        ],
        1,
    );
    // A macro the file defines is what `apply` runs: no partial is missing. A name the
    // file does not define still is.
    assert_findings(
        "macro-in-file",
        &[(
            "collections/blog.list",
            Some(concat!(
                "{.macro teaser.block}<h2>{title}</h2>{.end}\n",
                "{.repeated section items}\n  {@|apply teaser.block}{.section author}",
                "{.macro byline}{displayName}{.end}{@|apply byline}{.end}{.end}\n",
                "{@|apply other.block}\n",
            )),
        )],
        &[
            "collections/blog.list:4:1: error: partial 'other.block' is applied but blocks/other.block does not exist",
        ],
        1,
    );
    // a → b → a with no condition: every render goes down to the limit.
    assert_findings(
        "recursion",
        &[
            ("blocks/card.block", Some("<a>{@|apply more.block}</a>")),
            ("blocks/more.block", Some("<b>{@|apply card.block}</b>")),
        ],
        &[
            "blocks/card.block: error: applies itself with no condition (card.block → more.block → card.block): rendering it fails at the partial depth limit of 16",
        ],
        1,
    );
    // A tree walked by the data stops where the data does.
    assert_findings(
        "guarded-recursion",
        &[(
            "blocks/card.block",
            Some(
                "<li>{title}{.section children}<ul>{.repeated section @}{@|apply card.block}{.end}</ul>{.end}</li>",
            ),
        )],
        &[],
        0,
    );
}

#[test]
fn platform_tags_navigations_assets_and_images() {
    let with = |tag: &str| {
        SITE.replace(
            "<squarespace:navigation navigationId=\"main\" template=\"nav\" />",
            tag,
        )
    };
    assert_findings(
        "unknown-tag",
        &[(
            "site.region",
            Some(&with("<squarespace:carousel collection=\"blog\" />")),
        )],
        &[
            "site.region:4:1: error: unknown tag <squarespace:carousel> (known: navigation, folder-navigation, block-field, query, category, related, script)",
        ],
        1,
    );
    assert_findings(
        "missing-attribute",
        &[(
            "site.region",
            Some(&with(
                "<squarespace:query limit=\"3\">{.repeated section items}{title}{.end}</squarespace:query>",
            )),
        )],
        &["site.region:4:1: error: <squarespace:query> needs the attribute collection"],
        1,
    );
    assert_findings(
        "unknown-attribute",
        &[(
            "site.region",
            Some(&with(
                "<squarespace:navigation navigationId=\"main\" template=\"nav\" depth=\"2\" />",
            )),
        )],
        &[
            "site.region:4:1: warning: <squarespace:navigation> has no attribute depth; it is ignored",
        ],
        0,
    );
    assert_findings(
        "undeclared-navigation",
        &[(
            "site.region",
            Some(&with(
                "<squarespace:navigation navigationId=\"footer\" template=\"nav\" />",
            )),
        )],
        &[
            "site.region:4:1: error: navigation 'footer' is not declared in template.conf \"navigations\"",
        ],
        1,
    );
    assert_findings(
        "missing-tag-template",
        &[("blocks/nav.block", None)],
        &[
            "site.region:4:1: error: <squarespace:navigation> template 'nav': blocks/nav.block does not exist",
        ],
        1,
    );
    assert_findings(
        "missing-asset",
        &[("assets/logo.png", None)],
        &["site.region:5:11: error: assets/logo.png is referenced but the folder has no such file"],
        1,
    );
    // A folder with its own build (here webpack) may reference what the build writes.
    assert_findings(
        "built-asset",
        &[
            ("assets/logo.png", None),
            ("webpack.config.js", Some("module.exports = {};")),
        ],
        &[
            "site.region:5:11: warning: assets/logo.png is referenced but the folder has no such file (made by the build in webpack.config.js? pages render without it)",
        ],
        0,
    );
    assert_findings(
        "script-bundle",
        &[(
            "site.region",
            Some(&SITE.replace(
                "</body>",
                "<squarespace:script src=\"site-bundle.js\" combo=\"true\" /></body>",
            )),
        )],
        &[
            "site.region:7:1: warning: script 'site-bundle.js' is not in scripts/ (a bundle your build makes? pages render without it)",
        ],
        0,
    );
    assert_findings(
        "image-alt",
        &[(
            "blocks/card.block",
            Some("<a href=\"{fullUrl}\"><img src=\"{assetUrl}\"></a>"),
        )],
        &["blocks/card.block:1:21: warning: image without alt text"],
        0,
    );
    // An inline script is said (the site's policy blocks it); a script file and a data
    // block are not.
    assert_findings(
        "inline-script",
        &[(
            "site.region",
            Some(&SITE.replace(
                "</body>",
                "<script>document.documentElement.className = '';</script>\n<script type=\"application/ld+json\">{}</script><SCRIPT src=\"/scripts/x.js\"></SCRIPT></body>",
            )),
        ), ("scripts/x.js", Some("1;"))],
        &[
            "site.region:7:1: warning: inline script: the site's security policy does not run inline scripts; move it to a file in scripts/ and load it with <squarespace:script src=\"name.js\"/>",
        ],
        0,
    );
}

/// LESS stylesheets compile as at import: the platform's imports resolve, and a stylesheet
/// that does not compile is reported with its file and line.
#[test]
fn less_stylesheets() {
    let conf = CONF.replace("[\"site.css\"]", "[\"tweak.less\", \"site.less\"]");
    let tweak =
        "// tweak: { \"title\": \"tweak-width\", \"type\": \"value\" }\n@tweak-width: 40rem;\n";
    let site = "@import 'sqs-grid-breaker';\n@import 'svg-icon-templates';\nmain { max-width: @tweak-width; .x { .svg-icon(2em); } }\n";
    let less = [
        ("template.conf", Some(conf.as_str())),
        ("styles/site.css", None),
        ("styles/tweak.less", Some(tweak)),
        ("styles/site.less", Some(site)),
    ];
    assert_findings("less", &less, &[], 0);
    let broken = "main {\n  max-width: @tweak-widht;\n}\n";
    let mut changes = less.to_vec();
    changes.push(("styles/site.less", Some(broken)));
    assert_findings(
        "less-broken",
        &changes,
        // As the platform's compiler does: the declaration is left out, and said.
        &[
            "styles/site.less:2:14: warning: LESS: variable @tweak-widht is undefined: the declaration is left out, as the platform's compiler does",
        ],
        0,
    );
    // A LESS stylesheet that is not there is said once; the others are compiled without
    // it, and what they needed from it is said (and left out) where they need it.
    let mut changes = less.to_vec();
    changes.push(("styles/tweak.less", None));
    assert_findings(
        "less-missing",
        &changes,
        &[
            "styles/site.less:3:19: warning: LESS: variable @tweak-width is undefined: the declaration is left out, as the platform's compiler does",
            "template.conf: error: stylesheet 'tweak.less' not found in styles/",
        ],
        1,
    );
    // A folder written for the platform's compiler (issue 45): a font tweak's variables,
    // division without parentheses, the legacy selector, the platform's icon font. A mixin
    // call that matches no definition is left out, as the platform leaves it: a warning.
    let tweak = "// tweak: { \"title\": \"tweak-h1-font\", \"type\": \"font\" }\n\
                 .tweak-h1-font { font-family: serif; font-size: 32px; }\n";
    let site = "@import 'sqs-ui-font';\n@n: 2;\n\
                h1 { font-size: @tweak-h1-font-font-size; line-height: 48/32; }\n\
                (~\".col-@{n}\") { .sqs-ui-font(heart); }\n\
                .row { .flex(0 1 auto); }\n.flex(@a, @b, @c) { flex: @a @b @c; }\n";
    let mut changes = less.to_vec();
    changes.push(("styles/tweak.less", Some(tweak)));
    changes.push(("styles/site.less", Some(site)));
    assert_findings(
        "less-platform",
        &changes,
        &[
            "styles/site.less:5:8: warning: LESS: No matching definition was found for `.flex(0 1 auto)`: the call is left out, as the platform's compiler does",
        ],
        0,
    );
    let mut changes = less.to_vec();
    changes.push(("styles/site.less", Some("@import 'partials/buttons';\n")));
    assert_findings(
        "less-import",
        &changes,
        &["styles/site.less:1:1: error: LESS: 'partials/buttons' wasn't found."],
        1,
    );
}

#[test]
fn source_lines_json_strict_and_usage() {
    let dir = folder(
        "output",
        &[(
            "blocks/card.block",
            Some("<a>{title|shout}</a>\n<img src=\"x.png\">"),
        )],
    );
    let out = check(&dir, &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("blocks/card.block:1:4: error: SyntaxError: Formatter 'shout' is unknown\n  <a>{title|shout}</a>\n     ^\n"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            "{}: 1 error, 1 warning (9 files checked)\n",
            dir.display()
        )),
        "{text}"
    );

    let out = check(&dir, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            doc["errors"].clone(),
            doc["warnings"].clone(),
            doc["files"].clone()
        ),
        (1.into(), 1.into(), 9.into())
    );
    assert_eq!(
        doc["findings"][1],
        serde_json::json!({"file": "blocks/card.block", "line": 2, "column": 1, "severity": "warning",
                           "message": "image without alt text"})
    );
    std::fs::remove_dir_all(&dir).unwrap();

    // Warnings fail only with --strict.
    let dir = folder(
        "strict",
        &[("blocks/card.block", Some("<img src=\"x.png\">"))],
    );
    assert_eq!(check(&dir, &[]).status.code(), Some(0));
    assert_eq!(check(&dir, &["--strict"]).status.code(), Some(1));
    std::fs::remove_dir_all(&dir).unwrap();
    // Usage: no such folder, an unknown flag.
    assert_eq!(
        check(Path::new("/nonexistent/theme"), &[]).status.code(),
        Some(2)
    );
    assert_eq!(check(Path::new("."), &["--colour"]).status.code(), Some(2));
}

#[test]
fn the_demo_templates_are_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    for tenant in ["harbor-lane", "loam-lantern", "quillback", "skyward"] {
        let out = check(&root.join(tenant).join("template"), &["--strict"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{tenant}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
