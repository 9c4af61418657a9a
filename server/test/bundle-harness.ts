/**
 * TEST SUPPORT: a harness process (server/test/*-harness.ts, the server modules and the JavaScript packages
 * it imports) compiled once per test file into one JavaScript file, so each of its many starts is plain
 * `node file.mjs`. Started as `node --import tsx file.ts`, a start spent most of its time in Node's module
 * loader: resolving and reading the package.json scopes of some thousand modules (the server's, openai's,
 * zod's, drizzle's…), 1.4–2.3 s to READY against 0.3 s bundled (crash-harness.ts, load 8, median of five).
 * crash-safety.test.ts starts its harness 40 times. What the harness runs is unchanged: the same sources
 * and package code, the same start-up. Packages with native code or files of their own (SQLite, sqlite-vec,
 * usearch, the model runtimes) stay outside, loaded from node_modules; the file lies inside the repository
 * (.cache/, ignored by git) so that they resolve. Worker threads and child processes the app starts (parse
 * worker, embedding server) name their own `.ts` files and `--import tsx`, as in the app.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/** Packages loaded from node_modules rather than bundled: native add-ons, or files found beside their code. */
const NATIVE = [
  "better-sqlite3",
  "sqlite-vec",
  "usearch",
  "node-llama-cpp",
  "@node-llama-cpp/*",
  "@energetic-ai/*",
  "@tensorflow/*",
];

/**
 * Each module's `import.meta.url` / `dirname` / `filename` stay its own source file's (a worker's URL, a data
 * file beside the code, createRequire), not the bundle's.
 */
const ownImportMeta: Plugin = {
  name: "own-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const source = fs.readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.")) return undefined;
      const contents = source
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents, loader: "ts" };
    });
  },
};

export interface BundledHarness {
  /** The compiled harness, to run as `node <file> …`. */
  file: string;
  dispose(): void;
}

export async function bundleHarness(entry: string): Promise<BundledHarness> {
  const root = path.join(process.cwd(), ".cache", "test-harness");
  fs.mkdirSync(root, { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, `${path.basename(entry, ".ts")}-`));
  const file = path.join(dir, "harness.mjs");
  await build({
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    external: NATIVE,
    plugins: [ownImportMeta],
    // Bundled CommonJS packages call require() (of Node's built-ins): give the ES module one.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    logLevel: "warning",
  });
  return { file, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
