// Unit tests in jsdom, with the same react → preact/compat aliases as the bundle.
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      react: "preact/compat",
      "react-dom": "preact/compat",
      "react-dom/client": "preact/compat/client",
      "react/jsx-runtime": "preact/jsx-runtime",
    },
  },
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  test: { environment: "jsdom", include: ["test/**/*.test.{ts,tsx}"] },
});
