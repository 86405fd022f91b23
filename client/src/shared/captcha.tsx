// The captcha of site forms, newsletter blocks and restock sign-ups (SPEC.md §5 "Forms",
// "Restock", §9 "Captcha"), as a checkbox in a container of the host's markup. Which
// provider the server uses comes from `GET /api/captcha/challenge`:
// - proof of work: our own "I'm not a robot" box; ticking it solves the puzzle (shared/pow,
//   loaded then) and the token is `challenge:nonce`;
// - reCAPTCHA: Google's script, loaded on demand, renders its own box; its response is the
//   token.
// The challenge is fetched on `prepare()` (the host calls it when the visitor starts on the
// form) or on the tick, not on page load: most visitors never touch a form. A challenge is
// single use, so `reset()` fetches another.

import { render } from "react-dom";
import { call, failureText } from "./api";
import * as fm from "./messages-forms";
import type { Schemas } from "./types";

export type Challenge = Schemas["CaptchaChallenge"];

export interface Captcha {
  /** What to send as `captchaKey` / `captchaToken`, or null until completed. */
  token(): string | null;
  /** Fetches the challenge ahead of the tick (and shows Google's box for reCAPTCHA). */
  prepare(): void;
  /** Unticks, forgets the token and fetches a new challenge. */
  reset(): void;
  /** Shows a problem at the captcha; null clears it. */
  showError(text: string | null): void;
  /** Takes the captcha off the page (the form it guarded is done). */
  destroy(): void;
}

/** SPEC §9: a compact captcha in a container narrower than this. */
export const COMPACT_BELOW_PX = 320;
/** A challenge lives ten minutes on the server; one older than this is fetched again
 *  before solving, so the token does not expire in flight. */
const FRESH_MS = 5 * 60 * 1000;

interface Grecaptcha {
  render(el: HTMLElement, options: Record<string, unknown>): number;
  reset(id?: number): void;
}

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
    tesseraRecaptchaLoaded?: () => void;
  }
}

let recaptcha: Promise<Grecaptcha> | null = null;

/** Google's script, once per page; rejects with SPEC's "ReCaptcha has not been set up!"
 *  when it does not bring `grecaptcha`. */
export function loadRecaptcha(): Promise<Grecaptcha> {
  if (window.grecaptcha?.render) return Promise.resolve(window.grecaptcha);
  recaptcha ??= new Promise<Grecaptcha>((resolve, reject) => {
    const fail = () => {
      recaptcha = null;
      reject(new Error(fm.RECAPTCHA_NOT_SET_UP));
    };
    window.tesseraRecaptchaLoaded = () => (window.grecaptcha?.render ? resolve(window.grecaptcha) : fail());
    const s = document.createElement("script");
    s.src = "https://www.google.com/recaptcha/api.js?onload=tesseraRecaptchaLoaded&render=explicit";
    s.async = true;
    s.onerror = fail;
    document.head.appendChild(s);
  });
  return recaptcha;
}

type State = "idle" | "verifying" | "verified";

interface View {
  state: State;
  error: string | null;
  /** False once Google's box stands in for ours. */
  ownBox: boolean;
  compact: boolean;
}

function Box({ view, id, onTick }: { view: View; id: string; onTick: () => void }) {
  const status = view.state === "verifying" ? fm.VERIFYING : view.state === "verified" ? fm.VERIFIED : "";
  return (
    <div class={`tessera-captcha${view.compact ? " tessera-captcha-compact" : ""}`}>
      {view.error && (
        <p id={`${id}-error`} class="tessera-error tessera-captcha-error" role="alert">
          {view.error}
        </p>
      )}
      {view.ownBox && (
        <label class={`tessera-captcha-box tessera-captcha-${view.state}`}>
          <input
            type="checkbox"
            class="tessera-captcha-check"
            checked={view.state !== "idle"}
            aria-busy={view.state === "verifying" ? "true" : undefined}
            aria-invalid={view.error ? "true" : undefined}
            aria-describedby={[view.error && `${id}-error`, `${id}-status`].filter(Boolean).join(" ")}
            onClick={(e) => {
              // Once ticked it stays ticked: only a reset unticks it.
              if (view.state !== "idle") e.preventDefault();
              else onTick();
            }}
          />
          <span class="tessera-captcha-label">{fm.NOT_A_ROBOT}</span>
          <span id={`${id}-status`} class="tessera-captcha-status" role="status">
            {status}
          </span>
        </label>
      )}
    </div>
  );
}

let count = 0;

/** Puts a captcha in `container`; `onChange` hears the token come and go. */
export function mountCaptcha(container: HTMLElement, onChange: (token: string | null) => void = () => {}): Captcha {
  const id = `tessera-captcha-${++count}`;
  const box = document.createElement("div");
  const google = document.createElement("div");
  container.replaceChildren(box, google);
  let view: View = { state: "idle", error: null, ownBox: true, compact: container.clientWidth < COMPACT_BELOW_PX };
  let token: string | null = null;
  // Bumped by reset and destroy: work started before is dropped when it finishes.
  let generation = 0;
  let pending: { at: number; answer: Promise<Challenge> } | null = null;
  let widget: number | null = null;
  let destroyed = false;

  const show = (change: Partial<View>) => {
    view = { ...view, ...change };
    if (!destroyed) render(<Box view={view} id={id} onTick={tick} />, box);
  };
  const setToken = (t: string | null) => {
    token = t;
    onChange(t);
  };

  const challenge = (): Promise<Challenge> => {
    if (!pending || Date.now() - pending.at > FRESH_MS) {
      const answer = call<Challenge>("GET", "/api/captcha/challenge");
      pending = { at: Date.now(), answer };
      // A failed fetch is not kept: the next tick asks again.
      answer.catch(() => {
        if (pending?.answer === answer) pending = null;
      });
    }
    return pending.answer;
  };

  const useGoogle = async (siteKey: string) => {
    if (!view.ownBox) return;
    show({ ownBox: false, state: "idle" });
    try {
      const g = await loadRecaptcha();
      if (destroyed) return;
      widget = g.render(google, {
        sitekey: siteKey,
        theme: "light",
        size: view.compact ? "compact" : "normal",
        callback: (t: string) => {
          show({ error: null });
          setToken(t);
        },
        "expired-callback": () => setToken(null),
      });
    } catch (e) {
      // SPEC §8: a failed captcha render logs an error; the visitor is told too, since
      // they cannot submit without it.
      console.error(e);
      show({ error: e instanceof Error ? e.message : fm.RECAPTCHA_NOT_SET_UP });
    }
  };

  const prepare = () => {
    if (destroyed || !view.ownBox) return;
    challenge()
      .then((c) => {
        if (c.provider === "recaptcha") void useGoogle(c.siteKey);
      })
      .catch(() => {
        // Said on the tick, when the visitor is looking at the box.
      });
  };

  async function tick() {
    if (view.state !== "idle") return;
    const mine = generation;
    show({ state: "verifying", error: null });
    try {
      const c = await challenge();
      if (mine !== generation) return;
      if (c.provider === "recaptcha") {
        await useGoogle(c.siteKey);
        return;
      }
      const { solve } = await import("./pow");
      const t = await solve(c.challenge, c.difficulty, () => mine !== generation);
      if (mine !== generation) return;
      // Single use: the next token needs a new challenge.
      pending = null;
      show({ state: "verified" });
      setToken(t);
    } catch (e) {
      if (mine !== generation) return;
      show({ state: "idle", error: failureText(e) });
    }
  }

  show({});
  return {
    token: () => token,
    prepare,
    reset() {
      if (destroyed) return;
      generation++;
      pending = null;
      if (widget !== null) window.grecaptcha?.reset(widget);
      show({ state: "idle" });
      setToken(null);
      prepare();
    },
    showError: (text) => show({ error: text }),
    destroy() {
      generation++;
      render(null, box);
      destroyed = true;
      container.replaceChildren();
    },
  };
}
