/** How `npm run test:unit` and `npm run eval:*` start node:test: tsx, and a data folder of its own per file (server/test/own-data-dir.ts). */
export const NODE_TEST_ARGS = ["--import", "tsx", "--import", "./server/test/own-data-dir.ts", "--test"];
