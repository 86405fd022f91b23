// After a list is reordered and drawn again, the moved row keeps the focus: the same
// control it was used from (`data-control`), else the row's fallback control (a Move
// button becomes disabled at the list's end). Shared by the Pages tree and the gallery.
import type { RefObject } from "preact";
import { useEffect, useState } from "preact/hooks";

/** Where the focus goes once `drawn` changes: the row matching `row` (a selector) in the
 *  container, and its `control`. */
export type RowFocus = { row: string; control: string };

/** Returns the setter: call it with the moved row once the move is stored. */
export function useRowFocus(container: RefObject<HTMLElement | null>, drawn: unknown, fallback: string) {
  const [focus, setFocus] = useState<RowFocus | null>(null);
  useEffect(() => {
    if (!focus || !container.current) return;
    const row = container.current.querySelector(focus.row);
    const control =
      row?.querySelector<HTMLElement>(`[data-control="${focus.control}"]:not([disabled])`) ??
      row?.querySelector<HTMLElement>(`[data-control="${fallback}"]`);
    control?.focus();
    setFocus(null);
  }, [focus, drawn]);
  return setFocus;
}
