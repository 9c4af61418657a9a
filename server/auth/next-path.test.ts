import assert from "node:assert/strict";
import test from "node:test";
import { safeNextPath } from "./next-path";

test("after sign-in: a path on this site is kept (as the browser would resolve it)", () => {
  for (const p of ["/", "/settings", "/memory/search?q=x%20y", "/c/00000000-0000-4000-8000-000000000000#end"])
    assert.equal(safeNextPath(p), p);
  assert.equal(safeNextPath(["/ingest", "/settings"]), "/ingest");
  assert.equal(safeNextPath("/memory/../settings"), "/settings");
});

test("after sign-in: nothing that would leave the origin, and not back to /login (issue 33 item 6)", () => {
  const PORT = 4567;
  for (const p of [
    `/\t/127.0.0.5:${PORT}/pwned`, // the review's finding: the browser strips the tab, leaving //127.0.0.5…
    `/\n/127.0.0.5:${PORT}/pwned`,
    `/\r\n/evil.example`,
    "//evil.example/",
    "/\\evil.example",
    "/\t\\evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    " /settings",
    "",
    undefined,
    null,
    "/login",
    "/login?next=%2F",
  ])
    assert.equal(safeNextPath(p), "/", JSON.stringify(p));
  // Decoded from the query string exactly as Next hands it to the page.
  const next = new URL(`http://127.0.0.1:3000/login?next=%2F%09%2F127.0.0.5:${PORT}/pwned`).searchParams.get("next");
  assert.equal(safeNextPath(next), "/");
});
