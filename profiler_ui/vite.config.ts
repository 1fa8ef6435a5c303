// Vite builds the dashboard into dist/ (scripts/build: into build/dashboard, with --outDir),
// which the daemon serves as-is: GET / -> index.html, GET /assets/... -> the hashed bundles.
// During development, `npx vite` proxies /api to a daemon given by
// TENSORD_DASHBOARD (e.g. http://127.0.0.1:8080).
import { defineConfig } from "vite";

const daemon = process.env.TENSORD_DASHBOARD;

export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    target: "es2022",
  },
  server: daemon ? { proxy: { "/api": daemon } } : {},
});
