// Session-recording eligibility (SPEC.md §9 "Session recording"): only for sites in the US
// or its territories, in a time zone starting with "America", on a device with at least
// three CPU cores, with both the feature toggle and the sampling experiment on; and the
// recording id the server hands out must not be the mock id "automated-mock-id", which
// means skip.

export const US_TERRITORIES = ["US", "PR", "GU", "VI", "MP", "AS", "UM"];
export const MOCK_ID = "automated-mock-id";
export const ID_PATH = "/api/commerce/fullstory/getId";
export const MIN_CORES = 3;

export interface Facts {
  country: string | null | undefined;
  timeZone: string | null | undefined;
  cores: number | undefined;
  toggle: boolean;
  sampled: boolean;
}

export function eligible(f: Facts): boolean {
  return (
    US_TERRITORIES.includes((f.country ?? "").toUpperCase()) &&
    (f.timeZone ?? "").startsWith("America") &&
    (f.cores ?? 0) >= MIN_CORES &&
    f.toggle &&
    f.sampled
  );
}

/** The recording id, or null: not eligible, the mock id, or no answer. */
export async function recordingId(f: Facts): Promise<string | null> {
  if (!eligible(f)) return null;
  try {
    const r = await fetch(ID_PATH, { credentials: "same-origin" });
    if (!r.ok) return null;
    const body = await r.json();
    const id = typeof body.id === "string" ? body.id : null;
    return id && id !== MOCK_ID ? id : null;
  } catch {
    return null;
  }
}
