// Bundles the islands with esbuild: the loader (the one script a page includes), one entry
// per island under src/islands/<name>/index.tsx (the loader imports only those whose markup
// the page has), shared code split into chunks, and the stylesheet. File names carry a
// content hash, so the server can let browsers keep them for good. `react` and `react-dom`
// are preact/compat (../shared/DEPENDENCIES.md §6).
//
// The owner's app (src/admin/, served at /config) is a build of its own: one entry
// (admin/main), each screen a dynamic import (its own chunk), its stylesheet, all under
// admin/ — so the storefront's chunks never carry the app's code, nor the app the islands'.
//
// usage: node build.mjs OUTDIR      (writes OUTDIR/manifest.json: loader, styles, islands,
//                                    admin {entry, styles}, files; and OUTDIR/admin-meta.json,
//                                    the app build's esbuild metafile, for the budget check)
import { readdirSync, writeFileSync, rmSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, "dist"));
rmSync(out, { recursive: true, force: true });

export const alias = {
  react: "preact/compat",
  "react-dom": "preact/compat",
  "react-dom/client": "preact/compat/client",
  "react/jsx-runtime": "preact/jsx-runtime",
  // wouter's shim for React < 18: preact/compat has the hook itself.
  "use-sync-external-store/shim/index.js": "preact/compat",
  "use-sync-external-store/shim": "preact/compat",
  // The selector hook Tiptap's editor state uses, on preact/compat (src/shims/with-selector.ts).
  "use-sync-external-store/shim/with-selector.js": path.join(here, "src/shims/with-selector.ts"),
};

const islands = readdirSync(path.join(here, "src/islands"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(path.join(here, "src/islands", d.name, "index.tsx")))
  .map((d) => d.name);

const entryPoints = {
  loader: path.join(here, "src/loader.ts"),
  styles: path.join(here, "src/styles.css"),
};
for (const name of islands) {
  entryPoints[`islands/${name}`] = path.join(here, "src/islands", name, "index.tsx");
}

const result = await esbuild.build({
  entryPoints,
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "none",
  jsx: "automatic",
  jsxImportSource: "preact",
  alias,
  entryNames: "[dir]/[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});

// The owner's app.
const admin = await esbuild.build({
  entryPoints: { "admin/main": path.join(here, "src/admin/main.tsx") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "none",
  jsx: "automatic",
  jsxImportSource: "preact",
  alias,
  entryNames: "[dir]/[name]-[hash]",
  chunkNames: "admin/chunks/[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});
writeFileSync(path.join(out, "admin-meta.json"), JSON.stringify(admin.metafile));

const files = [...Object.keys(result.metafile.outputs), ...Object.keys(admin.metafile.outputs)].map((f) => path.relative(out, path.resolve(f)));
const find = (prefix, ext) => files.find((f) => f.startsWith(prefix) && f.endsWith(ext)) ?? null;
const manifest = {
  loader: find("loader-", ".js"),
  styles: find("styles-", ".css"),
  islands,
  admin: { entry: find("admin/main-", ".js"), styles: find("admin/main-", ".css") },
  files: files.sort(),
};
// The server's LESS compiler (renderer/less/compile.mjs with the `less` package), for
// Node at import time; not served to browsers, so not among `files`.
await esbuild.build({
  entryPoints: [path.join(here, "../renderer/less/compile.mjs")],
  outfile: path.join(out, "server/less-compiler.cjs"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node18",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  nodePaths: [path.join(here, "node_modules")],
});
manifest.lessCompiler = "server/less-compiler.cjs";
writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 2));
console.log(`islands: ${islands.join(", ")}; owner app: ${manifest.admin.entry} -> ${path.relative(process.cwd(), out) || "."}`);
