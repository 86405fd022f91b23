//! `tessera render` as the conformance runner and template authors drive it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("tessera-render-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("render")
        .args(args)
        .output()
        .expect("run tessera")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn renders_with_data_partials_and_injects() {
    let d = Dir::new("ok");
    let t = d.file(
        "template.html",
        "{.inject @c conf.json}{@c.greeting}, {user|apply badge}!",
    );
    let data = d.file("data.json", r#"{"user":{"name":"Ada"}}"#);
    let partials = d.file("partials.json", r#"{"badge":"<b>{name}</b>"}"#);
    let conf = d.file("conf.json", r#"{"greeting":"Hello"}"#);
    let inject = format!("conf.json={conf}");
    let out = tessera(&[
        &t,
        "--data",
        &data,
        "--partials",
        &partials,
        "--inject",
        &inject,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Exactly the rendered text: no trailing newline added.
    assert_eq!(text(&out.stdout), "Hello, <b>Ada</b>!");
    assert!(out.stderr.is_empty());
}

#[test]
fn data_defaults_to_an_empty_object() {
    let d = Dir::new("nodata");
    let t = d.file("t.html", "[{a}]");
    let out = tessera(&[&t]);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "[]".to_string())
    );
}

#[test]
fn syntax_errors_exit_1_with_position_and_best_effort_output() {
    let d = Dir::new("syntax");
    let t = d.file("page.html", "ok\n  {a|nope} {.section a}x");
    let data = d.file("d.json", r#"{"a":1}"#);
    let out = tessera(&[&t, "--data", &data]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "ok\n  {a|nope} x");
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!("{t}:2:3: SyntaxError: Formatter 'nope' is unknown\n    {{a|nope}} {{.section a}}x\n    ^")),
        "{err}"
    );
    assert!(
        err.contains("SyntaxError: Reached EOF in the middle of SECTION"),
        "{err}"
    );
}

#[test]
fn partial_syntax_errors_also_exit_1() {
    let d = Dir::new("psyntax");
    let t = d.file("t.html", "x");
    let p = d.file("p.json", r#"{"bad":"{.end}"}"#);
    let out = tessera(&[&t, "--partials", &p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("partial 'bad':1:1: SyntaxError: Instruction END not allowed at root")
    );
}

#[test]
fn execution_errors_are_warnings() {
    let d = Dir::new("runtime");
    let t = d.file("t.html", "a{x|apply missing}b");
    let data = d.file("d.json", r#"{"x":1}"#);
    let out = tessera(&[&t, "--data", &data]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "ab");
    assert!(
        text(&out.stderr)
            .contains("RuntimeError: Attempt to apply partial 'missing' which could not be found.")
    );
}

#[test]
fn bad_input_exits_2_and_prints_nothing() {
    let d = Dir::new("bad");
    let t = d.file("t.html", "{a}");
    let bad = d.file("bad.json", "{nope");
    let missing = d.0.join("missing.json").display().to_string();
    let not_object = d.file("arr.json", "[1]");
    for args in [
        vec![t.as_str(), "--data", bad.as_str()],
        vec![t.as_str(), "--data", missing.as_str()],
        vec![t.as_str(), "--partials", not_object.as_str()],
        vec![t.as_str(), "--inject", "noequals"],
        vec![t.as_str(), "--locale", "not a locale!"],
        vec![t.as_str(), "--now", "soon"],
        vec![t.as_str(), "--bogus", "1"],
        vec![missing.as_str()],
        vec![],
    ] {
        let out = tessera(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn repeat_prints_output_once_and_two_timing_lines() {
    let d = Dir::new("repeat");
    let t = d.file("t.html", "{.repeated section a}{@}{.end}");
    let data = d.file("d.json", r#"{"a":[1,2,3]}"#);
    let out = tessera(&[&t, "--data", &data, "--repeat", "50"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "123");
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    let mean = |line: &str, prefix: &str, suffix: &str| {
        line.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(suffix))
            .unwrap_or_else(|| panic!("unexpected line {line:?}"))
            .parse::<f64>()
            .unwrap()
    };
    let exec = mean(
        lines[0],
        "repeat: 50 executions, mean ",
        " us per execution",
    );
    let compile = mean(
        lines[1],
        "repeat: 50 compiles of the template and its partials, mean ",
        " us per compile",
    );
    assert!(exec > 0.0 && compile > 0.0, "{err}");
    let out = tessera(&[&t, "--repeat", "0"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_demo_fixture_renders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/render-demo");
    let out = tessera(&[
        root.join("template.html").to_str().unwrap(),
        "--data",
        root.join("data.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = text(&out.stdout);
    assert!(html.contains("<title>Tessera Field Notes</title>"));
    assert!(html.contains(r#"<a href="/journal" class="active">Journal</a>"#));
    assert!(html.contains("<footer>2 comments</footer>"));
}

/// `tessera --help` says what every subcommand is for: no command listed without a line.
#[test]
fn help_describes_every_subcommand() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert!(commands.len() >= 8, "{text}");
    for line in commands {
        let mut words = line.split_whitespace();
        let name = words.next().unwrap();
        assert!(
            words.next().is_some(),
            "`tessera {name}` has no description:\n{text}"
        );
    }
}
