// Compiles a template folder's stylesheets with the `less` npm package, for the server
// (`api/src/styles.rs`), which runs it with Node at import, upload and `tessera dev` time,
// never while serving a page. Bundled with `less` into one file by client/build.mjs and
// embedded in the binary.
//
// usage: node less-compiler.cjs ENTRY.less INCLUDE_DIR...
// stdout: the CSS; on a LESS error, exit 1 and stdout
// {"message", "filename", "line", "column"} (filename relative to the entry's folder).
import { readFileSync } from "node:fs";
import path from "node:path";
// The CommonJS build: one file with nothing resolved at run time (the ESM entry reads
// its package.json through require, which a bundle cannot carry).
import less from "less/dist/less-node.cjs";

const [entry, ...paths] = process.argv.slice(2);
const root = path.dirname(path.resolve(entry));
// Bundled as CommonJS (what the `less` build is), so no top-level await.
(async () => {
try {
  const out = await less.render(readFileSync(entry, "utf8"), {
    filename: path.resolve(entry),
    paths: [root, ...paths],
    // Template folders write `@import 'x'` for files that sit next to them.
    relativeUrls: false,
    javascriptEnabled: false,
  });
  process.stdout.write(out.css);
} catch (e) {
  const file = e.filename ? path.relative(root, e.filename) : "";
  process.stdout.write(
    JSON.stringify({ message: e.message ?? String(e), filename: file, line: e.line ?? 0, column: (e.column ?? 0) + 1 }),
  );
  process.exitCode = 1;
}
})();
