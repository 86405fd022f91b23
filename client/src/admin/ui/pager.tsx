// Keyset paging: the list's `next` cursor goes in the address (`after=`), and the cursors
// of the pages before are kept so "Previous" goes back one page at a time.
import { useState } from "preact/hooks";

export function usePages(after: string, go: (after: string) => void) {
  const [back, setBack] = useState<string[]>([]);
  return {
    next: (cursor: string) => {
      setBack([...back, after]);
      go(cursor);
    },
    previous: after
      ? () => {
          const before = back.at(-1) ?? "";
          setBack(back.slice(0, -1));
          go(before);
        }
      : null,
  };
}

export function Pager({
  next,
  onNext,
  onPrevious,
  label,
}: {
  next: string | null;
  onNext: (cursor: string) => void;
  onPrevious: (() => void) | null;
  label: string;
}) {
  if (!next && !onPrevious) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={!onPrevious} onClick={() => onPrevious?.()}>
        Previous
      </button>
      <button type="button" disabled={!next} onClick={() => next && onNext(next)}>
        Next
      </button>
    </nav>
  );
}
