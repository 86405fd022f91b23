//! Reading the `Cookie` header and writing `Set-Cookie` lines.

use std::time::Duration;

use axum::http::{HeaderMap, header};
use cookie::{Cookie, SameSite};

/// The values of every cookie called `name` in the request (a browser may send two of the
/// same name, from different paths or domains).
///
/// A page asks for about ten names, most of them absent (a member's session, unlocks, the
/// visitor ids, dismissed notices): a line that does not mention the name is not split.
pub fn values<'h>(headers: &'h HeaderMap, name: &'h str) -> impl Iterator<Item = &'h str> + 'h {
    headers
        .get_all(header::COOKIE)
        .into_iter()
        .filter_map(|v| v.to_str().ok())
        .filter(move |line| mentions(line, name))
        .flat_map(|line| line.split(';'))
        .filter_map(move |pair| {
            let (k, v) = pair.trim().split_once('=')?;
            (k.trim() == name).then(|| v.trim().trim_matches('"'))
        })
}

/// Whether `name` occurs in `line` (a pair named `name` is in a line only if it does).
fn mentions(line: &str, name: &str) -> bool {
    let (line, name) = (line.as_bytes(), name.as_bytes());
    let Some(&first) = name.first() else {
        return true;
    };
    memchr::memchr_iter(first, line).any(|at| line[at..].starts_with(name))
}

/// What a cookie the server sets is for.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Scripts may not read it.
    pub http_only: bool,
    /// The visitor came over HTTPS (through a trusted proxy): `Secure`.
    pub https: bool,
    /// Kept this long; `None`: until the browser closes.
    pub max_age: Option<Duration>,
}

/// A `Set-Cookie` value: `Path=/`, `SameSite=Lax`, and the options.
pub fn set(name: &str, value: &str, o: Options) -> String {
    build(name, |out| out.push_str(value), o, "Lax")
}

/// [`set`] with the value written by `value` straight into the line: an id made for the
/// cookie is made in it, not in a buffer of its own.
pub fn set_writing(name: &str, value: impl FnOnce(&mut String), o: Options) -> String {
    build(name, value, o, "Lax")
}

/// A `Set-Cookie` value sent only with the site's own requests (`SameSite=Strict`): the
/// owner app's session, which no link from another site may carry.
pub fn set_strict(name: &str, value: &str, o: Options) -> String {
    build(name, |out| out.push_str(value), o, "Strict")
}

/// The line the `cookie` crate prints for the same cookie (`name=value; HttpOnly;
/// SameSite=…; Secure; Path=/; Max-Age=…`, its order; neither name nor value encoded),
/// written straight into one buffer: a new visitor's page sets three of these (crumb,
/// visitor, session), and the crate's builder and formatter cost more than the writing.
/// The unit test below holds the two to the same bytes.
fn build(name: &str, value: impl FnOnce(&mut String), o: Options, same_site: &str) -> String {
    let mut out = String::with_capacity(name.len() + 128);
    out.push_str(name);
    out.push('=');
    value(&mut out);
    if o.http_only {
        out.push_str("; HttpOnly");
    }
    out.push_str("; SameSite=");
    out.push_str(same_site);
    if o.https {
        out.push_str("; Secure");
    }
    out.push_str("; Path=/");
    if let Some(age) = o.max_age {
        out.push_str("; Max-Age=");
        // As the crate takes it: whole seconds, as an i64.
        push_int(&mut out, age.as_secs() as i64);
    }
    out
}

/// `n` in decimal at the end of `out`.
pub(crate) fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

/// A `Set-Cookie` value that deletes the cookie.
pub fn clear(name: &str, https: bool) -> String {
    clear_as(name, https, SameSite::Lax)
}

/// [`clear`] for a cookie set by [`set_strict`].
pub fn clear_strict(name: &str, https: bool) -> String {
    clear_as(name, https, SameSite::Strict)
}

fn clear_as(name: &str, https: bool, same_site: SameSite) -> String {
    let mut c = Cookie::build((name, ""))
        .path("/")
        .same_site(same_site)
        .http_only(true)
        .secure(https)
        .max_age(cookie::time::Duration::ZERO)
        .build();
    c.set_expires(cookie::time::OffsetDateTime::UNIX_EPOCH);
    c.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn every_value_of_a_name_is_read() {
        let mut h = HeaderMap::new();
        h.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; crumb=x; b=2"),
        );
        h.append(header::COOKIE, HeaderValue::from_static("crumb=\"y\""));
        assert_eq!(values(&h, "crumb").collect::<Vec<_>>(), ["x", "y"]);
        assert_eq!(values(&h, "c").count(), 0);
    }

    /// `values` as it was before lines were checked for the name first.
    fn values_by_splitting<'h>(h: &'h HeaderMap, name: &'h str) -> Vec<&'h str> {
        h.get_all(header::COOKIE)
            .into_iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|line| line.split(';'))
            .filter_map(|pair| {
                let (k, v) = pair.trim().split_once('=')?;
                (k.trim() == name).then(|| v.trim().trim_matches('"'))
            })
            .collect()
    }

    #[test]
    fn a_line_is_read_as_when_every_line_was_split() {
        let lines = [
            "crumb=x",
            " ss_cvr = v1 ; ss_cvt=s1;tessera-cart=abc.1.ff",
            "a=1; crumb=x; b=2; crumb=\"z\"",
            "ss=1; s=2; ss_cvrr=3; xss_cvr=4",
            "=empty; crumb; crumb==; ;;",
        ];
        let names = [
            "crumb",
            "ss_cvr",
            "ss_cvt",
            "s",
            "ss",
            "tessera-cart",
            "",
            "b",
            "z",
        ];
        for line in lines {
            let mut h = HeaderMap::new();
            h.append(header::COOKIE, HeaderValue::from_static(line));
            h.append(header::COOKIE, HeaderValue::from_static("other=1; s=3"));
            for name in names {
                assert_eq!(
                    values(&h, name).collect::<Vec<_>>(),
                    values_by_splitting(&h, name),
                    "{line} {name}"
                );
            }
        }
    }

    /// The line the `cookie` crate builds for the same cookie.
    fn by_the_crate(name: &str, value: &str, o: Options, same_site: SameSite) -> String {
        let mut c = Cookie::build((name, value))
            .path("/")
            .same_site(same_site)
            .http_only(o.http_only)
            .secure(o.https);
        if let Some(age) = o.max_age {
            c = c.max_age(cookie::time::Duration::seconds(age.as_secs() as i64));
        }
        c.build().to_string()
    }

    #[test]
    fn set_cookie_lines_are_the_cookie_crates_bytes() {
        let ages = [
            None,
            Some(Duration::ZERO),
            Some(Duration::from_millis(1_999)),
            Some(Duration::from_secs(9)),
            Some(Duration::from_secs(10)),
            Some(Duration::from_secs(30 * 60)),
            Some(Duration::from_secs(730 * 24 * 3600)),
            Some(Duration::from_secs(i64::MAX as u64)),
            Some(Duration::from_secs(u64::MAX)),
        ];
        let values = [
            "",
            "v",
            "v20420-0123456789abcdef0123456789abcdef",
            "a b\"c;d=e",
            "é",
        ];
        for name in ["crumb", "ss_cvr", "tessera-cart"] {
            for value in values {
                for max_age in ages {
                    for (http_only, https) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let o = Options {
                            http_only,
                            https,
                            max_age,
                        };
                        assert_eq!(
                            set(name, value, o),
                            by_the_crate(name, value, o, SameSite::Lax)
                        );
                        assert_eq!(
                            set_strict(name, value, o),
                            by_the_crate(name, value, o, SameSite::Strict)
                        );
                    }
                }
            }
        }
        let mut n = String::new();
        for i in [0, 7, 10, 99, 100, -1, -10, i64::MIN, i64::MAX] {
            n.clear();
            push_int(&mut n, i);
            assert_eq!(n, i.to_string());
        }
    }

    #[test]
    fn set_cookie_lines_carry_the_options() {
        let line = set(
            "tessera-cart",
            "v",
            Options {
                http_only: true,
                https: true,
                max_age: Some(Duration::from_secs(60)),
            },
        );
        for part in [
            "tessera-cart=v",
            "Path=/",
            "SameSite=Lax",
            "HttpOnly",
            "Secure",
            "Max-Age=60",
        ] {
            assert!(line.contains(part), "{line}");
        }
        let plain = set(
            "crumb",
            "v",
            Options {
                http_only: false,
                https: false,
                max_age: None,
            },
        );
        assert!(
            !plain.contains("HttpOnly") && !plain.contains("Secure") && !plain.contains("Max-Age")
        );
        assert!(clear("tessera-cart", false).contains("Max-Age=0"));
        let strict = set_strict(
            "tessera-owner",
            "v",
            Options {
                http_only: true,
                https: false,
                max_age: None,
            },
        );
        assert!(strict.contains("SameSite=Strict") && strict.contains("HttpOnly"));
        assert!(clear_strict("tessera-owner", true).contains("SameSite=Strict"));
    }
}
