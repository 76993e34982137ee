import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The console is served by the API under /console/ (apps/api/src/app.ts). In development, Vite's dev server
 * proxies the API paths to a running API: CONSOLE_API_URL, default http://127.0.0.1:3000 (the API's PORT).
 */
const apiTarget = process.env.CONSOLE_API_URL || "http://127.0.0.1:3000";
const proxied = ["/trpc", "/v1", "/api", "/admin/api", "/openapi.json", "/openapi.yaml", "/docs", "/healthz"];

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true },
  server: {
    proxy: Object.fromEntries(proxied.map((path) => [path, { target: apiTarget, changeOrigin: false }])),
  },
});
