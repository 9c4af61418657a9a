/**
 * TEST DOUBLE: the smallest child server for server/ops/child-server.test.ts, started the way the real
 * ones are (server/ops/child-main.ts: --port, --watch-stdin, the {"event":"listening"} and
 * {"event":"ready"} lines, /health 503 → 200, exit on SIGTERM). It loads no model, so it is ready as soon
 * as tsx has started it. GET /whoami answers {"pid":…}. Faults, by `--fault <mode>`:
 *
 *   ok          behaves
 *   load-error  loading fails: /health answers 500, it exits with code 1 (a crash loop)
 *   loading     loading never finishes: /health answers 503 forever
 *   silent      never listens and never prints a line
 *
 *   node --import tsx server/test/tiny-child-server.ts --port 0 --watch-stdin --fault loading
 */
import { childArgs, serveChild } from "../ops/child-main";
import { sendJson } from "../ops/node-json";

const values = childArgs({ fault: { type: "string", default: "ok" } });

if (values.fault === "silent") {
  setInterval(() => undefined, 60_000);
} else {
  serveChild({
    port: values.port,
    host: values.host,
    watchStdin: values["watch-stdin"],
    load: async () => {
      if (values.fault === "load-error") throw new Error("no model here (--fault load-error)");
      if (values.fault === "loading") await new Promise(() => undefined);
      return { model: "tiny-child", engine: "TEST DOUBLE tiny-child-server" };
    },
    loadError: (e) => `tiny-child-server: ${e instanceof Error ? e.message : String(e)}`,
    handle: async (req, res, url) => {
      if (req.method === "GET" && url === "/whoami") return sendJson(res, 200, { pid: process.pid });
      sendJson(res, 404, { error: { code: 404, message: "File Not Found" } });
    },
    close: async () => undefined,
  });
}
