import { afterEach, describe, expect, it } from "vitest";
import { confirmModal } from "../src/shared/modal";
import { settle } from "./helpers";

afterEach(() => document.querySelectorAll(".tessera-modal-host").forEach((h) => h.remove()));

function press(key: string, shift = false) {
  document.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey: shift, bubbles: true }));
}

function buttons() {
  return Array.from(document.querySelectorAll<HTMLButtonElement>(".tessera-modal button"));
}

describe("the confirm modal", () => {
  it("is true on confirm, false on cancel, and closes itself", async () => {
    const yes = confirmModal({ title: "Remove?", message: "Remove the item?" });
    await settle();
    expect(document.querySelector('[role="dialog"]')!.getAttribute("aria-label")).toBe("Remove?");
    buttons().find((b) => b.textContent === "OK")!.click();
    expect(await yes).toBe(true);
    expect(document.querySelector(".tessera-modal")).toBeNull();
    const no = confirmModal({ title: "Remove?" });
    await settle();
    buttons().find((b) => b.textContent === "Cancel")!.click();
    expect(await no).toBe(false);
  });

  it("Escape cancels; a non-cancellable one ignores it and has no close button", async () => {
    const a = confirmModal({ title: "Sure?" });
    await settle();
    press("Escape");
    expect(await a).toBe(false);
    const b = confirmModal({ title: "Must", cancellable: false });
    await settle();
    press("Escape");
    expect(document.querySelector(".tessera-modal")).not.toBeNull();
    expect(document.querySelector(".tessera-modal-close")).toBeNull();
    expect(buttons().map((x) => x.textContent)).toEqual(["OK"]);
    buttons()[0].click();
    expect(await b).toBe(true);
  });

  it("can stay open after the answer until closed", async () => {
    const c = confirmModal({ title: "Wait", closeOnAnswer: false });
    await settle();
    buttons().find((b) => b.textContent === "OK")!.click();
    expect(await c).toBe(true);
    expect(document.querySelector(".tessera-modal")).not.toBeNull();
    c.close();
    expect(document.querySelector(".tessera-modal")).toBeNull();
  });

  it("keeps focus inside", async () => {
    confirmModal({ title: "Trap" });
    await settle();
    const items = buttons();
    const last = items[items.length - 1];
    last.focus();
    press("Tab");
    expect(document.activeElement).toBe(items[0]);
    press("Tab", true);
    expect(document.activeElement).toBe(last);
  });
});
