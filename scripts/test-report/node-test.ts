/** How `npm run test:unit` and `npm run eval:*` start node:test: tsx, and a data folder of its own per file (server/test/own-data-dir.ts). */
export const NODE_TEST_ARGS = ["--import", "tsx", "--import", "./server/test/own-data-dir.ts", "--test"];
/** What scripts/test-unit.ts adds to each test file's process (the runner's own `--import tsx` is inherited). */
export const TEST_FILE_PRELOADS = [
  "--import",
  "./server/test/own-data-dir.ts",
  "--import",
  "./scripts/test-report/file-cpu.mjs",
];
