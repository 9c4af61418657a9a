/**
 * TEST HARNESS (a process for server/embedder/faults.test.ts): starts the app's two supervised child
 * processes the way the app does — the embedding server (getEmbedder(); MEMO_EMBED_MODEL picks the model)
 * and the local chat server for a GGUF (getLocalChatServer) — prints `CHILDREN {"embedder":pid,"chat":pid}`
 * once both answer, then idles until it is killed. The test SIGKILLs it and checks both children exit.
 *
 *   node --import tsx server/test/children-harness.ts path/to/chat.gguf
 */
import fs from "node:fs";

const model = process.argv[2];
if (!model) throw new Error("usage: children-harness.ts <chat GGUF>");
const { getEmbedder } = await import("../embedder/supervisor");
const { getLocalChatServer } = await import("../chat/local-server");
const sup = getEmbedder();
const chat = getLocalChatServer(model);
await Promise.all([sup.ensureHealthy(60_000), chat.ensureHealthy(120_000)]);
fs.writeSync(1, `CHILDREN ${JSON.stringify({ embedder: sup.pid, chat: chat.pid })}\n`);
setInterval(() => undefined, 60_000);
