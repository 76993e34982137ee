import { defineConfig } from "drizzle-kit";

// `generate` needs no database; migrations are applied by `migrate()` in src/client.ts.
export default defineConfig({ dialect: "postgresql", schema: "./src/schema/index.ts", out: "./drizzle" });
