//! The tokenizer: turns expression text into tokens, telling unary from binary `+`/`-` and
//! function calls from parenthesized sub-expressions as it goes.

use super::Literal;
use super::convert::{radix_pow2_value, scan_decimal, scan_hex};
use super::functions::Func;
use super::ops::Op;
use crate::syntax::path::{Head, VarPath, var_ref};
use crate::value::json::quote;
use crate::value::number::js_parse_float;
use crate::value::utf16_len;

pub(crate) const E_INVALID_HEX: &str = "Invalid 2-char hex escape found";
pub(crate) const E_INVALID_UNICODE: &str = "Invalid unicode escape found";

/// One token, as produced by the tokenizer and as stored in the assembled expressions.
#[derive(Clone, Debug)]
pub(crate) enum Token {
    Op(Op),
    Lit(Literal),
    Var(VarPath),
    /// A built-in function call (the name was followed by `(`).
    Call(Func),
    /// Marks where a call's arguments start on the reduce stack.
    Args,
    /// A name the reference resolves to an inherited JavaScript object property
    /// (`constructor`, `toString`, ...) through its constant table: it takes part in
    /// assembly but is ignored when reducing.
    Junk,
}

/// Names of the constants.
fn constant(name: &str) -> Option<Literal> {
    Some(match name {
        "null" => Literal::Null,
        "true" => Literal::Bool(true),
        "false" => Literal::Bool(false),
        "PI" => Literal::Num(std::f64::consts::PI),
        "E" => Literal::Num(std::f64::consts::E),
        "Infinity" => Literal::Num(f64::INFINITY),
        "NaN" => Literal::Num(f64::NAN),
        _ => return None,
    })
}

/// Names of `Object.prototype` members that a variable reference can spell.
fn is_junk_name(name: &str) -> bool {
    matches!(
        name,
        "constructor"
            | "hasOwnProperty"
            | "isPrototypeOf"
            | "propertyIsEnumerable"
            | "toString"
            | "valueOf"
            | "toLocaleString"
    )
}

/// The first segment of a reference as written.
pub(crate) fn head_name(path: &VarPath) -> &str {
    path.path().head_name()
}

struct Lexer<'s> {
    src: &'s str,
    tokens: Vec<Token>,
    errors: Vec<String>,
    max_tokens: usize,
}

/// Tokenizes `src`, returning the tokens and any errors. Tokenizing stops at the first
/// malformed literal or unexpected character; once an error is recorded, no further tokens
/// are accepted, though scanning goes on and can still report a malformed literal.
pub(crate) fn tokenize(src: &str, max_tokens: usize) -> (Vec<Token>, Vec<String>) {
    let mut lx = Lexer {
        src,
        tokens: Vec::new(),
        errors: Vec::new(),
        max_tokens,
    };
    lx.run();
    (lx.tokens, lx.errors)
}

impl Lexer<'_> {
    fn run(&mut self) {
        let b = self.src.as_bytes();
        let len = b.len();
        let mut i = 0;
        while i < len {
            let c = b[i];
            let next = b.get(i + 1).copied();
            let op = match c {
                b'0'..=b'9' => {
                    let end = if c == b'0' && matches!(next, Some(b'x' | b'X')) {
                        self.hex(i + 2)
                    } else {
                        self.decimal(i)
                    };
                    match end {
                        Some(j) => {
                            i = j;
                            continue;
                        }
                        None => return,
                    }
                }
                b'"' | b'\'' => match self.string(i + 1, c) {
                    Some(j) => {
                        i = j;
                        continue;
                    }
                    None => return,
                },
                b'*' if next == Some(b'*') => {
                    i += 1;
                    Op::Pow
                }
                b'*' => Op::Mul,
                b'/' => Op::Div,
                b'%' => Op::Mod,
                b'+' => Op::Add,
                b'-' => Op::Sub,
                b'=' | b'!' if next == Some(b'=') => {
                    i += 1;
                    let strict = b.get(i + 1) == Some(&b'=');
                    if strict {
                        i += 1;
                    }
                    match (c, strict) {
                        (b'=', false) => Op::Eq,
                        (b'=', true) => Op::SEq,
                        (_, false) => Op::Neq,
                        (_, true) => Op::SNeq,
                    }
                }
                b'=' => Op::Asn,
                b'!' => Op::LNot,
                b'<' | b'>' => {
                    let (double, or_equal, single) = if c == b'<' {
                        (Op::Shl, Op::LtEq, Op::Lt)
                    } else {
                        (Op::Shr, Op::GtEq, Op::Gt)
                    };
                    if next == Some(c) {
                        i += 1;
                        double
                    } else if next == Some(b'=') {
                        i += 1;
                        or_equal
                    } else {
                        single
                    }
                }
                b'~' => Op::BNot,
                b'&' if next == Some(b'&') => {
                    i += 1;
                    Op::LAnd
                }
                b'&' => Op::BAnd,
                b'|' if next == Some(b'|') => {
                    i += 1;
                    Op::LOr
                }
                b'|' => Op::BOr,
                b'^' => Op::BXor,
                b',' => Op::Comma,
                b';' => Op::Semi,
                b'(' => Op::LParen,
                b')' => Op::RParen,
                b' ' | b'\n' | b'\t' | b'\r' => {
                    i += 1;
                    continue;
                }
                _ => {
                    let rest = &self.src[i..];
                    if rest.starts_with('\u{a0}') {
                        i += '\u{a0}'.len_utf8();
                        continue;
                    }
                    match var_ref(rest) {
                        Ok((after, path)) => {
                            i = len - after.len();
                            self.name(path);
                            continue;
                        }
                        Err(_) => {
                            self.unexpected(i);
                            return;
                        }
                    }
                }
            };
            self.push(Token::Op(op));
            i += 1;
        }
    }

    /// A variable reference, constant or (when `(` follows) function name.
    fn name(&mut self, path: VarPath) {
        if let (Head::Key(_), true) = (path.head(), path.rest().is_empty()) {
            let name = head_name(&path);
            if let Some(lit) = constant(name) {
                self.push(Token::Lit(lit));
                return;
            }
            if is_junk_name(name) {
                self.push(Token::Junk);
                return;
            }
        }
        self.push(Token::Var(path));
    }

    fn push(&mut self, mut t: Token) {
        if !self.errors.is_empty() {
            return;
        }
        match t {
            Token::Op(op @ (Op::Add | Op::Sub)) => {
                let unary = match self.tokens.last() {
                    None => true,
                    Some(Token::Op(prev)) => *prev != Op::RParen,
                    Some(_) => false,
                };
                if unary {
                    t = Token::Op(if op == Op::Sub { Op::Minus } else { Op::Plus });
                }
            }
            Token::Op(Op::LParen) => {
                // A single-segment name right before `(` must be a built-in function.
                if let Some(Token::Var(path)) = self.tokens.last()
                    && path.rest().is_empty()
                {
                    let name = head_name(path);
                    let Some(f) = Func::lookup(name) else {
                        self.errors.push(format!("Invalid function {name}"));
                        return;
                    };
                    if let Some(last) = self.tokens.last_mut() {
                        *last = Token::Call(f);
                    }
                }
            }
            _ => {}
        }
        self.tokens.push(t);
        if self.max_tokens > 0 && self.tokens.len() > self.max_tokens {
            self.errors.push(format!(
                "Expression exceeds the maximum number of allowed tokens: {}",
                self.max_tokens
            ));
        }
    }

    /// "Unexpected character at N: "c"", with the position and character in UTF-16 terms.
    fn unexpected(&mut self, i: usize) {
        let c = self.src[i..].chars().next().unwrap_or('\u{fffd}');
        let kind = match c {
            '\u{8}' => "backspace",
            '\u{c}' => "form feed",
            '\n' => "line feed",
            '\r' => "carriage return",
            '\t' => "tab",
            '\0'..='\u{1f}' => "control character",
            _ => "character",
        };
        let mut shown = String::new();
        if c.len_utf16() == 2 {
            // JavaScript sees only the high surrogate.
            let mut units = [0u16; 2];
            c.encode_utf16(&mut units);
            shown = format!("\"\\u{:04x}\"", units[0]);
        } else {
            quote(c.encode_utf8(&mut [0; 4]), &mut shown);
        }
        let at = utf16_len(&self.src[..i]);
        self.errors
            .push(format!("Unexpected {kind} at {at}: {shown}"));
    }

    /// A decimal number starting at `i`; returns the end, or `None` after an error.
    fn decimal(&mut self, i: usize) -> Option<usize> {
        match scan_decimal(self.src.as_bytes(), i) {
            Ok(j) => {
                self.push(Token::Lit(Literal::Num(js_parse_float(&self.src[i..j]))));
                Some(j)
            }
            Err(e) => {
                self.errors.push(e.message().to_string());
                None
            }
        }
    }

    /// The digits of a hex number starting at `i` (after `0x`).
    fn hex(&mut self, i: usize) -> Option<usize> {
        let b = self.src.as_bytes();
        let j = scan_hex(b, i, b.len());
        if j == i {
            self.errors
                .push("Expected digits after start of hex number".to_string());
            return None;
        }
        self.push(Token::Lit(Literal::Num(radix_pow2_value(&b[i..j], 4))));
        Some(j)
    }

    /// A string literal whose body starts at `i`; returns the position after the closing
    /// quote, or `None` after an error.
    fn string(&mut self, mut i: usize, quote: u8) -> Option<usize> {
        let src = self.src;
        let b = src.as_bytes();
        let len = b.len();
        let mut s = StrBuilder::default();
        while i < len {
            let c = b[i];
            if c == b'\\' && i + 1 < len {
                match b[i + 1] {
                    b'n' => s.push('\n'),
                    b't' => s.push('\t'),
                    b'f' => s.push('\u{c}'),
                    b'r' => s.push('\r'),
                    b'x' => {
                        i += 2;
                        let lim = i + 2;
                        if lim >= len || scan_hex(b, i, lim) != lim {
                            self.errors.push(E_INVALID_HEX.to_string());
                            return None;
                        }
                        s.push_code(hex_u32(&b[i..lim]));
                        i = lim;
                        continue;
                    }
                    e @ (b'u' | b'U') => {
                        i += 2;
                        let lim = i + if e == b'u' { 4 } else { 8 };
                        if scan_hex(b, i, lim) != lim {
                            self.errors.push(E_INVALID_UNICODE.to_string());
                            return None;
                        }
                        s.push_code(hex_u32(&b[i..lim]));
                        i = lim;
                        continue;
                    }
                    _ => {
                        // Any other escaped character stands for itself.
                        let ch = src[i + 1..].chars().next().unwrap_or('\u{fffd}');
                        s.push(ch);
                        i += 1 + ch.len_utf8();
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            if c == quote {
                self.push(Token::Lit(Literal::Str(s.text)));
                return Some(i + 1);
            }
            if c == b'\n' || c == b'\r' {
                let kind = if c == b'\n' {
                    "line feed"
                } else {
                    "carriage return"
                };
                self.errors
                    .push(format!("Illegal bare {kind} character in string literal"));
                return None;
            }
            let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
            s.push(ch);
            i += ch.len_utf8();
        }
        self.errors.push("Unterminated string".to_string());
        None
    }
}

/// Up to eight hex digits as a number.
fn hex_u32(digits: &[u8]) -> u32 {
    digits.iter().fold(0u32, |acc, &c| {
        (acc << 4) | (c as char).to_digit(16).unwrap_or(0)
    })
}

/// Accumulates a string literal's characters. Escapes can spell UTF-16 surrogates, which a
/// Rust string cannot hold: a high surrogate immediately followed by a low one combines into
/// one character, as it would in JavaScript; a lone surrogate becomes U+FFFD.
#[derive(Default)]
struct StrBuilder {
    text: String,
    /// A lone high surrogate written as U+FFFD at this byte offset (the end of the text).
    high: Option<(u32, usize)>,
}

impl StrBuilder {
    fn push(&mut self, c: char) {
        self.text.push(c);
    }

    fn push_code(&mut self, code: u32) {
        if code <= 0x08 || (0x0e..0x20).contains(&code) || code > 0x10ffff {
            // Unwanted control characters and out-of-range code points.
            self.text.push(' ');
            return;
        }
        match code {
            0xd800..=0xdbff => {
                self.high = Some((code, self.text.len()));
                self.text.push('\u{fffd}');
            }
            0xdc00..=0xdfff => match self.high {
                Some((hi, at)) if at + '\u{fffd}'.len_utf8() == self.text.len() => {
                    self.text.truncate(at);
                    let c = 0x10000 + ((hi - 0xd800) << 10) + (code - 0xdc00);
                    self.text.push(char::from_u32(c).unwrap_or('\u{fffd}'));
                    self.high = None;
                }
                _ => self.text.push('\u{fffd}'),
            },
            _ => self.text.push(char::from_u32(code).unwrap_or('\u{fffd}')),
        }
    }
}
