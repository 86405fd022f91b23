// Unit tests in jsdom, with the same react → preact/compat aliases as the bundle.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      react: "preact/compat",
      "react-dom": "preact/compat",
      "react-dom/client": "preact/compat/client",
      "react/jsx-runtime": "preact/jsx-runtime",
      "use-sync-external-store/shim/index.js": "preact/compat",
      "use-sync-external-store/shim/with-selector.js": fileURLToPath(new URL("./src/shims/with-selector.ts", import.meta.url)),
      "use-sync-external-store/shim": "preact/compat",
    },
  },
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    // Packages written against React (wouter) go through the
    // aliases above too, as in the bundle, rather than loading React proper from node_modules.
    server: { deps: { inline: ["wouter", /@tiptap/] } },
  },
});
