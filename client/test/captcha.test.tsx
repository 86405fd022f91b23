import { sha256 } from "@noble/hashes/sha2.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadRecaptcha, mountCaptcha } from "../src/shared/captcha";
import * as m from "../src/shared/messages";
import * as fm from "../src/shared/messages-forms";
import { meets, solve, zeroBits } from "../src/shared/pow";
import { page, routeFetch, settle, until } from "./helpers";

afterEach(() => {
  vi.unstubAllGlobals();
  delete window.grecaptcha;
  delete window.tesseraRecaptchaLoaded;
});

const CHALLENGE = "GET /api/captcha/challenge";
const box = () => document.querySelector<HTMLInputElement>(".tessera-captcha-check")!;
const status = () => document.querySelector(".tessera-captcha-status")!.textContent;

describe("the proof of work", () => {
  it("counts leading zero bits from the first byte", () => {
    expect(zeroBits(Uint8Array.of(0xff))).toBe(0);
    expect(zeroBits(Uint8Array.of(0x00, 0x10))).toBe(11);
    expect(zeroBits(Uint8Array.of(0, 0))).toBe(16);
    expect(zeroBits(Uint8Array.of(0x01))).toBe(7);
  });

  it("finds the smallest nonce whose SHA-256 of `challenge:n` has the zero bits", async () => {
    const token = await solve("abc.123.8.sig", 8);
    const [challenge, nonce] = [token.slice(0, token.lastIndexOf(":")), Number(token.split(":").pop())];
    expect(challenge).toBe("abc.123.8.sig");
    const hash = sha256(new TextEncoder().encode(token));
    expect(hash[0]).toBe(0);
    for (let n = 0; n < nonce; n++) expect(meets(`abc.123.8.sig:${n}`, 8)).toBe(false);
    // Difficulty 0 is solved by the first nonce.
    expect(await solve("x", 0)).toBe("x:0");
  });

  it("stops when the search went stale (a reset)", async () => {
    await expect(solve("abc", 40, () => true)).rejects.toThrow();
  });
});

describe("the captcha widget", () => {
  it("ticks, verifies, resets with a new challenge, and is compact in a narrow container", async () => {
    page(`<div class="captcha-container"></div>`);
    const api = routeFetch({
      [CHALLENGE]: [
        { body: { provider: "proof-of-work", challenge: "one.9.4.s", difficulty: 4 } },
        { body: { provider: "proof-of-work", challenge: "two.9.4.s", difficulty: 4 } },
      ],
    });
    const seen: (string | null)[] = [];
    const c = mountCaptcha(document.querySelector(".captcha-container")!, (t) => seen.push(t));
    // jsdom lays nothing out: a width of 0 is narrower than 320 px.
    expect(document.querySelector(".tessera-captcha-compact")).not.toBeNull();
    // No challenge until the visitor starts.
    await settle();
    expect(api.calls).toHaveLength(0);
    expect(c.token()).toBeNull();
    box().click();
    expect(status()).toBe(fm.VERIFYING);
    expect(box().getAttribute("aria-busy")).toBe("true");
    await until(() => c.token() !== null, "a token");
    expect(status()).toBe(fm.VERIFIED);
    expect(c.token()!.startsWith("one.9.4.s:")).toBe(true);
    expect(meets(c.token()!, 4)).toBe(true);
    // Ticked stays ticked.
    box().click();
    expect(box().checked).toBe(true);
    c.reset();
    await settle();
    expect(box().checked).toBe(false);
    expect(status()).toBe("");
    expect(c.token()).toBeNull();
    expect(api.calls).toHaveLength(2);
    box().click();
    await until(() => c.token() !== null, "a second token");
    expect(c.token()!.startsWith("two.9.4.s:")).toBe(true);
    expect(seen.map((t) => t && t.split(":")[0])).toEqual(["one.9.4.s", null, "two.9.4.s"]);
    c.showError(fm.CAPTCHA_REQUIRED);
    expect(document.querySelector(".tessera-captcha-error")!.textContent).toBe("Complete CAPTCHA before submitting.");
    expect(box().getAttribute("aria-describedby")).toContain(document.querySelector(".tessera-captcha-error")!.id);
    c.destroy();
    expect(document.querySelector(".captcha-container")!.childElementCount).toBe(0);
  });

  it("a challenge that cannot be fetched unticks and says why", async () => {
    page(`<div class="captcha-container"></div>`);
    routeFetch({ [CHALLENGE]: { network: true } });
    const c = mountCaptcha(document.querySelector(".captcha-container")!);
    box().click();
    await until(() => document.querySelector(".tessera-captcha-error") !== null, "the problem");
    expect(document.querySelector(".tessera-captcha-error")!.textContent).toBe(m.CHECK_CONNECTION);
    expect(box().checked).toBe(false);
    expect(c.token()).toBeNull();
  });

  it("with reCAPTCHA, Google's box stands in for ours: light, compact, its response the token", async () => {
    page(`<div class="captcha-container"></div>`);
    routeFetch({ [CHALLENGE]: { body: { provider: "recaptcha", siteKey: "site-key-1" } } });
    const options: Record<string, any>[] = [];
    const reset = vi.fn();
    window.grecaptcha = {
      render: (_el: HTMLElement, o: Record<string, unknown>) => {
        options.push(o);
        return 7;
      },
      reset,
    };
    const c = mountCaptcha(document.querySelector(".captcha-container")!);
    c.prepare();
    await until(() => options.length === 1, "Google's box");
    expect(document.querySelector(".tessera-captcha-check")).toBeNull();
    expect(options[0]).toMatchObject({ sitekey: "site-key-1", theme: "light", size: "compact" });
    options[0].callback("g-token");
    expect(c.token()).toBe("g-token");
    options[0]["expired-callback"]();
    expect(c.token()).toBeNull();
    options[0].callback("g-token-2");
    c.reset();
    expect(reset).toHaveBeenCalledWith(7);
    expect(c.token()).toBeNull();
  });

  it("rejects with SPEC's message when Google's script brings no grecaptcha", async () => {
    page("");
    const loading = loadRecaptcha();
    const script = document.head.querySelector<HTMLScriptElement>("script[src^='https://www.google.com/recaptcha/api.js']")!;
    expect(script.src).toContain("render=explicit");
    window.tesseraRecaptchaLoaded!();
    await expect(loading).rejects.toThrow("ReCaptcha has not been set up!");
    script.remove();
  });
});
