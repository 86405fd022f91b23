//! Values the server hands out and later believes: signed with the tenant's secret
//! (`tenants::Store::tenant_secret`), so a value made for one tenant, or for one purpose,
//! is worthless for another, and nothing needs storing to check one. HMAC-SHA256, cut to
//! 128 bits, compared in constant time.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Bytes of the MAC kept in a signature (hex: twice as many characters).
const SIGNATURE_BYTES: usize = 16;

thread_local! {
    /// The last secret a thread signed or checked with, and the HMAC keyed with it: keying
    /// hashes two blocks, as many as a short message's signature itself, and a thread's
    /// requests are mostly for the same few sites. A clone of the keyed state is the same
    /// as keying again.
    static KEYED: std::cell::RefCell<Option<([u8; 32], HmacSha256)>> =
        const { std::cell::RefCell::new(None) };
}

/// An HMAC keyed with `secret` (from the thread's last one when it is the same).
fn keyed(secret: &[u8; 32]) -> HmacSha256 {
    KEYED.with_borrow_mut(|last| match last {
        Some((s, m)) if s == secret => m.clone(),
        _ => {
            let m = HmacSha256::new_from_slice(secret).expect("any key length");
            *last = Some((*secret, m.clone()));
            m
        }
    })
}

fn mac(secret: &[u8; 32], purpose: &str, message: &str) -> HmacSha256 {
    let mut m = keyed(secret);
    // The purpose and a separator first: "cart" signatures never pass as "order" ones.
    m.update(purpose.as_bytes());
    m.update(b"\0");
    m.update(message.as_bytes());
    m
}

/// The hex signature of `message` for `purpose`.
pub fn sign(secret: &[u8; 32], purpose: &str, message: &str) -> String {
    let tag = mac(secret, purpose, message).finalize().into_bytes();
    hex_of(&tag[..SIGNATURE_BYTES])
}

/// Whether `signature` (hex) signs `message` for `purpose`.
pub fn verify(secret: &[u8; 32], purpose: &str, message: &str, signature: &str) -> bool {
    // Decoded on the stack: exactly `SIGNATURE_BYTES` of hex, either case.
    let mut bytes = [0u8; SIGNATURE_BYTES];
    signature.len() == 2 * SIGNATURE_BYTES
        && hex::decode_to_slice(signature, &mut bytes).is_ok()
        && mac(secret, purpose, message)
            .verify_truncated_left(&bytes)
            .is_ok()
}

/// Bytes of OS randomness a thread draws at once for [`random_hex`].
const POOL: usize = 512;

thread_local! {
    /// OS random bytes not handed out yet, and how many of them are used. Every byte is
    /// handed out once; a page for a new visitor wants three ids (crumb, visitor, session),
    /// and one `getrandom` call per id was a system call on every such page.
    static RANDOM: std::cell::RefCell<([u8; POOL], usize)> =
        const { std::cell::RefCell::new(([0; POOL], POOL)) };
}

/// `n` random bytes from the OS, as hex: drawn from the thread's pool of OS random bytes
/// (refilled `POOL` bytes at a time), never the same byte twice.
pub fn random_hex(n: usize) -> String {
    let mut out = String::with_capacity(2 * n);
    push_random_hex(&mut out, n);
    out
}

/// [`random_hex`] written at the end of `out` (an id with a prefix is one buffer).
pub fn push_random_hex(out: &mut String, n: usize) {
    let mut small = [0u8; POOL / 4];
    let mut large = Vec::new();
    let bytes = if n > POOL / 4 {
        large.resize(n, 0);
        getrandom::fill(&mut large).expect("the OS random source works");
        &large[..]
    } else {
        let bytes = &mut small[..n];
        RANDOM.with_borrow_mut(|(pool, used)| {
            if POOL - *used < n {
                getrandom::fill(pool).expect("the OS random source works");
                *used = 0;
            }
            bytes.copy_from_slice(&pool[*used..*used + n]);
            // What is handed out is not kept.
            pool[*used..*used + n].fill(0);
            *used += n;
        });
        &small[..n]
    };
    push_hex(out, bytes);
    small.fill(0);
    large.fill(0);
}

/// `bytes` as lower-case hex at the end of `out`, written straight into its buffer.
fn push_hex(out: &mut String, bytes: &[u8]) {
    let mut buf = [0u8; 2 * (POOL / 4)];
    for chunk in bytes.chunks(POOL / 4) {
        let hex = &mut buf[..2 * chunk.len()];
        hex::encode_to_slice(chunk, hex).expect("the buffer is twice the input");
        out.push_str(std::str::from_utf8(hex).expect("hex is ASCII"));
    }
}

/// `bytes` as lower-case hex, written straight into the string's buffer (`hex::encode`
/// collects it a `char` at a time).
fn hex_of(bytes: &[u8]) -> String {
    let mut out = vec![0u8; bytes.len() * 2];
    hex::encode_to_slice(bytes, &mut out).expect("the buffer is twice the input");
    String::from_utf8(out).expect("hex is ASCII")
}

/// The bytes of hex text (at most 64 bytes' worth), or `None`.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    if s.len() > 128 {
        return None;
    }
    hex::decode(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_bound_to_key_purpose_and_message() {
        let (a, b) = ([1u8; 32], [2u8; 32]);
        let s = sign(&a, "cart", "abc");
        assert_eq!(s.len(), 32);
        assert!(verify(&a, "cart", "abc", &s));
        assert!(!verify(&b, "cart", "abc", &s));
        assert!(!verify(&a, "order", "abc", &s));
        assert!(!verify(&a, "cart", "abd", &s));
        assert!(!verify(&a, "cart", "abc", &s[..30]));
        assert!(!verify(&a, "cart", "abc", "zz"));
        assert!(!verify(&a, "cart", "abc", ""));
        // The separator keeps purpose and message apart.
        assert_ne!(sign(&a, "ab", "c"), sign(&a, "a", "bc"));
        // Upper-case hex is the same signature; anything but 32 hex digits is none.
        assert!(verify(&a, "cart", "abc", &s.to_uppercase()));
        assert!(!verify(&a, "cart", "abc", &format!("{s}00")));
        assert!(!verify(&a, "cart", "abc", &format!("{}g", &s[..31])));
        assert!(!verify(&a, "cart", "abc", &format!("{}\u{e9}", &s[..30])));
    }

    #[test]
    fn signatures_with_the_keyed_state_kept_are_as_keyed_afresh() {
        let afresh = |secret: &[u8; 32], purpose: &str, message: &str| {
            let mut m = HmacSha256::new_from_slice(secret).unwrap();
            m.update(purpose.as_bytes());
            m.update(b"\0");
            m.update(message.as_bytes());
            hex::encode(&m.finalize().into_bytes()[..SIGNATURE_BYTES])
        };
        // Secrets in turn and again, so the kept state is both reused and replaced.
        let secrets = [
            [1u8; 32], [2u8; 32], [2u8; 32], [1u8; 32], [0u8; 32], [1u8; 32],
        ];
        for (i, secret) in secrets.iter().enumerate() {
            for (purpose, message) in [("crumb", "ab"), ("cart", "id"), ("cart", "")] {
                let message = format!("{message}{i}");
                let s = sign(secret, purpose, &message);
                assert_eq!(s, afresh(secret, purpose, &message));
                assert!(verify(secret, purpose, &message, &s));
                let other = [9u8; 32];
                assert!(!verify(&other, purpose, &message, &s));
                assert!(verify(secret, purpose, &message, &s));
            }
        }
    }

    #[test]
    fn random_hex_is_fresh() {
        let x = random_hex(16);
        assert_eq!(x.len(), 32);
        assert_ne!(x, random_hex(16));
        // Across several refills of the thread's pool, with sizes that do not divide it,
        // and past it: every value new, of its length, and not all zero.
        let mut seen = std::collections::HashSet::new();
        for i in 0..400 {
            let n = [16, 8, 24, 7][i % 4];
            let v = random_hex(n);
            assert_eq!(v.len(), 2 * n);
            assert!(v.bytes().any(|b| b != b'0'), "{v}");
            assert!(seen.insert(v));
        }
        assert_eq!(random_hex(POOL).len(), 2 * POOL);
        assert_eq!(hex_of(&[0x00, 0x9f, 0xa0, 0xff]), "009fa0ff");
        assert_eq!(random_hex(0), "");
        // After a prefix, in the same buffer; past a pool's worth too.
        let mut id = String::from("v20420-");
        push_random_hex(&mut id, 16);
        assert_eq!(id.len(), 7 + 32);
        assert!(id[7..].bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
        let mut big = String::from("x");
        push_random_hex(&mut big, POOL + 3);
        assert_eq!(big.len(), 1 + 2 * (POOL + 3));
        assert!(big[1..].bytes().all(|b| b.is_ascii_hexdigit()));
        let mut hex = String::from("-");
        push_hex(&mut hex, &[0x00, 0x9f, 0xa0, 0xff]);
        assert_eq!(hex, "-009fa0ff");
    }
}
