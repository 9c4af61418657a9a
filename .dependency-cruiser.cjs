/**
 * The dependency rule of docs/architecture.md, checked by `npm run lint`:
 *   core → memory → use cases (ingest, chat, jobs) → services → adapters (auth, http, api, mcp) → app,
 * and the composition root (server/context.ts: appContext) beside memory: it wires db and the embedder into
 * core's MemoContext, so core and memory never import it (they are handed a context); the use cases and above may.
 * A folder may import from its own layer's lower neighbours and anything below it, never from above.
 * Tests (*.test.ts) and test support (server/test/) may reach anything; product code (server/, app/) never
 * imports them. scripts/ (benches, evals, dev tools) may use the test support (fixture servers, eval data).
 */
const layer = {
  core: "^server/(core|db|ops|embedder)/",
  context: "^server/context\\.ts$",
  memory: "^server/memory/",
  ingest: "^server/ingest/",
  chat: "^server/chat/",
  jobs: "^server/jobs/",
  services: "^server/services/",
  auth: "^server/auth/",
  http: "^server/http/",
  adapters: "^server/(api|mcp)/",
  app: "^(app/|server/boot\\.ts$|instrumentation\\.ts$|proxy\\.ts$|scripts/)",
};
const tests = "(\\.(test|eval)\\.tsx?$|^server/test/|^e2e/)";
const above = (...names) => names.map((n) => layer[n]).join("|");

/** `from` may not import any of `to`. */
const rule = (name, from, to, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: from, pathNot: tests },
  to: { path: to },
});

module.exports = {
  forbidden: [
    rule(
      "core-is-the-bottom",
      layer.core,
      above("context", "memory", "ingest", "chat", "jobs", "services", "auth", "http", "adapters", "app"),
      "core (config, errors, the context's types, db, child processes, the embedding server) imports nothing above it",
    ),
    rule(
      "core-folder-imports-nothing",
      "^server/core/",
      "^(server/(?!core/)|app/|scripts/|instrumentation\\.ts$|proxy\\.ts$)",
      "server/core/ (config, errors, the context's types, the acting person) imports nothing of the project: the embedder's errors and status type live here, and the composition root (server/context.ts) wires the rest",
    ),
    rule(
      "context-wires-core-only",
      layer.context,
      above("memory", "ingest", "chat", "jobs", "services", "auth", "http", "adapters", "app"),
      "the composition root builds the context from core's parts (db, embedder) and nothing above",
    ),
    rule(
      "memory-below-use-cases",
      layer.memory,
      above("context", "ingest", "chat", "jobs", "services", "auth", "http", "adapters", "app"),
      "the pipeline stages know nothing of the use cases, and are handed their context",
    ),
    rule(
      "ingest-is-a-leaf-use-case",
      layer.ingest,
      above("chat", "jobs", "services", "auth", "http", "adapters", "app"),
      "ingestion uses memory and core only",
    ),
    rule(
      "chat-below-jobs",
      layer.chat,
      above("jobs", "services", "auth", "http", "adapters", "app"),
      "chat may use ingest, memory and core",
    ),
    rule(
      "jobs-below-services",
      layer.jobs,
      above("services", "auth", "http", "adapters", "app"),
      "jobs may use chat (the merge provider), ingest, memory and core",
    ),
    rule(
      "services-below-adapters",
      layer.services,
      above("auth", "http", "adapters", "app"),
      "services are called by adapters, never the reverse",
    ),
    rule(
      "auth-below-http",
      layer.auth,
      above("http", "adapters", "app"),
      "access control is used by the HTTP adapters",
    ),
    rule(
      "http-below-api",
      layer.http,
      above("adapters", "app"),
      "plain HTTP helpers and handlers sit under tRPC and MCP",
    ),
    rule("adapters-below-app", layer.adapters, layer.app, "tRPC and MCP are used by the app"),
    {
      name: "no-test-code-in-product",
      comment: "test doubles live under server/test/ and e2e/ and are used only by tests",
      severity: "error",
      from: { path: "^(server|app)/", pathNot: tests },
      to: { path: tests },
    },
    {
      name: "no-circular",
      comment: "no module import cycles in server/",
      severity: "error",
      from: { path: "^server/" },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.next)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
