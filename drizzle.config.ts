import { defineConfig } from "drizzle-kit";

// Only `drizzle-kit generate` is used: push/pull/studio cannot open a DB holding vec0 tables.
export default defineConfig({
  dialect: "sqlite",
  schema: "./server/db/schema.ts",
  out: "./drizzle",
});
