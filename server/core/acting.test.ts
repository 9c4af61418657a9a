/**
 * The acting person is one per process even when this module is loaded twice (Next bundles instrumentation,
 * which opens the store and registers its SQL functions, apart from the route handlers that set who acts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { actingScope, runAs } from "./acting";

test("a second copy of the module sees the person the first one set", async () => {
  // A query string makes the loader evaluate the file again: a separate module instance, as in another bundle.
  const copy = (await import(`./acting.ts?copy=${Date.now()}`)) as typeof import("./acting");
  assert.notEqual(copy.runAs, runAs, "a separate instance of the module");
  runAs({ personId: "kim", admin: false }, () => {
    assert.equal(actingScope(), "kim");
    assert.equal(copy.actingScope(), "kim", "the other copy reads the same store");
    assert.equal(copy.isMine("owner~recipes"), false);
  });
  assert.equal(copy.actingScope(), null, "outside runAs nobody acts, in both");
});
