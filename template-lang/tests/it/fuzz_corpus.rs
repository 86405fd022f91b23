//! Replays the fuzz corpus (`fuzz/corpus/render`) and a stream of deterministic random
//! inputs through parse + execute: nothing may panic.

use template_lang::fuzzing::parse_and_execute;

#[test]
fn corpus_replays_without_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/render");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("the fuzz corpus is committed") {
        let path = entry.unwrap().path();
        let input = std::fs::read(&path).unwrap();
        let _ = parse_and_execute(&input);
        count += 1;
    }
    assert!(count >= 20, "corpus unexpectedly small: {count} files");
}

/// Random mutations of template-like text: cheap, deterministic coverage between fuzz runs.
#[test]
fn random_inputs_do_not_panic() {
    const PIECES: &[&str] = &[
        "{",
        "}",
        ".",
        "|",
        "@",
        "a",
        "b.c",
        "{.section a}",
        "{.repeated section a}",
        "{.end}",
        "{.or}",
        "{.alternates with}",
        "{.if a || b}",
        "{.eval ",
        "1+",
        "'",
        "\"",
        "\\u",
        "(",
        ")",
        "{.var @v a}",
        "{@v}",
        "{a|html}",
        "{a|apply p}",
        "{.macro p}",
        "{.include p}",
        "{a|truncate 3}",
        "{a|date %c}",
        "{a|json}",
        "{a|plural b}",
        "{.equal? a 1}",
        "#",
        "\n",
        "é",
        "😀",
        "{##",
        "##}",
        "{.ctx @c x=a}",
        "{a|format b}",
        "{a|get b}",
        "{.inject @i x}",
    ];
    let mut seed: u64 = 0x9E3779B97F4A7C15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let n = (next() % 40) as usize;
        let mut t = String::new();
        for _ in 0..n {
            t.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        let input = format!(r#"{t}{}{{"a":[1,{{"a":"x"}}],"b":"{{0}}","c":null}}"#, '\0');
        let _ = parse_and_execute(input.as_bytes());
    }
}
