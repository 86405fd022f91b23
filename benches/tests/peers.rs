//! The peer engines of the `peers` suite print exactly what Tessera prints, and what the
//! benchmark is meant to print, so the suite compares equal work.

#[path = "../peers/engines.rs"]
mod engines;
use engines::{Engine, Visit, render_once};

/// Every engine's output, by name.
#[derive(Default)]
struct Outputs(Vec<(&'static str, String)>);

impl Visit for Outputs {
    fn visit<E: Engine>(&mut self, name: &'static str, engine: &E) {
        let bytes = render_once(engine);
        let text = String::from_utf8(bytes).expect("UTF-8 output");
        self.0.push((name, text));
    }
}

fn assert_all_print(outputs: Outputs, expected: &str) {
    let names: Vec<_> = outputs.0.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        ["tessera", "minijinja", "tera", "handlebars", "askama"]
    );
    for (name, output) in outputs.0 {
        assert!(
            output == expected,
            "{name} printed:\n{output}\n--- expected:\n{expected}"
        );
    }
}

#[test]
fn big_table_is_the_same_in_every_engine() {
    let mut expected = String::from("<table>\n");
    for _ in 0..100 {
        expected.push_str("<tr>");
        for n in 0..100 {
            expected.push_str(&format!("<td>{n}</td>"));
        }
        expected.push_str("</tr>\n");
    }
    expected.push_str("</table>");
    let mut outputs = Outputs::default();
    engines::big_table(100, &mut outputs);
    assert_all_print(outputs, &expected);
}

#[test]
fn teams_is_the_same_in_every_engine() {
    let expected = r#"<html>
  <head>
    <title>2015</title>
  </head>
  <body>
    <h1>CSL 2015</h1>
    <ul>
      <li class="champion"><b>Jiangsu</b>: 43</li>
      <li class=""><b>Beijing</b>: 27</li>
      <li class=""><b>Guangzhou</b>: 22</li>
      <li class=""><b>Shandong</b>: 12</li>
    </ul>
  </body>
</html>"#;
    let mut outputs = Outputs::default();
    engines::teams(&mut outputs);
    assert_all_print(outputs, expected);
}
