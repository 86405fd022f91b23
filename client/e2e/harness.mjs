// What the browser tests share: command-line options, Chromium's flags, a real
// `tessera serve` on a throwaway data directory (optionally on a throwaway PostgreSQL).

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "..", "..");

export function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

export const tessera = option("tessera", path.join(root, "target", "release", "tessera"));
export const fixtures = option("fixtures", path.join(root, "fixtures"));
export const chromiumPath = option("chromium", "/usr/bin/chromium");

// The flags DESIGN.md gives: the machine has no internet, and without these Chromium keeps
// trying to reach it.
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launch() {
  return chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
}

/** Starts `tessera serve`; resolves with { child, tenants: [{ identifier, origin }], stop }. */
export function startServer({ databaseUrl, args = [] } = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "tessera-e2e-"));
  return new Promise((resolve, reject) => {
    const argv = ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--fixtures", fixtures, ...args];
    if (databaseUrl) argv.push("--database-url", databaseUrl);
    const env = { ...process.env, RUST_LOG: "warn" };
    delete env.DATABASE_URL;
    const child = spawn(tessera, argv, { stdio: ["ignore", "pipe", "pipe"], env });
    const tenants = [];
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("exit", (code) => reject(new Error(`tessera serve exited (${code}):\n${stderr}`)));
    // One line per tenant: `identifier: http://host:port/`. The server is listening by then.
    createInterface({ input: child.stdout }).on("line", (line) => {
      const m = /^([a-z0-9-]+): (http:\/\/[^/]+)\/$/.exec(line.trim());
      if (m) tenants.push({ identifier: m[1], origin: m[2] });
    });
    const poll = setInterval(async () => {
      if (tenants.length === 0) return;
      try {
        // Node does not resolve *.localhost names (Chromium does): ask the address itself.
        const r = await fetch(`http://127.0.0.1:${new URL(tenants[0].origin).port}/healthz`);
        if (r.ok) {
          clearInterval(poll);
          child.removeAllListeners("exit");
          const stop = () => {
            child.kill("SIGTERM");
            rmSync(dataDir, { recursive: true, force: true });
          };
          // dataDir: where the embedded store and the mail outbox (`outbox/`, one mbox per
          // site when no --smtp is given) are.
          // storeArgs: what points another `tessera` command at this server's store.
          const storeArgs = databaseUrl ? ["--database-url", databaseUrl] : ["--data-dir", dataDir];
          resolve({ child, tenants, stop, dataDir, storeArgs, origin: (id) => tenants.find((t) => t.identifier === id)?.origin });
        }
      } catch {
        // not up yet
      }
    }, 100);
  });
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A throwaway PostgreSQL (initdb + pg_ctl into a temp dir, as the `postgres` user when
 *  run as root, as DESIGN.md says); resolves with { url, stop }. */
export async function startPostgres() {
  const versions = readdirSync("/usr/lib/postgresql")
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error("no /usr/lib/postgresql/*/bin (apt-get install -y postgresql)");
  const bin = `/usr/lib/postgresql/${versions[0]}/bin`;
  const dir = mkdtempSync(path.join(tmpdir(), "tessera-e2e-pg-"));
  const root = process.getuid?.() === 0;
  const run = (tool, args) => {
    const [cmd, argv] = root ? ["runuser", ["-u", "postgres", "--", `${bin}/${tool}`, ...args]] : [`${bin}/${tool}`, args];
    const r = spawnSync(cmd, argv, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr || r.stdout}`);
  };
  if (root) spawnSync("chown", ["postgres", dir]);
  const port = await freePort();
  run("initdb", ["-D", `${dir}/data`, "-U", "postgres", "-A", "trust"]);
  run("pg_ctl", ["-D", `${dir}/data`, "-l", `${dir}/log`, "-w", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "start"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", `${dir}/data`, "stop", "-m", "fast"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Makes every Content-Security-Policy violation in `context`'s pages a `problems` entry:
 *  Chromium also logs most as console errors ("Refused to …"), but the event names the
 *  directive and the blocked source, and catches what is only reported. */
export async function watchCsp(context, problems) {
  await context.exposeBinding("__tesseraCspViolation", (_source, text) => problems.push(text));
  await context.addInitScript(() => {
    document.addEventListener(
      "securitypolicyviolation",
      (e) =>
        window.__tesseraCspViolation(
          `CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile || e.documentURI}:${e.lineNumber}`,
        ),
      true,
    );
  });
}
