import { fireEvent, render, screen, waitFor } from "@testing-library/preact";
import { describe, expect, it, vi } from "vitest";
import { ApiError } from "../../src/admin/api/client";
import { Confirm } from "../../src/admin/ui/confirm";

describe("Confirm", () => {
  it("runs once while busy, shows a failure in the dialog, then succeeds", async () => {
    let tries = 0;
    let release: () => void = () => {};
    const run = vi.fn(
      () =>
        new Promise<void>((ok, fail) => {
          tries += 1;
          if (tries === 1) fail(new ApiError(503, "The store is busy; try again.", {}));
          else release = ok;
        }),
    );
    const onDone = vi.fn();
    const onClose = vi.fn();
    render(
      <>
        <Confirm title="Delete Journal?" action="Delete" run={run} done="Journal deleted." onClose={onClose} onDone={onDone}>
          <p>The page will be deleted.</p>
        </Confirm>
      </>,
    );
    expect(screen.getByRole("dialog", { name: "Delete Journal?" })).toBeTruthy();
    const del = screen.getByRole("button", { name: "Delete" }) as HTMLButtonElement;
    fireEvent.click(del);
    expect(await screen.findByRole("alert")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("The store is busy; try again.");
    expect(onDone).not.toHaveBeenCalled();
    expect(del.disabled).toBe(false);

    fireEvent.click(del);
    await waitFor(() => expect(del.disabled).toBe(true));
    fireEvent.click(del);
    expect(run).toHaveBeenCalledTimes(2);
    release();
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(onClose).not.toHaveBeenCalled();
  });

  it("keeps: the other button closes without running", () => {
    const run = vi.fn(() => Promise.resolve());
    const onClose = vi.fn();
    render(
      <Confirm title="Remove photo?" action="Remove" keep="Cancel" run={run} onClose={onClose} onDone={() => {}}>
        <p>It leaves the gallery.</p>
      </Confirm>,
    );
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(run).not.toHaveBeenCalled();
  });
});
