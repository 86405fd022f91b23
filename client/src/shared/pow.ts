// The proof-of-work captcha's puzzle (README "Captcha"): the smallest decimal nonce n ≥ 0
// such that SHA-256 of `challenge:n` starts with `difficulty` zero bits; the token is
// `challenge:n`. Loaded only when a visitor ticks the box, so SHA-256 costs no page any
// bytes until then.

import { sha256 } from "@noble/hashes/sha2.js";

/** Hashes between two yields to the page: a few milliseconds of work, so typing and
 *  scrolling stay smooth while a difficulty-16 puzzle (about 65,000 hashes) is solved. */
export const CHUNK = 4000;

const utf8 = new TextEncoder();

/** Leading zero bits of a hash, counted from its first byte. */
export function zeroBits(hash: Uint8Array): number {
  let n = 0;
  for (const b of hash) {
    if (b !== 0) return n + Math.clz32(b) - 24;
    n += 8;
  }
  return n;
}

/** Whether `token` (`challenge:nonce`) meets `difficulty`, as the server checks it. */
export function meets(token: string, difficulty: number): boolean {
  return zeroBits(sha256(utf8.encode(token))) >= difficulty;
}

/** Finds the token; `stale()` true stops the search (a reset made it pointless). */
export async function solve(challenge: string, difficulty: number, stale: () => boolean = () => false): Promise<string> {
  // The challenge's full blocks are hashed once; each nonce only finishes a copy.
  const prefix = sha256.create().update(utf8.encode(`${challenge}:`));
  for (let n = 0; ; n++) {
    if (zeroBits(prefix.clone().update(utf8.encode(String(n))).digest()) >= difficulty) return `${challenge}:${n}`;
    if (n % CHUNK === CHUNK - 1) {
      // A macrotask, not a microtask: the browser gets to paint and handle input.
      await new Promise((r) => setTimeout(r, 0));
      if (stale()) throw new Error("captcha reset");
    }
  }
}
