import { test, expect } from "./fixtures";

/**
 * The facts contract over the running app (docs/api.md#facts): POST adds facts and a replacement, GET shows
 * the current one and, with history=1, the replaced one with its dates; PATCH makes a new version; DELETE
 * forgets it with its history; forgetting the source memory forgets its fact and the undo brings it back.
 */

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

test.describe("facts API", () => {
  test("POST, GET with history, PATCH, DELETE; bad input is a 400 that writes nothing", async ({
    api,
    request,
    space,
  }) => {
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
      const res = await request.get(`/api/v1/facts?space=${space}${query}`);
      expect(res.status()).toBe(200);
      return ((await res.json()) as { facts: Fact[] }).facts;
    };

    const first = await request.post("/api/v1/facts", {
      data: { space, items: [{ text: "Lives in Berlin", sources: [berlinMemory] }] },
    });
    expect(first.status()).toBe(201);
    const [berlin] = ((await first.json()) as { ids: string[] }).ids;
    const second = await request.post("/api/v1/facts", {
      data: {
        space,
        items: [{ text: "Lives in Lisbon", sources: [lisbonMemory], validFrom: "2024-06-15", replaces: [berlin] }],
      },
    });
    expect(second.status()).toBe(201);
    const [lisbon] = ((await second.json()) as { ids: string[] }).ids;

    const current = await facts("");
    expect(current.map((f) => [f.id, f.text, f.space, f.origin, f.validFrom, f.sources])).toEqual([
      [lisbon, "Lives in Lisbon", space, "import", "2024-06-15T00:00:00.000Z", [lisbonMemory]],
    ]);
    const history = await facts("&history=1");
    expect(history.map((f) => [f.text, f.validFrom, f.validTo, f.supersededBy])).toEqual([
      ["Lives in Lisbon", "2024-06-15T00:00:00.000Z", null, null],
      ["Lives in Berlin", "2024-03-01T10:00:00.000Z", "2024-06-15T00:00:00.000Z", lisbon],
    ]);

    // Bad input: a clear 400, nothing written.
    for (const [items, message] of [
      [[{ text: "", sources: [berlinMemory] }], /text must not be empty/],
      [[{ text: "No source", sources: [crypto.randomUUID()] }], /is not a live memory of this space/],
      [[{ text: "Replaces history", sources: [berlinMemory], replaces: [berlin] }], /not a current fact/],
    ] as const) {
      const bad = await request.post("/api/v1/facts", { data: { space, items } });
      expect(bad.status()).toBe(400);
      expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(message);
    }
    expect(await facts("&history=1")).toHaveLength(2);

    const edited = await request.patch(`/api/v1/facts/${lisbon}`, { data: { text: "Lives in Lisbon, Portugal" } });
    expect(edited.status()).toBe(201);
    const v2 = (await edited.json()) as Fact;
    expect([v2.text, v2.origin, v2.validFrom, v2.sources]).toEqual([
      "Lives in Lisbon, Portugal",
      "person",
      "2024-06-15T00:00:00.000Z",
      [lisbonMemory],
    ]);
    expect((await facts("")).map((f) => f.text)).toEqual(["Lives in Lisbon, Portugal"]);
    expect(await facts("&history=1")).toHaveLength(3);
    expect((await request.patch(`/api/v1/facts/${lisbon}`, { data: { text: "edit an old one" } })).status()).toBe(409);

    // Forgetting the source memory forgets the fact with its history; the undo brings them back.
    const forgot = await api.forget("moved to Lisbon", space);
    expect(await facts("&history=1")).toEqual([]);
    await api.restore(forgot.undo.ids);
    expect((await facts("")).map((f) => f.text)).toEqual(["Lives in Lisbon, Portugal"]);

    const del = await request.delete(`/api/v1/facts/${v2.id}`);
    expect(del.status()).toBe(200);
    expect(await del.json()).toEqual({ id: v2.id, deleted: true });
    expect(await facts("&history=1")).toEqual([]);
    const again = await request.delete(`/api/v1/facts/${v2.id}`);
    expect(again.status()).toBe(404);
    expect(await again.json()).toEqual({ error: { status: 404, message: `fact ${v2.id} not found` } });

    const h = await api.health();
    expect(h.store.consistent).toBe(true);
  });
});
