import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { BIND_HEADER, installPeerHeaders, normalizeAddress, PEER_HEADER } from "./peer";

test("every request is stamped with the socket's peer and bound address; what the client sent under those names is overwritten", async () => {
  installPeerHeaders();
  installPeerHeaders(); // idempotent
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ ...req.headers });
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { [PEER_HEADER]: "203.0.113.7", [BIND_HEADER]: "0.0.0.0", "x-forwarded-for": "198.51.100.1" },
    });
    assert.equal(await res.text(), "ok");
    assert.equal(seen[0]![PEER_HEADER], "127.0.0.1");
    assert.equal(seen[0]![BIND_HEADER], "127.0.0.1");
    assert.equal(seen[0]!["x-forwarded-for"], "198.51.100.1", "other headers are left alone");
  } finally {
    await new Promise((r) => server.close(r));
  }
  assert.equal(normalizeAddress("::ffff:10.0.0.2"), "10.0.0.2");
  assert.equal(normalizeAddress("::1"), "::1");
});
