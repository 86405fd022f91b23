// The form scenarios `store.mjs` runs on each backend: quillback's repair booking form and
// newsletter block with the site-form island (problems, then the submission message), the
// same two posted by a browser with JavaScript off (the server's answer page), and
// loam-lantern's restock sign-up on sold-out variants with the captcha. In SPEC.md's words.

import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { choose, eventually } from "./store-scenarios.mjs";
import { inPage } from "./checkout-scenarios.mjs";
import { axe } from "./access-scenarios.mjs";

const Q = "quillback";
const LOAM = "loam-lantern";
const SNIPS = "/shop/bypass-pruning-snips"; // one variant, BPS-1, sold out
const POT = "/shop/fern-terracotta-pot"; // Size: Large, 22 cm (FTP-L) sold out
const BOOKING_THANKS = "Thanks! We reply within one working day with a drop-off time.";
const NEWSLETTER_THANKS = "You're on the list. One e-mail a month, never more.";
const RESTOCK = "/api/site-users/account/notifications/restock";
/** The owner's token `store.mjs` starts the server with (`--owner-token`). */
export const OWNER_TOKEN = "e2e-owner-token-0123456789";
/** The captcha difficulty `store.mjs` starts the server with: quick, still real hashing. */
export const CAPTCHA_DIFFICULTY = "8";

/** Opens `path` on `tenant`'s host and waits for `ready` (an island's mark). */
async function visit(context, server, tenant, path, ready) {
  const page = await context.newPage();
  const res = await page.goto(server.origin(tenant) + path, { waitUntil: "load" });
  if (!res || res.status() !== 200) throw new Error(`${tenant}${path} answered ${res?.status()}`);
  if (ready) await page.locator(ready).first().waitFor({ timeout: 8000 });
  return page;
}

/** Each shown field problem with the title it sits above: [[title, message], …]. */
const fieldProblems = (page) =>
  page.$$eval(".form-field-error", (els) =>
    els.map((e) => {
      const title = e.parentElement.tagName === "LEGEND" ? e.parentElement : e.nextElementSibling;
      const text = title.textContent.replace(e.textContent, "").replace("*", "").trim();
      return [text, e.textContent];
    }),
  );

async function fillBooking(page, { service = true } = {}) {
  await page.fill("#fname", "Ada");
  await page.fill("#lname", "Lovelace");
  await page.fill("#email", "ada@example.com");
  await page.selectOption("#bike", "Gravel or touring");
  if (service) await page.check("input[name=service][value='Full overhaul']");
  await page.fill("#dropoff", "2030-05-02");
  await page.fill("#details", "Clicks when pedalling hard uphill.");
}

/** A GET of an owner route, with the owner's token, straight to the server. */
function ownerGet(server, tenant, path) {
  const { hostname, port } = new URL(server.origin(tenant));
  const headers = { host: `${hostname}:${port}`, authorization: `Bearer ${OWNER_TOKEN}` };
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, headers }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode, body: body ? JSON.parse(body) : null }));
      })
      .on("error", reject);
  });
}

/** The mail a site sent so far (the server's outbox: one mbox per site in its data dir). */
const mailOf = (server, tenant) => {
  const file = path.join(server.dataDir, "outbox", `${tenant}.mbox`);
  return existsSync(file) ? readFileSync(file, "utf8") : "";
};

/** Ticks the proof-of-work captcha in `scope` and waits until it is solved. */
async function tickCaptcha(scope) {
  await scope.locator(".tessera-captcha-check").click();
  await eventually(() => scope.locator(".tessera-captcha-status").innerText(), (t) => t === "Verified", "the captcha verified", 15000);
}

/** Signs up `email` in the restock block `block` (a locator), captcha and all; returns the
 *  call's request body. */
async function signUp(page, block, email, assert) {
  await block.locator("input[name=email]").fill(email);
  await tickCaptcha(block);
  const answered = page.waitForResponse((r) => r.url().endsWith(RESTOCK) && r.request().method() === "POST");
  await block.locator("input[type=submit]").click();
  const res = await answered;
  assert.equal(res.status(), 200, `the sign-up answered ${res.status()}: ${await res.text()}`);
  return res.request().postDataJSON();
}

/** The success text the page data names, else SPEC's "Signed up!". */
const successText = (page) =>
  page.evaluate(() => {
    const t = JSON.parse(document.getElementById("tessera-data")?.textContent || "{}").restockSuccessText;
    return typeof t === "string" && t.trim() ? t : "Signed up!";
  });

export const formScenarios = [
  [
    "forms: quillback's booking form shows every problem when empty, then the submission message",
    async ({ context, server, assert }) => {
      // The counter shows once the island has the form's definition.
      const page = await visit(context, server, Q, "/contact", "form[data-form-id] .tessera-counter");
      assert.equal(await page.locator(".tessera-counter").innerText(), "0 / 1000");
      await page.click("form[data-form-id] button[type=submit]");
      await page.locator(".form-field-error").first().waitFor();
      assert.deepEqual(await fieldProblems(page), [
        ["Name", "Required"],
        ["Email", "Required"],
        ["Kind of bicycle", "Required"],
        ["What does it need?", "Required"],
      ]);
      assert.equal(
        await page.locator(".tessera-form-message-above").innerText(),
        "Your form has encountered a problem. Please scroll down to review.",
      );
      assert.equal(
        await page.locator(".tessera-form-message-below").innerText(),
        "Your form has encountered a problem. Please scroll up to review.",
      );
      assert.equal(await page.getAttribute("#email", "aria-invalid"), "true");
      assert.deepEqual(await axe(page), [], "the booking form with its problems");
      // A wrong email is named by the island as the server would.
      await page.fill("#email", "ada@example");
      await page.click("form[data-form-id] button[type=submit]");
      await eventually(
        () => fieldProblems(page),
        (p) => p.some(([t, m]) => t === "Email" && m === "Email is not valid. Email addresses should follow the format user@domain.com."),
        "the email problem",
      );

      await fillBooking(page);
      assert.equal(await page.locator(".tessera-counter").innerText(), "34 / 1000");
      const saved = page.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
      await page.click("form[data-form-id] button[type=submit]");
      const res = await saved;
      const answer = await res.json();
      assert.equal(res.status(), 200, JSON.stringify(answer));
      assert.equal(answer.success, true, JSON.stringify(answer));
      const sent = res.request().postDataJSON();
      assert.deepEqual(JSON.parse(sent.form), {
        name: ["Ada", "Lovelace"],
        email: "ada@example.com",
        phone: [""],
        bike: "Gravel or touring",
        service: "Full overhaul",
        dropoff: "2030-05-02",
        details: "Clicks when pedalling hard uphill.",
        source: "contact-page",
      });
      assert.equal(sent.pagePath, "/contact");
      assert.equal(sent.contentSource, "c");
      await page.locator(".tessera-form-success").waitFor();
      assert.equal(await page.locator(".tessera-form-success").innerText(), BOOKING_THANKS);
      assert.equal(await page.locator("form[data-form-id]").isHidden(), true);
      assert.equal(await page.locator(".form-field-error, .tessera-form-message").count(), 0);

      // Again from a link with ?source=: the hidden field takes the page's parameter, and a
      // second submission (a new key) is taken too.
      const again = await visit(context, server, Q, "/contact?source=spring-flyer", "form[data-form-id] .tessera-counter");
      await fillBooking(again);
      const second = again.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
      await again.click("form[data-form-id] button[type=submit]");
      const res2 = await second;
      assert.equal(res2.status(), 200);
      assert.equal(JSON.parse(res2.request().postDataJSON().form).source, "spring-flyer");
      assert.notEqual(res2.request().postDataJSON().key, sent.key, "each submission has its own key");
      await again.locator(".tessera-form-success").waitFor();

      // Both were stored and mailed to the shop (the form's storage email), answers and all.
      const mail = await eventually(
        () => mailOf(server, Q),
        (t) => t.includes("source: spring-flyer"),
        "the submissions in the shop's mail",
      );
      for (const line of ["Name: Ada Lovelace", "What does it need?: Full overhaul", "Kind of bicycle: Gravel or touring", "source: contact-page"]) {
        assert.ok(mail.includes(line), `the mail has "${line}"`);
      }
    },
  ],
  [
    "forms: quillback's newsletter block on the home page",
    async ({ context, server, assert }) => {
      const page = await visit(context, server, Q, "/", "form.newsletter-form[data-tessera-mounted]");
      const signUp = page.locator("form.newsletter-form button[type=submit]");
      await signUp.click();
      await eventually(() => fieldProblems(page), (p) => p.length > 0, "the newsletter's problem");
      assert.deepEqual(await fieldProblems(page), [["Email address", "Required"]]);
      assert.equal(await page.locator(".tessera-form-message-above").count(), 1);
      // The block alone: the page's other blocks are the template's.
      const block = { include: [[".newsletter-form-wrapper"]] };
      assert.deepEqual(await axe(page, block), [], "the newsletter with its problem");
      await page.fill("#newsletter-email", "rider@example.com");
      const saved = page.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
      await signUp.click();
      const res = await saved;
      const answer = await res.json();
      assert.equal(res.status(), 200, JSON.stringify(answer));
      assert.equal(answer.newsletter, true, JSON.stringify(answer));
      await page.locator(".tessera-form-success").waitFor();
      assert.equal(await page.locator(".tessera-form-success").innerText(), NEWSLETTER_THANKS);
      assert.equal(await page.locator("form.newsletter-form").isHidden(), true);
    },
  ],
  [
    "forms without JavaScript: the booking form and the newsletter post and get the server's page",
    async ({ context, server, assert }) => {
      const nojs = await context.browser().newContext({ javaScriptEnabled: false });
      try {
        const page = await nojs.newPage();
        await page.goto(server.origin(Q) + "/contact", { waitUntil: "load" });
        // The radio group has no `required` the browser could check: the server finds it.
        await fillBooking(page, { service: false });
        const refused = page.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
        await page.click("form[data-form-id] button[type=submit]");
        assert.equal((await refused).status(), 400);
        await page.waitForLoadState("load");
        const problem = await page.locator(".form-errors li").allInnerTexts();
        assert.ok(
          problem.some((t) => t.includes("What does it need?") && t.includes("Required")),
          `the answer page lists the radio group's problem: ${JSON.stringify(problem)}`,
        );
        assert.equal(problem.length, 1, `only the missing answer: ${JSON.stringify(problem)}`);

        await page.goto(server.origin(Q) + "/contact", { waitUntil: "load" });
        await fillBooking(page);
        const taken = page.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
        await page.click("form[data-form-id] button[type=submit]");
        assert.equal((await taken).status(), 200);
        await page.waitForLoadState("load");
        assert.match(await page.locator("body").innerText(), new RegExp(BOOKING_THANKS.replace(/[.!]/g, "\\$&")));

        await page.goto(server.origin(Q) + "/", { waitUntil: "load" });
        await page.fill("#newsletter-email", "quiet@example.com");
        const joined = page.waitForResponse((r) => r.url().endsWith("/api/form/SaveFormSubmission"));
        await page.click("form.newsletter-form button[type=submit]");
        assert.equal((await joined).status(), 200);
        await page.waitForLoadState("load");
        assert.ok((await page.locator("body").innerText()).includes(NEWSLETTER_THANKS), "the newsletter's message");
      } finally {
        await nojs.close();
      }
    },
  ],
  [
    "restock: signing up for a sold-out product, with the captcha, and the owner sees it",
    async ({ context, server, assert }) => {
      const page = await visit(context, server, LOAM, SNIPS, ".product-restock-notification .tessera-captcha-check");
      const block = page.locator(".product-restock-notification");
      const submit = block.locator("input[type=submit]");
      const message = block.locator(".product-restock-message");
      await submit.click();
      assert.equal(await message.innerText(), "Email cannot be blank");
      await block.locator("input[name=email]").fill("ada@example");
      await submit.click();
      assert.equal(await message.innerText(), "Email is invalid");
      await block.locator("input[name=email]").fill("ada@example.com");
      await submit.click();
      assert.equal(await block.locator(".tessera-captcha-error").innerText(), "Complete CAPTCHA before submitting.");
      assert.equal(await message.isHidden(), true);
      assert.deepEqual(await axe(page), [], "the restock sign-up with a captcha problem");

      const sent = await signUp(page, block, "ada@example.com", assert);
      const itemId = await block.getAttribute("data-product-id");
      assert.deepEqual(
        { ...sent, captchaToken: typeof sent.captchaToken },
        { productId: itemId, variantId: "BPS-1", siteVisitorEmail: "ada@example.com", isJoinMailingList: false, captchaToken: "string" },
      );
      await block.locator(".product-restock-success").waitFor();
      assert.equal(await block.locator(".product-restock-success").innerText(), await successText(page));
      assert.equal(await block.locator("form, .tessera-captcha").count(), 0, "the form and captcha are gone");

      // A captcha token works once.
      const replay = await inPage(page, "POST", RESTOCK, { ...sent, siteVisitorEmail: "bob@example.com" });
      assert.equal(replay.status, 400);
      assert.equal(replay.body.message, "reCAPTCHA failed. Refresh this page and try again.");

      const listed = await ownerGet(server, LOAM, `${RESTOCK}?productId=${itemId}&variantId=BPS-1`);
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      const emails = listed.body.signUps.map((s) => s.email ?? s.siteVisitorEmail);
      assert.deepEqual(emails, ["ada@example.com"]);
    },
  ],
  [
    "restock: a pot's sold-out size shows its sign-up once chosen",
    async ({ context, server, assert }) => {
      const page = await visit(context, server, LOAM, POT, ".product-variants");
      const block = page.locator('.product-restock-notification[data-variant-id="FTP-L"]');
      await block.waitFor({ state: "attached" });
      assert.equal(await block.isHidden(), true, "hidden until chosen");
      await choose(page, { Size: "Large, 22 cm" });
      await eventually(() => block.isVisible(), (v) => v, "the Large pot's sign-up showing");
      await choose(page, { Size: "Small, 10 cm" });
      await eventually(() => block.isHidden(), (h) => h, "the sign-up hidden for an in-stock size");
      await choose(page, { Size: "Large, 22 cm" });
      await block.locator(".tessera-captcha-check").waitFor();
      const sent = await signUp(page, block, "grower@example.com", assert);
      assert.equal(sent.variantId, "FTP-L");
      await block.locator(".product-restock-success").waitFor();
      assert.equal(await block.locator(".product-restock-success").innerText(), await successText(page));
    },
  ],
];
