// A screen's filters in the address's query (so a filtered list can be linked to, and
// Back works), and a screen's one call.
import { useCallback, useEffect, useState } from "preact/hooks";
import { useLocation, useSearch } from "wouter";
import { ApiError, get } from "../api/client";

export function useQuery(): [URLSearchParams, (changes: Record<string, string>) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const set = (changes: Record<string, string>) => {
    // From the address as it is now (two changes in one tick each see the other).
    const next = new URLSearchParams(window.location.search);
    for (const [k, v] of Object.entries(changes)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const s = next.toString();
    navigate(s ? `${location}?${s}` : location);
  };
  return [params, set];
}

/** `GET path` whenever it changes (nothing while it is ""): the data, the failure, and a
 *  way to load it again. */
export function useGet<T>(path: string) {
  const [state, setState] = useState<{ path: string; data: T | null; error: string | null }>({
    path,
    data: null,
    error: null,
  });
  const load = useCallback(() => {
    if (!path) return;
    let live = true;
    setState((s) => ({ path, data: s.path === path ? s.data : null, error: null }));
    get<T>(path).then(
      (data) => live && setState({ path, data, error: null }),
      (e: ApiError) => live && setState({ path, data: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  useEffect(load, [load]);
  const loading = !!path && (state.path !== path || (state.data === null && state.error === null));
  return { data: state.path === path ? state.data : null, error: state.error, loading, reload: load, setData: (data: T) => setState({ path, data, error: null }) };
}
