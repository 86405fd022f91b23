// Prints ../pow_cases.rs: `x ** y` recorded from the running Node. Usage: node gen_pow_cases.js > ../pow_cases.rs
let s = 987654;
const r = () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648; };
const buf = new DataView(new ArrayBuffer(8));
const hex = (v) => { buf.setFloat64(0, v); return '0x' + buf.getBigUint64(0).toString(16).padStart(16, '0'); };
const specials = [0, -0, Infinity, -Infinity, NaN, 1, -1, 0.5, -0.5, 2, -2, 3, -3, 1e308, -1e308, 5e-324, 2.2250738585072014e-308, 1.0000000001, 0.9999999999, 1e-10, 7, 1.5, -1.5, 2147483649, 1e19, -1e19, 1075, -1075, 1024, 0.1];
const rows = [];
for (const x of specials) for (const y of specials) rows.push([x, y]);
for (let i = 0; i < 600; i++) {
  let x, y;
  switch (i % 4) {
    case 0: x = r() * 20 - 10; y = r() * 20 - 10; break;
    case 1: x = Math.floor(r() * 100) - 50; y = Math.floor(r() * 40) - 20; break;
    case 2: x = r() * 1e6; y = r() * 4 - 2; break;
    case 3: x = r() * 2; y = r() * 2000 - 1000; break;
  }
  rows.push([x, y]);
}
const lines = rows.map(([x, y]) => `    (${hex(x)}, ${hex(y)}, ${hex(x ** y)}),`);
console.log('//! `x ** y` as recorded from Node 20 (the reference\'s engine), as IEEE bit patterns:\n//! every pair of some special values, then seeded random inputs. Generated.\n\npub(super) const POW: &[(u64, u64, u64)] = &[\n' + lines.join('\n') + '\n];');
