//! `Math.pow` as the reference's JavaScript engine (V8, Node 20) computes it, bit for bit.
//!
//! V8 does not use the C library's `pow` there but its own port of fdlibm's `e_pow.c`,
//! which differs from glibc (and from a plain fdlibm port) in the last bit for a few percent
//! of inputs: V8 evaluates one step of the final `exp` as `z*t1 / ((t1-2) - (w+z*w))` where
//! fdlibm has `z*t1/(t1-2) - (w+z*w)`. This is fdlibm's algorithm with that grouping.
//!
//! ====================================================
//! Copyright (C) 2004 by Sun Microsystems, Inc. All rights reserved.
//!
//! Permission to use, copy, modify, and distribute this
//! software is freely granted, provided that this notice
//! is preserved.
//! ====================================================
//!
//! Method: write x = 2^n * (1+f); compute log2(x) in two pieces with extra precision, form
//! y*log2(x) = n' + y' with |y'| <= 0.5 in simulated double-double arithmetic, and return
//! 2^n' * exp(y' * ln 2).

const BP: [f64; 2] = [1.0, 1.5];
const DP_H: [f64; 2] = [0.0, f64::from_bits(0x3fe2_b803_4000_0000)];
const DP_L: [f64; 2] = [0.0, f64::from_bits(0x3e4c_fdeb_43cf_d006)];
const TWO53: f64 = 9007199254740992.0;
const HUGE: f64 = 1.0e300;
const TINY: f64 = 1.0e-300;

// Coefficients for (3/2)*(log(x) - 2s - 2/3*s^3).
const L1: f64 = f64::from_bits(0x3fe3_3333_3333_3303);
const L2: f64 = f64::from_bits(0x3fdb_6db6_db6f_abff);
const L3: f64 = f64::from_bits(0x3fd5_5555_518f_264d);
const L4: f64 = f64::from_bits(0x3fd1_7460_a91d_4101);
const L5: f64 = f64::from_bits(0x3fcd_864a_93c9_db65);
const L6: f64 = f64::from_bits(0x3fca_7e28_4a45_4eef);
// Coefficients for exp on [-ln2/2, ln2/2].
const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);
const LG2: f64 = f64::from_bits(0x3fe6_2e42_fefa_39ef);
const LG2_H: f64 = f64::from_bits(0x3fe6_2e43_0000_0000);
const LG2_L: f64 = f64::from_bits(0xbe20_5c61_0ca8_6c39);
/// -(1024 - log2(overflow + 0.5 ulp)).
const OVT: f64 = 8.008_566_259_537_294e-17;
/// 2/(3 ln 2), and its head and tail.
const CP: f64 = f64::from_bits(0x3fee_c709_dc3a_03fd);
const CP_H: f64 = f64::from_bits(0x3fee_c709_e000_0000);
const CP_L: f64 = f64::from_bits(0xbe3e_2fe0_145b_01f5);
/// 1/ln 2, and its head and tail.
const IVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
const IVLN2_H: f64 = f64::from_bits(0x3ff7_1547_6000_0000);
const IVLN2_L: f64 = f64::from_bits(0x3e54_ae0b_f85d_df44);

fn high(x: f64) -> i32 {
    (x.to_bits() >> 32) as i32
}

fn low(x: f64) -> u32 {
    x.to_bits() as u32
}

fn with_high(x: f64, hi: u32) -> f64 {
    f64::from_bits((x.to_bits() & 0xffff_ffff) | (u64::from(hi) << 32))
}

/// `x` with its low 32 bits cleared.
fn clear_low(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & 0xffff_ffff_0000_0000)
}

/// x * 2^n, rounded once.
fn scalbn(mut x: f64, mut n: i32) -> f64 {
    let two_1023 = f64::from_bits(0x7fe0_0000_0000_0000);
    let two_m969 = f64::from_bits(0x0010_0000_0000_0000) * TWO53;
    if n > 1023 {
        x *= two_1023;
        n -= 1023;
        if n > 1023 {
            x *= two_1023;
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        x *= two_m969;
        n += 1022 - 53;
        if n < -1022 {
            x *= two_m969;
            n = (n + 1022 - 53).max(-1022);
        }
    }
    x * f64::from_bits(((0x3ff + n) as u64) << 52)
}

/// x^y with IEEE special cases (the caller applies JavaScript's NaN rules first).
pub(crate) fn pow(x: f64, y: f64) -> f64 {
    let (hx, lx) = (high(x), low(x));
    let (hy, ly) = (high(y), low(y));
    let mut ix = hx & 0x7fff_ffff;
    let iy = hy & 0x7fff_ffff;

    if (iy as u32 | ly) == 0 {
        return 1.0;
    }
    if hx == 0x3ff0_0000 && lx == 0 {
        return 1.0;
    }
    if ix > 0x7ff0_0000
        || (ix == 0x7ff0_0000 && lx != 0)
        || iy > 0x7ff0_0000
        || (iy == 0x7ff0_0000 && ly != 0)
    {
        return x + y;
    }

    // For x < 0: is y an odd integer (1), an even integer (2), or not an integer (0)?
    let mut y_int = 0;
    if hx < 0 {
        if iy >= 0x4340_0000 {
            y_int = 2;
        } else if iy >= 0x3ff0_0000 {
            let e = (iy >> 20) - 0x3ff;
            if e > 20 {
                let j = ly >> (52 - e);
                if (j << (52 - e)) == ly {
                    y_int = 2 - (j & 1) as i32;
                }
            } else if ly == 0 {
                let j = iy >> (20 - e);
                if (j << (20 - e)) == iy {
                    y_int = 2 - (j & 1);
                }
            }
        }
    }

    if ly == 0 {
        if iy == 0x7ff0_0000 {
            // y is ±Infinity.
            return if ((ix - 0x3ff0_0000) | lx as i32) == 0 {
                1.0
            } else if ix >= 0x3ff0_0000 {
                if hy >= 0 { y } else { 0.0 }
            } else if hy >= 0 {
                0.0
            } else {
                -y
            };
        }
        if iy == 0x3ff0_0000 {
            return if hy >= 0 { x } else { 1.0 / x };
        }
        if hy == 0x4000_0000 {
            return x * x;
        }
        if hy == 0x3fe0_0000 && hx >= 0 {
            return x.sqrt();
        }
    }

    let mut ax = x.abs();
    if lx == 0 && (ix == 0x7ff0_0000 || ix == 0 || ix == 0x3ff0_0000) {
        // x is ±0, ±Infinity or ±1.
        let mut z = if hy < 0 { 1.0 / ax } else { ax };
        if hx < 0 {
            if ((ix - 0x3ff0_0000) | y_int) == 0 {
                z = f64::NAN; // (-1)^non-integer
            } else if y_int == 1 {
                z = -z;
            }
        }
        return z;
    }

    let mut sign = 1.0;
    if hx < 0 {
        if y_int == 0 {
            return f64::NAN; // (negative)^non-integer
        }
        if y_int == 1 {
            sign = -1.0;
        }
    }

    // log2(x) as t1 + t2.
    let (t1, t2);
    if iy > 0x41e0_0000 {
        // |y| > 2^31.
        if iy > 0x43f0_0000 {
            // |y| > 2^64: must overflow or underflow.
            if ix <= 0x3fef_ffff {
                return if hy < 0 { HUGE * HUGE } else { TINY * TINY };
            }
            if ix >= 0x3ff0_0000 {
                return if hy > 0 { HUGE * HUGE } else { TINY * TINY };
            }
        }
        if ix < 0x3fef_ffff {
            return if hy < 0 {
                sign * HUGE * HUGE
            } else {
                sign * TINY * TINY
            };
        }
        if ix > 0x3ff0_0000 {
            return if hy > 0 {
                sign * HUGE * HUGE
            } else {
                sign * TINY * TINY
            };
        }
        // |1 - x| <= 2^-20: log(x) by its series x - x^2/2 + x^3/3 - x^4/4.
        let t = ax - 1.0;
        let w = (t * t) * (0.5 - t * (0.333_333_333_333_333_3 - t * 0.25));
        let u = IVLN2_H * t;
        let v = t * IVLN2_L - w * IVLN2;
        t1 = clear_low(u + v);
        t2 = v - (t1 - u);
    } else {
        let mut n = 0;
        if ix < 0x0010_0000 {
            // Subnormal x.
            ax *= TWO53;
            n -= 53;
            ix = high(ax);
        }
        n += (ix >> 20) - 0x3ff;
        let j = ix & 0x000f_ffff;
        ix = j | 0x3ff0_0000;
        let k = if j <= 0x3988e {
            0 // |x| < sqrt(3/2)
        } else if j < 0xbb67a {
            1 // |x| < sqrt(3)
        } else {
            n += 1;
            ix -= 0x0010_0000;
            0
        };
        ax = with_high(ax, ix as u32);

        // ss = s_h + s_l = (x - 1)/(x + 1) or (x - 1.5)/(x + 1.5).
        let u = ax - BP[k];
        let v = 1.0 / (ax + BP[k]);
        let ss = u * v;
        let s_h = clear_low(ss);
        let t_h = with_high(
            0.0,
            ((ix as u32 >> 1) | 0x2000_0000) + 0x0008_0000 + ((k as u32) << 18),
        );
        let t_l = ax - (t_h - BP[k]);
        let s_l = v * ((u - s_h * t_h) - s_h * t_l);

        // log(ax).
        let s2 = ss * ss;
        let mut r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
        r += s_l * (s_h + ss);
        let s2 = s_h * s_h;
        let t_h = clear_low(3.0 + s2 + r);
        let t_l = r - ((t_h - 3.0) - s2);
        let u = s_h * t_h;
        let v = s_l * t_h + t_l * ss;

        // 2/(3 ln 2) * (ss + ...).
        let p_h = clear_low(u + v);
        let p_l = v - (p_h - u);
        let z_h = CP_H * p_h;
        let z_l = CP_L * p_h + p_l * CP + DP_L[k];

        // log2(ax) = n + dp_h + z_h + z_l.
        let t = f64::from(n);
        t1 = clear_low(((z_h + z_l) + DP_H[k]) + t);
        t2 = z_l - (((t1 - t) - DP_H[k]) - z_h);
    }

    // (y1 + y2) * (t1 + t2), with y1 the high part of y.
    let y1 = clear_low(y);
    let p_l = (y - y1) * t1 + y * t2;
    let mut p_h = y1 * t1;
    let z = p_l + p_h;
    let j = high(z);
    let i = low(z) as i32;
    if j >= 0x4090_0000 {
        // z >= 1024.
        if ((j - 0x4090_0000) | i) != 0 || p_l + OVT > z - p_h {
            return sign * HUGE * HUGE;
        }
    } else if (j & 0x7fff_ffff) >= 0x4090_cc00 {
        // z <= -1075.
        if ((j as u32).wrapping_sub(0xc090_cc00) | i as u32) != 0 || p_l <= z - p_h {
            return sign * TINY * TINY;
        }
    }

    // 2^(p_h + p_l).
    let i = j & 0x7fff_ffff;
    let mut k = (i >> 20) - 0x3ff;
    let mut n = 0;
    if i > 0x3fe0_0000 {
        // |z| > 0.5: n = round(z).
        n = j + (0x0010_0000 >> (k + 1));
        k = ((n & 0x7fff_ffff) >> 20) - 0x3ff;
        let t = with_high(0.0, (n & !(0x000f_ffff >> k)) as u32);
        n = ((n & 0x000f_ffff) | 0x0010_0000) >> (20 - k);
        if j < 0 {
            n = -n;
        }
        p_h -= t;
    }
    let t = clear_low(p_l + p_h);
    let u = t * LG2_H;
    let v = (p_l - (t - p_h)) * LG2 + t * LG2_L;
    let mut z = u + v;
    let w = v - (z - u);
    let t = z * z;
    let t1 = z - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
    // V8's grouping (see the module comment).
    let r = (z * t1) / ((t1 - 2.0) - (w + z * w));
    z = 1.0 - (r - z);
    let j = high(z) + (n << 20);
    z = if (j >> 20) <= 0 {
        scalbn(z, n)
    } else {
        with_high(z, j as u32)
    };
    sign * z
}
