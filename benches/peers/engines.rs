//! The two classic template-engine benchmarks, written for Tessera's JSON-T engine and for
//! four peer engines (minijinja, tera, handlebars, askama), so that one run times them all
//! on the same work.
//!
//! - big-table: a 100×100 table of integers, `<table>`, one `<tr>` per row, one `<td>` per
//!   cell.
//! - teams: a league page (a year and four teams with name and score; the first team's `<li>`
//!   has the class `champion`).
//!
//! Every engine's template is written so that its output is byte for byte the same as
//! every other's: no engine's output is post-processed. Block tags sit at the start or in
//! the middle of lines that also hold markup, so no engine's whitespace rules (Jinja's
//! `trim_blocks`, handlebars' "standalone" lines) come into play. String values are
//! HTML-escaped everywhere (JSON-T needs `|html`; the others escape `.html` templates by
//! default), so every engine does the same work.
//!
//! Each engine gets its data in its own natural form, converted once from the same serde
//! structs before timing (a JSON-T `Node`, a minijinja `Value`, a tera and a handlebars
//! `Context`, askama's borrowed struct), and renders into a buffer the caller reuses: a
//! `String` where the engine writes `fmt::Write` or its own output type, a `Vec<u8>` where
//! it takes an `io::Write`.
//!
//! Shared by the `peers` suite and by `tests/peers.rs`, which checks the outputs match.

use serde::Serialize;
use template_lang::value::Node;
use template_lang::{Env, Template, execute};

/// The data of the big-table benchmark: `size` rows holding `0..size`.
#[derive(Serialize)]
pub struct BigTable {
    pub table: Vec<Vec<usize>>,
}

impl BigTable {
    pub fn new(size: usize) -> BigTable {
        BigTable {
            table: (0..size).map(|_| (0..size).collect()).collect(),
        }
    }
}

/// The data of the teams benchmark.
#[derive(Serialize)]
pub struct Teams {
    pub year: u16,
    pub teams: Vec<Team>,
}

#[derive(Serialize)]
pub struct Team {
    pub name: String,
    pub score: u8,
}

impl Teams {
    /// The classic data set: the 2015 Chinese Super League's top four.
    pub fn new() -> Teams {
        let team = |name: &str, score| Team {
            name: name.to_string(),
            score,
        };
        Teams {
            year: 2015,
            teams: vec![
                team("Jiangsu", 43),
                team("Beijing", 27),
                team("Guangzhou", 22),
                team("Shandong", 12),
            ],
        }
    }
}

// ---- the templates ---------------------------------------------------------------------

pub const BIG_TABLE_JSONT: &str = "<table>\n{.repeated section table}<tr>{.repeated section @}<td>{@}</td>{.end}</tr>\n{.end}</table>";
/// Jinja syntax, used by minijinja and tera (askama's copy is in its derive below).
pub const BIG_TABLE_JINJA: &str = "<table>\n{% for row in table %}<tr>{% for col in row %}<td>{{ col }}</td>{% endfor %}</tr>\n{% endfor %}</table>";
pub const BIG_TABLE_HANDLEBARS: &str =
    "<table>\n{{#each table}}<tr>{{#each this}}<td>{{this}}</td>{{/each}}</tr>\n{{/each}}</table>";

pub const TEAMS_JSONT: &str = "<html>
  <head>
    <title>{year}</title>
  </head>
  <body>
    <h1>CSL {year}</h1>
    <ul>
{.repeated section teams}      <li class=\"{.equal? @index 1}champion{.end}\"><b>{name|html}</b>: {score}</li>
{.end}    </ul>
  </body>
</html>";
pub const TEAMS_JINJA: &str = "<html>
  <head>
    <title>{{ year }}</title>
  </head>
  <body>
    <h1>CSL {{ year }}</h1>
    <ul>
{% for team in teams %}      <li class=\"{% if loop.first %}champion{% endif %}\"><b>{{ team.name }}</b>: {{ team.score }}</li>
{% endfor %}    </ul>
  </body>
</html>";
pub const TEAMS_HANDLEBARS: &str = "<html>
  <head>
    <title>{{year}}</title>
  </head>
  <body>
    <h1>CSL {{year}}</h1>
    <ul>
{{#each teams}}      <li class=\"{{#if @first}}champion{{/if}}\"><b>{{name}}</b>: {{score}}</li>
{{/each}}    </ul>
  </body>
</html>";

// ---- the engines -----------------------------------------------------------------------

/// One workload, compiled and with its data converted, ready to render repeatedly.
pub trait Engine {
    /// The buffer the engine writes into: `String` or `Vec<u8>`.
    type Buf: Default + AsRef<[u8]>;
    /// Clears `out` and renders into it. Panics on a render error: the suites check every
    /// engine once before timing, so an error here is a broken benchmark.
    fn render(&self, out: &mut Self::Buf);
}

/// Tessera's engine: the template compiled once, the data converted once to a `Node`, and
/// the environment (partials, locale, limits) built once, like the peers' environments.
pub struct Tessera {
    template: Template,
    data: Node,
    env: Env<'static>,
}

impl Tessera {
    pub fn new(source: &str, data: &impl Serialize) -> Tessera {
        let template = Template::parse_strict(source).expect("JSON-T template compiles");
        let json = serde_json::to_value(data).expect("data serializes");
        Tessera {
            template,
            data: Node::from_json(&json),
            env: Env::default(),
        }
    }
}

impl Engine for Tessera {
    type Buf = String;
    fn render(&self, out: &mut String) {
        out.clear();
        let errors = execute(&self.template, &self.data, &self.env, out);
        assert!(errors.is_empty(), "{errors:?}");
    }
}

/// minijinja: one environment holding the template; the context converted to a `Value`.
pub struct MiniJinja {
    env: minijinja::Environment<'static>,
    ctx: minijinja::Value,
}

impl MiniJinja {
    pub fn new(source: &'static str, data: &impl Serialize) -> MiniJinja {
        let mut env = minijinja::Environment::new();
        // The `.html` name turns on HTML auto-escaping, as for a real page.
        env.add_template("page.html", source)
            .expect("minijinja template compiles");
        MiniJinja {
            env,
            ctx: minijinja::Value::from(minijinja::value::Serde(data)),
        }
    }
}

impl Engine for MiniJinja {
    type Buf = Vec<u8>;
    fn render(&self, out: &mut Vec<u8>) {
        out.clear();
        // minijinja 3's way to render into a caller's writer (2.x called it
        // `render_to_write`); its plain `render` allocates a new String every time.
        self.env
            .get_template("page.html")
            .and_then(|t| t.render_captured_to(self.ctx.clone(), &mut *out))
            .expect("minijinja renders");
    }
}

/// tera: one instance holding the template; the data converted to a `Context`.
pub struct Tera {
    tera: tera::Tera,
    ctx: tera::Context,
}

impl Tera {
    pub fn new(source: &str, data: &impl Serialize) -> Tera {
        let mut tera = tera::Tera::default();
        tera.add_raw_template("page.html", source)
            .expect("tera template compiles");
        Tera {
            tera,
            ctx: tera::Context::from_serialize(data).expect("tera context"),
        }
    }
}

impl Engine for Tera {
    type Buf = Vec<u8>;
    fn render(&self, out: &mut Vec<u8>) {
        out.clear();
        self.tera
            .render_to("page.html", &self.ctx, &mut *out)
            .expect("tera renders");
    }
}

/// handlebars: one registry holding the template; the data wrapped in a `Context` once
/// (its `render_to_write` would convert the data again on every call).
pub struct Handlebars {
    registry: handlebars::Handlebars<'static>,
    ctx: handlebars::Context,
}

impl Handlebars {
    pub fn new(source: &str, data: &impl Serialize) -> Handlebars {
        let mut registry = handlebars::Handlebars::new();
        registry.set_strict_mode(true);
        registry
            .register_template_string("page", source)
            .expect("handlebars template compiles");
        Handlebars {
            registry,
            ctx: handlebars::Context::wraps(data).expect("handlebars context"),
        }
    }
}

impl Engine for Handlebars {
    type Buf = Vec<u8>;
    fn render(&self, out: &mut Vec<u8>) {
        out.clear();
        self.registry
            .render_with_context_to_write("page", &self.ctx, &mut *out)
            .expect("handlebars renders");
    }
}

/// askama: the templates are compiled into Rust code; the data is borrowed as is.
pub mod askama_templates {
    use super::{BigTable, Team, Teams};
    use askama::Template;

    #[derive(Template)]
    #[template(
        ext = "html",
        source = "<table>\n{% for row in table %}<tr>{% for col in row %}<td>{{ col }}</td>{% endfor %}</tr>\n{% endfor %}</table>"
    )]
    pub struct BigTablePage<'a> {
        table: &'a [Vec<usize>],
    }

    #[derive(Template)]
    #[template(
        ext = "html",
        source = "<html>
  <head>
    <title>{{ year }}</title>
  </head>
  <body>
    <h1>CSL {{ year }}</h1>
    <ul>
{% for team in teams %}      <li class=\"{% if loop.first %}champion{% endif %}\"><b>{{ team.name }}</b>: {{ team.score }}</li>
{% endfor %}    </ul>
  </body>
</html>"
    )]
    pub struct TeamsPage<'a> {
        year: u16,
        teams: &'a [Team],
    }

    impl<'a> BigTablePage<'a> {
        pub fn new(data: &'a BigTable) -> Self {
            BigTablePage { table: &data.table }
        }
    }

    impl<'a> TeamsPage<'a> {
        pub fn new(data: &'a Teams) -> Self {
            TeamsPage {
                year: data.year,
                teams: &data.teams,
            }
        }
    }
}

/// askama: any of its compiled templates.
pub struct Askama<T>(pub T);

impl<T: askama::Template> Engine for Askama<T> {
    type Buf = String;
    fn render(&self, out: &mut String) {
        out.clear();
        self.0.render_into(out).expect("askama renders");
    }
}

// ---- the workloads, for every engine ------------------------------------------------------

/// Renders one workload with every engine, in the order the suite reports them, handing
/// each engine (by name) to `visit`.
pub trait Visit {
    fn visit<E: Engine>(&mut self, name: &'static str, engine: &E);
}

pub fn big_table(size: usize, visit: &mut impl Visit) {
    let data = BigTable::new(size);
    visit.visit("tessera", &Tessera::new(BIG_TABLE_JSONT, &data));
    visit.visit("minijinja", &MiniJinja::new(BIG_TABLE_JINJA, &data));
    visit.visit("tera", &Tera::new(BIG_TABLE_JINJA, &data));
    visit.visit("handlebars", &Handlebars::new(BIG_TABLE_HANDLEBARS, &data));
    visit.visit(
        "askama",
        &Askama(askama_templates::BigTablePage::new(&data)),
    );
}

pub fn teams(visit: &mut impl Visit) {
    let data = Teams::new();
    visit.visit("tessera", &Tessera::new(TEAMS_JSONT, &data));
    visit.visit("minijinja", &MiniJinja::new(TEAMS_JINJA, &data));
    visit.visit("tera", &Tera::new(TEAMS_JINJA, &data));
    visit.visit("handlebars", &Handlebars::new(TEAMS_HANDLEBARS, &data));
    visit.visit("askama", &Askama(askama_templates::TeamsPage::new(&data)));
}

/// Renders once with `engine`, as bytes.
pub fn render_once<E: Engine>(engine: &E) -> Vec<u8> {
    let mut out = E::Buf::default();
    engine.render(&mut out);
    out.as_ref().to_vec()
}
