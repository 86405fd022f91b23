// Compiles a template folder's stylesheets with the `less` npm package, for the server
// (`api/src/styles.rs`), which runs it with Node at import, upload and `tessera dev` time,
// never while serving a page. Bundled with `less` into one file by client/build.mjs and
// embedded in the binary.
//
// usage: node less-compiler.cjs < INPUT.json
//   INPUT: {"stylesheets": ["name", …], "head": "@import (reference) …;\n", "tail": "@x: y;\n…",
//           "files": {"name": base64, …}, "platform": {"name": text, …}}
//   `files` are the folder's styles/ (paths relative to it, `partials/x.less`),
//   `stylesheets` the ones template.conf lists (in order, each one of `files`), `head` what
//   the server puts before them (platform mixins they use unimported), `tail` the
//   variables the server puts after them (the tweaks'), `platform` the platform's imports
//   (`sqs-grid-breaker.less`).
// stdout: {"css": text or null, "problems": [{"message", "filename", "line", "column"}],
// "warnings": [the same]} (filename relative to styles/, "" when the problem is not in one
// of the folder's files).
// A stylesheet that does not compile is left out and reported, and the others are compiled
// without it (issue 45): one broken file does not blank the site's CSS. `css` is null only
// when no stylesheet could be kept.
//
// The dialect is the platform's (Squarespace compiled with less.js 1.3.3's rules, later its
// own port of them): `math: "always"` (a division needs no parentheses: `240/200` is 1.2,
// as `font: 12px/1.5` stays shorthand) and the legacy selector interpolation
// `(~"@{x}") { … }`, read as `@{x} { … }`; a mixin call that matches no definition (too few
// or too many arguments, or none by that name) and a declaration using an undefined
// variable are left out with a warning, as the platform's compiler does in its default
// safe mode (see `dialect` and `dropped` below).
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

/// The platform's dialect, rewritten as LESS 4 reads it; the text keeps its line breaks, so
/// LESS's line numbers stay the file's.
///
/// - The legacy selector interpolation of less.js before 1.4, `(~".col-@{n}") { … }` (a
///   selector that is an escaped string in parentheses), becomes `.col-@{n} { … }` (with
///   interpolation, `@v: ~".col-@{n}"; @{v} { … }`, so a quoted variable's value goes in
///   unquoted as it did then): only
///   where a selector starts (after `{`, `}`, `;` or at a line's start) and is followed by
///   its block, so values such as `width: (~"calc(…)");` are left alone.
/// - A remote import (`@import url(https://fonts.googleapis.com/css?family=A) screen;`)
///   becomes the plain CSS import it is, `@import (css) url("…") screen;`, kept in the
///   output for the browser with its media, never fetched.
let selectors = 0;
function dialect(text) {
  return text
    .replace(
      /(^|[{};])([ \t]*)\(\s*~\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')\s*\)(?=[^;{}()\n]*\{)/gm,
      (_, before, space, dq, sq) => {
        const selector = dq ?? sq;
        if (!selector.includes("@{")) return `${before}${space}${selector}`;
        // Interpolated: through an escaped variable, as less.js 1.3.3 evaluated it, so a
        // quoted value (`@el: '#nav'`) goes in without its quotes (LESS 4's selector
        // interpolation would keep them).
        const name = `tessera-selector-${++selectors}`;
        return `${before}${space}@${name}: ~"${selector.replace(/"/g, "'")}"; @{${name}}`;
      },
    )
    .replace(
      /@import\s*(?:\([^)\n]*\)\s*)?(?:url\(\s*(["']?)((?:https?:)?\/\/[^"'()\n]+?)\1\s*\)|(["'])((?:https?:)?\/\/[^"'\n]+)\3)([^;{}\n]*);/gi,
      (_, _q, inUrl, _q2, quoted, media) => {
        const url = (inUrl ?? quoted).trim().replace(/\s/g, "%20");
        return `@import (css) url("${url}")${media.trimEnd()};`;
      },
    );
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
            contents: options.rawBuffer ? bytes : dialect(bytes.toString("utf8")),
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

// The platform's safe mode (its compiler's default), which stylesheets were written
// against: what would stop LESS 4 there is left out, and the stylesheet compiles without
// it; each is reported as a warning (`dropped`, with what was left out).
//
// - A mixin call that matches no definition — none by that name, or none taking that many
//   arguments (`.flex(0 1 auto)` for `.flex(@grow, @shrink, @basis)`) — or whose arguments
//   use an undefined variable is left out. Only the call's own failure is caught: another
//   error inside a mixin that did match goes on.
// - A declaration using a variable that is not defined (`border-top: 1px solid
//   @borderColor;`) is left out; a variable defined with one stays undefined where it is
//   used, and each declaration using it is left out there.
const dropped = [];
const undefinedVariable = (e) => Boolean(e) && /(^|: )variable @\S+ is undefined$/.test(e.message ?? "");
const MixinCall = less.tree.mixin.Call;
const callEval = MixinCall.prototype.eval;
MixinCall.prototype.eval = function (context) {
  try {
    return callEval.call(this, context);
  } catch (e) {
    const own =
      e &&
      e.index === this.getIndex() &&
      e.filename === this.fileInfo().filename &&
      /^No matching definition was found for |^\S+ is undefined$/.test(e.message ?? "");
    // An undefined variable that gets here is in the call's arguments (one in the mixin's
    // declarations is left out with its declaration, below).
    if (!own && !undefinedVariable(e)) throw e;
    dropped.push({ error: e, what: "the call" });
    return [];
  }
};
const Declaration = less.tree.Declaration;
const declarationEval = Declaration.prototype.eval;
Declaration.prototype.eval = function (context) {
  try {
    return declarationEval.call(this, context);
  } catch (e) {
    if (!undefinedVariable(e)) throw e;
    dropped.push({ error: e, what: "the declaration" });
    // A variable keeps its (failing) value, so each use is left out where it is; any other
    // declaration is hidden from the output.
    const value = this.variable ? this.value : new less.tree.Anonymous("");
    const left = new Declaration(this.name, value, this.important, this.merge, this.getIndex(), this.fileInfo(), this.inline, this.variable);
    left.addVisibilityBlock();
    return left;
  }
};
// LESS marks a variable as being evaluated and, when it is undefined, throws with the mark
// still on (it never needed to go on); the next use would then be "recursive".
const variableEval = less.tree.Variable.prototype.eval;
less.tree.Variable.prototype.eval = function (context) {
  try {
    return variableEval.call(this, context);
  } catch (e) {
    this.evaluating = false;
    throw e;
  }
};

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

/// The entry: `head`, then imports of `stylesheets` in order (a `.css` one as LESS too, so
/// its variables and imports work), then `tail`.
function entryText(head, stylesheets, tail) {
  return head + stylesheets.map((name) => `@import (less) ${JSON.stringify(name)};\n`).join("") + tail;
}

/// A LESS error as the server reports it: its file relative to styles/ ("" when it is not
/// one of the folder's files).
function problemOf(e) {
  const name = typeof e.filename === "string" && e.filename.startsWith(STYLES) ? e.filename.slice(STYLES.length) : "";
  return { message: e.message ?? String(e), filename: name, line: e.line ?? 0, column: (e.column ?? 0) + 1 };
}

/// The line and column (from 0) of offset `index` in the file `filename` (as LESS read it).
function lineOf(files, filename, index) {
  const text = dialect(files.files.get(filename)?.toString("utf8") ?? "");
  const before = text.slice(0, index ?? 0).split("\n");
  return { line: before.length, column: before[before.length - 1].length };
}

/// Which of `stylesheets` the problem is in: the one that is its file, else the one that
/// imports its file (by name, `@import 'parts/x'` for `parts/x.less`), else none.
function culprit(problem, stylesheets, files) {
  const file = problem.filename;
  if (!file || file === ENTRY_NAME) return null;
  if (stylesheets.includes(file)) return file;
  const bare = file.replace(/\.(less|css)$/, "");
  const names = [file, bare, posix.basename(file), posix.basename(bare)];
  return (
    stylesheets.find((s) => {
      const text = files.files.get(posix.join(STYLES, s))?.toString("utf8") ?? "";
      return [...text.matchAll(/@import\s*(?:\([^)]*\)\s*)?(?:url\()?\s*["']([^"']+)["']/g)].some((m) =>
        names.includes(posix.normalize(m[1])),
      );
    }) ?? null
  );
}

const ENTRY_NAME = ".tessera-entry.less";

/// The stylesheets compiled together, leaving out (and reporting) each that does not compile.
async function compileAll(input, files) {
  const problems = [];
  let kept = [...(input.stylesheets ?? [])];
  const head = input.head ?? "";
  const tail = input.tail ?? "";
  for (;;) {
    dropped.length = 0;
    const entry = posix.join(STYLES, ENTRY_NAME);
    files.files.set(entry, Buffer.from(entryText(head, kept, tail), "utf8"));
    try {
      const out = await less.render(entryText(head, kept, tail), {
        filename: entry,
        paths: [],
        // Template folders write `@import 'x'` for files that sit next to them.
        relativeUrls: false,
        javascriptEnabled: false,
        // The platform's arithmetic (less.js 1.3.3): `240/200` divides, no parentheses needed.
        math: "always",
      });
      const seen = new Set();
      const warnings = [];
      for (const { error: e, what } of dropped) {
        const warning = {
          ...problemOf({ ...e, ...lineOf(files, e.filename, e.index) }),
          message: `${e.message}: ${what} is left out, as the platform's compiler does`,
        };
        const key = JSON.stringify(warning);
        if (!seen.has(key)) warnings.push(warning);
        seen.add(key);
      }
      return { css: out.css, problems, warnings };
    } catch (e) {
      const problem = problemOf(e);
      problems.push(problem);
      const bad = culprit(problem, kept, files);
      // Not in one stylesheet (the tweaks, the compiler itself): nothing can be kept.
      if (!bad) return { css: null, problems };
      kept = kept.filter((s) => s !== bad);
      if (kept.length === 0) return { css: null, problems };
    }
  }
}

// Bundled as CommonJS (what the `less` build is), so no top-level await.
(async () => {
  let result;
  try {
    const input = JSON.parse(await readStdin());
    const files = new MemoryFiles(input.files ?? {}, input.platform ?? {});
    less.environment.clearFileManagers();
    less.environment.addFileManager(files);
    result = await compileAll(input, files);
  } catch (e) {
    result = { css: null, problems: [problemOf(e)] };
  }
  process.stdout.write(JSON.stringify(result));
})();
