// Templates: the site's template versions and the upload of a new one. An upload (a folder
// picked in the browser, or a zip of it) is checked and stored without switching
// (`POST /api/owner/template/versions`); its problems show as `file:line:col` with the
// line they point at, and nothing changes on the site. A stored version is switched to
// (`POST …/versions/{version}/switch`) after a confirmation, and an earlier one rolled back
// to the same way. The screen's data: `GET /api/owner/template/versions`.
import { useId, useState } from "preact/hooks";
import { ApiError, post } from "../api/client";
import type { TemplateProblem, TemplateUploaded, TemplateVersion, TemplateVersions } from "../api/types";
import { canWrite, useSession } from "../session";
import { Dialog } from "../ui/dialog";
import { count, dateTime } from "../ui/format";
import { announce, Empty, ErrorText, Heading, Loading } from "../ui/page";
import { useGet } from "../ui/query";
import { FolderError, fromFolder, fromZip, type UploadFile } from "./template-files";

const VERSIONS = "/api/owner/template/versions";

/** Bytes as people read them (1 MB is 1,000,000 bytes). */
export function size(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1_000) return `${Math.round(bytes / 1_000)} kB`;
  return `${bytes} bytes`;
}

/** `file:line:col`, or the file alone for a problem about the whole file. */
export function place(p: TemplateProblem): string {
  return p.line > 0 ? `${p.file}:${p.line}:${p.column}` : p.file;
}

type Outcome =
  | { kind: "stored"; uploaded: TemplateUploaded }
  | { kind: "refused"; message: string; problems: TemplateProblem[] };

export default function Templates() {
  const { me } = useSession();
  const writable = canWrite(me, "design");
  const { data, error, loading, reload } = useGet<TemplateVersions>(VERSIONS);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [switching, setSwitching] = useState<TemplateVersion | null>(null);
  return (
    <>
      <Heading title="Templates">Templates</Heading>
      <p>
        The template is the site's design: its pages, regions, blocks and styles. An upload is checked first and
        stored beside the version the site serves; switch to it when you are ready, and roll back to an earlier
        version the same way.{" "}
        <a href="/" target="_blank" rel="noopener">
          View the site
        </a>{" "}
        (opens in a new tab).
      </p>
      <ErrorText message={error} />
      {loading && <Loading what="template versions" />}
      {writable && (
        <Upload
          onOutcome={(o) => {
            setOutcome(o);
            if (o.kind === "stored") reload();
          }}
        />
      )}
      {outcome?.kind === "refused" && <Problems message={outcome.message} problems={outcome.problems} />}
      {outcome?.kind === "stored" && data && (
        <Stored
          uploaded={outcome.uploaded}
          live={data.active === outcome.uploaded.templateVersion}
          onSwitch={() => {
            const v = data.versions.find((x) => x.version === outcome.uploaded.templateVersion);
            if (v) setSwitching(v);
          }}
          writable={writable}
        />
      )}
      {data && <VersionTable data={data} writable={writable} onSwitch={setSwitching} />}
      {switching && data && (
        <Switch
          version={switching}
          active={data.active ?? null}
          onClose={() => setSwitching(null)}
          onDone={() => {
            setSwitching(null);
            reload();
          }}
        />
      )}
    </>
  );
}

/** The upload: a folder or a zip, checked and stored on "Upload and check". */
function Upload({ onOutcome }: { onOutcome: (o: Outcome) => void }) {
  const id = useId();
  const [files, setFiles] = useState<UploadFile[] | null>(null);
  const [what, setWhat] = useState("");
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = async (read: () => Promise<UploadFile[]>, name: string) => {
    setFieldError(null);
    setFiles(null);
    try {
      const f = await read();
      setFiles(f);
      setWhat(`${name}: ${count(f.length)} ${f.length === 1 ? "file" : "files"}`);
    } catch (e) {
      setFieldError(e instanceof FolderError ? e.message : String(e));
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!files) {
      setFieldError("Choose a template folder or a zip of one first.");
      return;
    }
    setBusy(true);
    setFieldError(null);
    try {
      const uploaded = await post<TemplateUploaded>(VERSIONS, { files });
      announce(`Version ${uploaded.templateVersion} is checked and stored. The site still serves the version it had.`);
      onOutcome({ kind: "stored", uploaded });
    } catch (err) {
      const a = err as ApiError;
      const findings: TemplateProblem[] | undefined = a.body?.findings;
      if (findings) {
        announce(`The upload has ${findings.length} ${findings.length === 1 ? "problem" : "problems"}.`);
        onOutcome({ kind: "refused", message: a.message, problems: findings });
      } else {
        // A body the server refused by field: `files[3].path` names a file of ours.
        const [field, message] = Object.entries(a.fields)[0] ?? [];
        const at = field?.match(/^files\[(\d+)\]/);
        const path = at ? files[Number(at[1])]?.path : undefined;
        setFieldError(message ? (path ? `${path}: ${message}` : message) : a.message);
      }
    } finally {
      setBusy(false);
    }
  };
  const describedBy = [`${id}-hint`, what ? `${id}-what` : "", fieldError ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Upload a new version</h2>
      <form onSubmit={submit} class={fieldError ? "upload invalid" : "upload"}>
        <p class="hint" id={`${id}-hint`}>
          The template's folder (the one with template.conf), or a zip of it: at most 2000 files, 20 MB in all.
          Hidden files are left out.
        </p>
        <div class="field">
          <label for={`${id}-folder`}>Template folder</label>
          <input
            id={`${id}-folder`}
            type="file"
            // A folder picker in every current browser (a property preact sets; not in the
            // DOM types).
            {...({ webkitdirectory: true } as Record<string, boolean>)}
            multiple
            aria-describedby={describedBy}
            aria-invalid={fieldError ? "true" : undefined}
            onChange={(e) => {
              const input = e.currentTarget as HTMLInputElement;
              const list = [...(input.files ?? [])];
              const name = list[0]?.webkitRelativePath.split("/")[0] || "Folder";
              void chosen(() => fromFolder(list), name);
            }}
          />
        </div>
        <div class="field">
          <label for={`${id}-zip`}>Or a zip of the folder</label>
          <input
            id={`${id}-zip`}
            type="file"
            accept=".zip,application/zip"
            aria-describedby={describedBy}
            aria-invalid={fieldError ? "true" : undefined}
            onChange={(e) => {
              const file = (e.currentTarget as HTMLInputElement).files?.[0];
              if (file) void chosen(async () => fromZip(new Uint8Array(await file.arrayBuffer())), file.name);
            }}
          />
        </div>
        {what && (
          <p id={`${id}-what`} class="hint">
            Chosen: {what}
          </p>
        )}
        {fieldError && (
          <p class="field-error" id={`${id}-error`}>
            <span aria-hidden="true">⚠ </span>
            {fieldError}
          </p>
        )}
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? "Checking…" : "Upload and check"}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A refused upload's problems, each with the line it points at and a caret under the column. */
function Problems({ message, problems }: { message: string; problems: TemplateProblem[] }) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`} class="problems">
      <h2 id={`${id}-title`}>
        {problems.length === 1 ? "1 problem" : `${problems.length} problems`} in this upload
      </h2>
      <p class="error" role="alert">
        <span aria-hidden="true">⚠ </span>
        {message}
      </p>
      <ol>
        {problems.map((p, i) => (
          <li key={i}>
            <code>{place(p)}</code> {p.message}
            {p.source != null && (
              <pre aria-label={`Line ${p.line} of ${p.file}`}>
                <code>
                  {p.source}
                  {"\n"}
                  <span aria-hidden="true">{`${" ".repeat(Math.max(0, p.column - 1))}^`}</span>
                </code>
              </pre>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Stored({
  uploaded,
  live,
  writable,
  onSwitch,
}: {
  uploaded: TemplateUploaded;
  live: boolean;
  writable: boolean;
  onSwitch: () => void;
}) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`} class="stored">
      <h2 id={`${id}-title`}>Version {uploaded.templateVersion} is ready</h2>
      <p>
        It passed the check ({count(uploaded.files)} files) and is stored.{" "}
        {live ? "The site serves it now." : "The site still serves the version it had."}
      </p>
      {uploaded.findings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul>
            {uploaded.findings.map((p, i) => (
              <li key={i}>
                <code>{place(p)}</code> {p.message}
                {p.source != null && (
                  <pre>
                    <code>{p.source}</code>
                  </pre>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {writable && !live && (
        <div class="actions">
          <button type="button" onClick={onSwitch}>
            Switch to version {uploaded.templateVersion}
          </button>
        </div>
      )}
    </section>
  );
}

function VersionTable({
  data,
  writable,
  onSwitch,
}: {
  data: TemplateVersions;
  writable: boolean;
  onSwitch: (v: TemplateVersion) => void;
}) {
  const id = useId();
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Versions</h2>
      {data.versions.length === 0 ? (
        <Empty>No template versions yet: upload the site's first one above.</Empty>
      ) : (
        <table>
          <caption class="visually-hidden">Template versions, the newest first</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Uploaded</th>
              <th scope="col">Files</th>
              <th scope="col">Size</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {data.versions.map((v) => (
              <tr key={v.version}>
                <th scope="row">Version {v.version}</th>
                <td>{dateTime(v.createdOn)}</td>
                <td>{count(v.files)}</td>
                <td>{size(v.bytes)}</td>
                <td>
                  {v.active ? (
                    <span class="badge">Live</span>
                  ) : writable ? (
                    <button type="button" onClick={() => onSwitch(v)}>
                      {data.active != null && v.version < data.active ? "Roll back" : "Switch"} to version {v.version}
                    </button>
                  ) : (
                    "Stored"
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Switch({
  version,
  active,
  onClose,
  onDone,
}: {
  version: TemplateVersion;
  active: number | null;
  onClose: () => void;
  onDone: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const back = active != null && version.version < active;
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await post(`${VERSIONS}/${version.version}/switch`);
      announce(`The site now serves template version ${version.version}.`);
      onDone();
    } catch (e) {
      setError((e as ApiError).message);
      setBusy(false);
    }
  };
  return (
    <Dialog title={back ? `Roll back to version ${version.version}?` : `Switch to version ${version.version}?`} onClose={onClose}>
      <p>
        Every visitor sees the site in version {version.version} from their next page
        {active != null ? `; version ${active} stays stored, to switch back to.` : "."}
      </p>
      <ErrorText message={error} />
      <div class="actions">
        <button type="button" onClick={go} disabled={busy}>
          {back ? "Roll back" : "Switch"}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
