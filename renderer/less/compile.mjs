// Compiles a template folder's stylesheets with the `less` npm package, for the server
// (`api/src/styles.rs`), which runs it with Node at import, upload and `tessera dev` time,
// never while serving a page. Bundled with `less` into one file by client/build.mjs and
// embedded in the binary.
//
// usage: node less-compiler.cjs < INPUT.json
//   INPUT: {"entry": "name", "files": {"name": base64, …}, "platform": {"name": text, …}}
//   `files` are the folder's styles/ (paths relative to it, `partials/x.less`), `entry`
//   one of them; `platform` the platform's imports (`sqs-grid-breaker.less`).
// stdout: the CSS; on a LESS error, exit 1 and stdout
// {"message", "filename", "line", "column"} (filename relative to styles/, "" when the
// problem is not in one of the folder's files).
//
// The compiler has no filesystem (issue 40): every file it can import, inline or embed is
// in INPUT, held in memory, and `MemoryFiles` below is its only file manager. A name that
// leaves the folder (absolute, `..` above styles/, a drive or a URL scheme) is refused with
// a message, never looked up; `@plugin` (JavaScript run in Node) and the image functions
// (which read files themselves) are refused too. The server runs this with Node's
// permission model as well, so a way around this file would still find nothing to read.
import path from "node:path";
// The CommonJS build: one file with nothing resolved at run time (the ESM entry reads
// its package.json through require, which a bundle cannot carry).
import less from "less/dist/less-node.cjs";

const STYLES = "/styles/";
const PLATFORM = "/platform/";
const posix = path.posix;

// A LESS error LESS reports with the file and line of the import or call that caused it.
const refused = (message) => ({ type: "File", message });

/// Why `name` may not be looked up at all, or null: names are relative, inside the folder.
function outside(name) {
  if (/[\0\\]/.test(name)) return `'${name}': a stylesheet name has no backslashes or NUL`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(name) || name.startsWith("//")) {
    return `'${name}' is not a file of the template's styles/ folder (remote files are never fetched)`;
  }
  if (name.startsWith("/")) return `'${name}': only the template's styles/ files can be read, by a relative name`;
  return null;
}

/// A remote CSS file LESS would import as LESS (`@import url(https://…/css?family=X)`):
/// kept in the output as the plain CSS `@import` it is, never fetched.
function plainCssImport(name) {
  const remote = /^(https?:)?\/\//i.test(name) && !/["'()\\\s]/.test(name);
  return remote ? `@import (css) url("${name}");\n` : null;
}

class MemoryFiles extends less.AbstractFileManager {
  constructor(styles, platform) {
    super();
    /** @type {Map<string, Buffer>} virtual path (`/styles/site.less`) → bytes */
    this.files = new Map();
    for (const [name, b64] of Object.entries(styles)) {
      this.files.set(posix.join(STYLES, name), Buffer.from(b64, "base64"));
    }
    for (const [name, text] of Object.entries(platform)) {
      this.files.set(posix.join(PLATFORM, name), Buffer.from(text, "utf8"));
    }
  }

  supports() {
    return true;
  }

  supportsSync() {
    return true;
  }

  /// The file `name` means from `dir`: `{filename, contents}`, `{notFound}`, or a refusal thrown.
  resolve(name, dir, options) {
    const why = outside(name);
    if (why) throw refused(why);
    // Where LESS looks: next to the importing file, then styles/, then the platform's.
    const dirs = [...new Set([dir && dir.startsWith("/") ? dir : STYLES, STYLES, PLATFORM])];
    const plain = name.replace(/[?#].*$/, "");
    const names = options.ext ? [this.tryAppendExtension(plain, options.ext), plain] : [plain];
    for (const [i, d] of dirs.entries()) {
      for (const n of names) {
        const full = posix.normalize(posix.join(d, n));
        const root = full.startsWith(STYLES) ? STYLES : full.startsWith(PLATFORM) ? PLATFORM : null;
        if (!root || !d.startsWith(root)) {
          // `..` out of the importing file's folder tree is refused; the fallback folders
          // are only looked in.
          if (i === 0) throw refused(`'${name}' is outside the template's styles/ folder`);
          continue;
        }
        const bytes = this.files.get(full);
        if (bytes) {
          return {
            filename: full,
            contents: options.rawBuffer ? bytes : bytes.toString("utf8"),
          };
        }
      }
    }
    return { notFound: `'${name}' wasn't found.` };
  }

  loadFile(filename, currentDirectory, options = {}, _environment, callback) {
    let result;
    try {
      if (options.mime === "application/javascript" || options.ext === ".js") {
        throw refused(`@plugin '${filename}' is not allowed: stylesheets cannot run JavaScript`);
      }
      const css = options.syncImport || options.rawBuffer ? null : plainCssImport(filename);
      if (css) {
        result = { filename: `remote:${filename}`, contents: css };
      } else {
        const found = this.resolve(filename, currentDirectory, options);
        result = found.notFound ? { error: refused(found.notFound) } : found;
      }
    } catch (e) {
      // data-uri() turns an {error} into a plain url(): a refusal must stop the compile.
      if (options.syncImport) throw e;
      result = { error: e };
    }
    if (options.syncImport) {
      if (callback) callback(result.error, result);
      return result;
    }
    return result.error ? Promise.reject(result.error) : Promise.resolve(result);
  }

  loadFileSync(filename, currentDirectory, options = {}, environment) {
    options.syncImport = true;
    return this.loadFile(filename, currentDirectory, options, environment);
  }
}

// `@plugin` runs a JavaScript file inside Node: never, whatever the file manager says.
less.PluginLoader = function () {
  const no = (name) => refused(`@plugin '${name}' is not allowed: stylesheets cannot run JavaScript`);
  this.loadPlugin = (name) => Promise.reject(no(name));
  this.loadPluginSync = (name) => ({ error: no(name) });
  this.evalPlugin = () => new less.LessError(no("?"));
};

// image-size(), image-width(), image-height() read the file from disk themselves.
const noImages = () => {
  throw refused("image-size(), image-width() and image-height() are not supported: stylesheets cannot read image files");
};
less.functions.functionRegistry.addMultiple({
  "image-size": noImages,
  "image-width": noImages,
  "image-height": noImages,
});

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

// Bundled as CommonJS (what the `less` build is), so no top-level await.
(async () => {
  try {
    const input = JSON.parse(await readStdin());
    const files = new MemoryFiles(input.files ?? {}, input.platform ?? {});
    less.environment.clearFileManagers();
    less.environment.addFileManager(files);
    const entry = posix.join(STYLES, input.entry);
    const source = files.files.get(entry);
    if (!source) throw refused(`'${input.entry}' wasn't found.`);
    const out = await less.render(source.toString("utf8"), {
      filename: entry,
      paths: [],
      // Template folders write `@import 'x'` for files that sit next to them.
      relativeUrls: false,
      javascriptEnabled: false,
    });
    process.stdout.write(out.css);
  } catch (e) {
    const name = typeof e.filename === "string" && e.filename.startsWith(STYLES) ? e.filename.slice(STYLES.length) : "";
    process.stdout.write(
      JSON.stringify({ message: e.message ?? String(e), filename: name, line: e.line ?? 0, column: (e.column ?? 0) + 1 }),
    );
    process.exitCode = 1;
  }
})();
