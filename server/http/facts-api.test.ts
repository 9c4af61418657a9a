/**
 * The facts contract over real HTTP (docs/api.md#facts; moved down from e2e/facts-api.spec.ts: no page
 * involved): POST adds facts and a replacement, GET shows the current one and, with history=1, the replaced
 * one with its dates; PATCH makes a new version; DELETE forgets it with its history; forgetting the source
 * memory forgets its fact and the undo brings it back. The app runs in this process (server/test/app-server.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type AppServer, startAppServer } from "../test/app-server";
import { HttpApi, uniqueSpace } from "../test/http-api";

interface Fact {
  id: string;
  text: string;
  space: string;
  validFrom: string;
  recordedAt: string;
  validTo: string | null;
  supersededBy: string | null;
  sources: string[];
  origin: "learned" | "person" | "import";
}

let app: AppServer;
let api: HttpApi;
before(async () => {
  app = await startAppServer();
  api = new HttpApi(app.url);
});
after(() => app.close());

describe("facts API", () => {
  test("POST, GET with history, PATCH, DELETE; bad input is a 400 that writes nothing", async (t) => {
    const space = uniqueSpace(t.name);
    const [berlinMemory] = await api.addMemory({
      text: "User: I live in Berlin.",
      space,
      timestamp: "2024-03-01T10:00:00Z",
    });
    const [lisbonMemory] = await api.addMemory({
      text: "User: we moved to Lisbon.",
      space,
      timestamp: "2024-06-15T10:00:00Z",
    });
    const facts = async (query: string) => {
      const res = await api.get(`/api/v1/facts?space=${space}${query}`);
      assert.equal(res.status, 200);
      return ((await res.json()) as { facts: Fact[] }).facts;
    };

    const first = await api.post("/api/v1/facts", {
      space,
      items: [{ text: "Lives in Berlin", sources: [berlinMemory] }],
    });
    assert.equal(first.status, 201);
    const [berlin] = ((await first.json()) as { ids: string[] }).ids;
    const second = await api.post("/api/v1/facts", {
      space,
      items: [{ text: "Lives in Lisbon", sources: [lisbonMemory], validFrom: "2024-06-15", replaces: [berlin] }],
    });
    assert.equal(second.status, 201);
    const [lisbon] = ((await second.json()) as { ids: string[] }).ids;

    const current = await facts("");
    assert.deepEqual(
      current.map((f) => [f.id, f.text, f.space, f.origin, f.validFrom, f.sources]),
      [[lisbon, "Lives in Lisbon", space, "import", "2024-06-15T00:00:00.000Z", [lisbonMemory]]],
    );
    const history = await facts("&history=1");
    assert.deepEqual(
      history.map((f) => [f.text, f.validFrom, f.validTo, f.supersededBy]),
      [
        ["Lives in Lisbon", "2024-06-15T00:00:00.000Z", null, null],
        ["Lives in Berlin", "2024-03-01T10:00:00.000Z", "2024-06-15T00:00:00.000Z", lisbon],
      ],
    );

    // Bad input: a clear 400, nothing written.
    for (const [items, message] of [
      [[{ text: "", sources: [berlinMemory] }], /text must not be empty/],
      [[{ text: "No source", sources: [crypto.randomUUID()] }], /is not a live memory of this space/],
      [[{ text: "Replaces history", sources: [berlinMemory], replaces: [berlin] }], /not a current fact/],
    ] as const) {
      const bad = await api.post("/api/v1/facts", { space, items });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: { message: string } }).error.message, message);
    }
    assert.equal((await facts("&history=1")).length, 2);

    const edited = await api.patch(`/api/v1/facts/${lisbon}`, { text: "Lives in Lisbon, Portugal" });
    assert.equal(edited.status, 201);
    const v2 = (await edited.json()) as Fact;
    assert.deepEqual(
      [v2.text, v2.origin, v2.validFrom, v2.sources],
      ["Lives in Lisbon, Portugal", "person", "2024-06-15T00:00:00.000Z", [lisbonMemory]],
    );
    assert.deepEqual(
      (await facts("")).map((f) => f.text),
      ["Lives in Lisbon, Portugal"],
    );
    assert.equal((await facts("&history=1")).length, 3);
    assert.equal((await api.patch(`/api/v1/facts/${lisbon}`, { text: "edit an old one" })).status, 409);

    // Forgetting the source memory forgets the fact with its history; the undo brings them back.
    const forgot = await api.forget("moved to Lisbon", space);
    assert.deepEqual(await facts("&history=1"), []);
    await api.restore(forgot.undo.ids);
    assert.deepEqual(
      (await facts("")).map((f) => f.text),
      ["Lives in Lisbon, Portugal"],
    );

    const del = await api.delete(`/api/v1/facts/${v2.id}`);
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { id: v2.id, deleted: true });
    assert.deepEqual(await facts("&history=1"), []);
    const again = await api.delete(`/api/v1/facts/${v2.id}`);
    assert.equal(again.status, 404);
    assert.deepEqual(await again.json(), { error: { status: 404, message: `fact ${v2.id} not found` } });

    const h = await api.health();
    assert.equal(h.store.consistent, true);
  });
});
