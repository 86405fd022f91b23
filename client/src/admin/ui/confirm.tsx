// A confirm before something that cannot be undone (delete, remove, disconnect, cancel):
// the dialog says what will happen, the danger button runs it once (disabled while it
// runs), a failure shows in the dialog so the owner can try again or keep, and success
// is announced to screen readers before the dialog closes.
import { useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api/client";
import { Dialog } from "./dialog";
import { announce, ErrorText } from "./page";

export function Confirm({
  title,
  action,
  keep = "Keep",
  run,
  done,
  onClose,
  onDone,
  children,
}: {
  title: string;
  /** The danger button's label ("Delete", "Remove", …). */
  action: string;
  /** The button that closes without doing it. */
  keep?: string;
  run: () => Promise<unknown>;
  /** What is announced once it is done, if anything. */
  done?: string;
  onClose: () => void;
  onDone: () => void;
  /** What will happen. */
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A second click before the first run ends (a double click) does nothing.
  const running = useRef(false);
  const go = async () => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    try {
      await run();
      if (done) announce(done);
      onDone();
    } catch (e) {
      setError((e as ApiError).message);
      setBusy(false);
      running.current = false;
    }
  };
  return (
    <Dialog title={title} onClose={onClose}>
      {children}
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void go()}>
          {action}
        </button>
        <button type="button" onClick={onClose}>
          {keep}
        </button>
      </div>
    </Dialog>
  );
}
