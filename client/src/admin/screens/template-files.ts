// A template folder as the upload's `files`, from a folder picked in the browser
// (`<input type=file webkitdirectory>`) or a zip of one (read here with fflate, bounded
// before anything is inflated). Hidden files and folders (`.git`, `.DS_Store`) and a zip's
// `__MACOSX` are left out; a folder zipped with its own name around it is read from inside.
// Text files go as `text`, the others as `base64`. The server checks the same limits.
import { unzipSync } from "fflate";

/** What `POST /api/owner/template/versions` takes: `text` or `base64` for each path. */
export interface UploadFile {
  path: string;
  text?: string;
  base64?: string;
}

/** The server's limits: at most 2000 files, 20 MB in all (SPEC.md §9: 1 MB is 1,000,000 bytes). */
export const MAX_FILES = 2000;
export const MAX_BYTES = 20_000_000;

export const TOO_MANY_FILES = "A template has at most 2000 files.";
export const TOO_LARGE = "A template has at most 20 MB of files.";
export const NOT_A_ZIP = "That file is not a zip we can read.";
export const NO_FILES = "That folder has no files to upload.";

/** A reading that did not give a folder to upload. */
export class FolderError extends Error {}

/** Whether a path (inside the folder) is one to leave out. */
function hidden(path: string): boolean {
  return path.split("/").some((part) => part.startsWith(".") || part === "__MACOSX");
}

/** The paths with a common first folder taken off, when there is one and `template.conf`
 *  is not at the top already. */
function unwrap(paths: string[]): (p: string) => string {
  if (paths.includes("template.conf")) return (p) => p;
  const first = paths[0]?.split("/")[0];
  if (first && paths.every((p) => p.startsWith(`${first}/`))) return (p) => p.slice(first.length + 1);
  return (p) => p;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** One file as the upload sends it. */
export function encode(path: string, bytes: Uint8Array): UploadFile {
  try {
    return { path, text: utf8.decode(bytes) };
  } catch {
    return { path, base64: base64(bytes) };
  }
}

function checkBounds(count: number, bytes: number) {
  if (count === 0) throw new FolderError(NO_FILES);
  if (count > MAX_FILES) throw new FolderError(TOO_MANY_FILES);
  if (bytes > MAX_BYTES) throw new FolderError(TOO_LARGE);
}

/** A picked folder's files (each `webkitRelativePath` starts with the folder's own name). */
export async function fromFolder(files: File[]): Promise<UploadFile[]> {
  const named = files
    .map((f) => ({ f, path: (f.webkitRelativePath || f.name).replace(/\\/g, "/") }))
    .filter(({ path }) => !hidden(path));
  const strip = unwrap(named.map((n) => n.path));
  checkBounds(
    named.length,
    named.reduce((n, { f }) => n + f.size, 0),
  );
  return Promise.all(named.map(async ({ f, path }) => encode(strip(path), new Uint8Array(await f.arrayBuffer()))));
}

/** A zip's files. The count and the sizes its directory declares are bounded before any
 *  file is inflated, and the sizes inflated once more after (the server bounds them too). */
export function fromZip(zip: Uint8Array): UploadFile[] {
  let count = 0;
  let declared = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (f) => {
        if (f.name.endsWith("/") || hidden(f.name)) return false;
        count++;
        declared += f.originalSize;
        checkBounds(count, declared);
        return true;
      },
    });
  } catch (e) {
    if (e instanceof FolderError) throw e;
    throw new FolderError(NOT_A_ZIP);
  }
  const paths = Object.keys(entries);
  const actual = paths.reduce((n, p) => n + entries[p].length, 0);
  checkBounds(paths.length, actual);
  const strip = unwrap(paths);
  return paths.sort().map((p) => encode(strip(p), entries[p]));
}
