//! Replays the committed fuzz corpus of every API body parser (`fuzz/corpus/body_<name>/`,
//! run through `api::fuzzing::PARSERS` exactly as the cargo-fuzz targets run them), plus
//! deterministic mutations of each input: nothing may panic. Also checks that every parser
//! has its fuzz target and a corpus, so a new body cannot go unfuzzed.

use std::path::{Path, PathBuf};

use api::fuzzing::PARSERS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = fuzz_dir().join("corpus").join(format!("body_{name}"));
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (every parser has a committed corpus)",
                dir.display()
            )
        })
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn every_parser_has_a_target_and_a_corpus() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for (name, _) in PARSERS {
        let target = fuzz_dir().join(format!("fuzz_targets/body_{name}.rs"));
        let source = std::fs::read_to_string(&target)
            .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        assert!(
            source.contains(&format!("api::fuzzing::body(\"{name}\", data)")),
            "{} does not run {name}",
            target.display()
        );
        assert!(
            manifest.contains(&format!("name = \"body_{name}\"")),
            "fuzz/Cargo.toml has no [[bin]] body_{name}"
        );
        assert!(corpus(name).len() >= 3, "corpus of {name} is too small");
    }
}

#[test]
fn corpora_replay_without_panics() {
    let mut runs = 0;
    for (name, run) in PARSERS {
        for input in corpus(name) {
            run(&input);
            runs += 1;
        }
    }
    assert!(runs >= 100, "only {runs} inputs replayed");
}

/// Cheap coverage between fuzz runs: each corpus input cut short at every length, and with
/// single bytes flipped or replaced by JSON punctuation (a fixed pseudo-random walk).
#[test]
fn mutated_inputs_do_not_panic() {
    const PUNCT: &[u8] = b"{}[]\",:0-e.\\u\xff ntf";
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (name, run) in PARSERS {
        for input in corpus(name) {
            for cut in 0..input.len().min(256) {
                run(&input[..cut]);
            }
            for _ in 0..64 {
                let mut m = input.clone();
                if m.is_empty() {
                    break;
                }
                let at = (next() as usize) % m.len();
                m[at] = PUNCT[(next() as usize) % PUNCT.len()];
                run(&m);
            }
        }
    }
}

/// The `request_host` target's corpus, each input cut short and mutated with the bytes that
/// matter in an authority: none may panic or let through a host that is not one.
#[test]
fn request_host_corpus_replays() {
    const PUNCT: &[u8] = b":@/[]\\.%?# \n0";
    let dir = fuzz_dir().join("corpus/request_host");
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"request_host\""));
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "corpus of request_host is too small");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for input in inputs {
        for cut in 0..=input.len() {
            api::fuzzing::request_host(&input[..cut]);
        }
        for _ in 0..256 {
            let mut m = input.clone();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = (seed as usize) % m.len().max(1);
            if let Some(b) = m.get_mut(at) {
                *b = PUNCT[(seed >> 32) as usize % PUNCT.len()];
            }
            api::fuzzing::request_host(&m);
        }
    }
}

/// The LESS targets' corpora (`fuzz/corpus/less_input/`, `fuzz/corpus/less_compile/`):
/// the Rust side around Node with every prefix and 64 mutations of each input, and the
/// whole compile, Node included, once per committed input (each is a Node process).
#[test]
fn less_corpora_replay_without_panics() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let read = |target: &str| {
        assert!(
            manifest.contains(&format!("name = \"{target}\"")),
            "fuzz/Cargo.toml has no [[bin]] {target}"
        );
        let dir = fuzz_dir().join("corpus").join(target);
        let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect();
        inputs.sort();
        assert!(inputs.len() >= 3, "corpus of {target} is too small");
        inputs
    };
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const PUNCT: &[u8] = b"{}()[];:@'\"./\\\0~`&\xff ";
    for input in read("less_input") {
        for cut in 0..=input.len().min(256) {
            api::fuzzing::less::input(&input[..cut]);
        }
        for _ in 0..64 {
            let mut m = input.clone();
            let at = (next() as usize) % m.len().max(1);
            if let Some(b) = m.get_mut(at) {
                *b = PUNCT[(next() as usize) % PUNCT.len()];
            }
            api::fuzzing::less::input(&m);
        }
    }
    for input in read("less_compile") {
        api::fuzzing::less::compile(&input);
    }
}
