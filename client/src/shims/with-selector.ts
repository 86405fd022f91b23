// `use-sync-external-store/shim/with-selector` (which Tiptap's React binding imports) on
// preact/compat's own useSyncExternalStore: the package's build is CommonJS that requires
// React proper, which the app never loads. The same memoisation as React's: the selection is
// recomputed only for a new snapshot, and kept when `isEqual` says it did not change.
import { useEffect, useMemo, useRef, useSyncExternalStore } from "preact/compat";

export function useSyncExternalStoreWithSelector<S, T>(
  subscribe: (onChange: () => void) => () => void,
  getSnapshot: () => S,
  _getServerSnapshot: (() => S) | undefined | null,
  selector: (snapshot: S) => T,
  isEqual?: (a: T, b: T) => boolean,
): T {
  const kept = useRef<{ has: boolean; value: T } | null>(null);
  if (kept.current === null) kept.current = { has: false, value: undefined as T };
  const inst = kept.current;
  const getSelection = useMemo(() => {
    let memo = false;
    let lastSnapshot: S;
    let lastSelection: T;
    const select = (next: S): T => {
      if (!memo) {
        memo = true;
        lastSnapshot = next;
        const selection = selector(next);
        if (isEqual !== undefined && inst.has && isEqual(inst.value, selection)) {
          lastSelection = inst.value;
          return inst.value;
        }
        lastSelection = selection;
        return selection;
      }
      if (Object.is(lastSnapshot, next)) return lastSelection;
      const selection = selector(next);
      lastSnapshot = next;
      if (isEqual !== undefined && isEqual(lastSelection, selection)) return lastSelection;
      lastSelection = selection;
      return selection;
    };
    return () => select(getSnapshot());
  }, [getSnapshot, selector, isEqual]);
  const value = useSyncExternalStore(subscribe, getSelection);
  useEffect(() => {
    inst.has = true;
    inst.value = value;
  }, [value]);
  return value;
}
