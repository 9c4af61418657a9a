/**
 * The lifetime policy per kind, over simulated days on a real store: with the defaults chat and
 * consolidated memories decay, document chunks, /remember memories and imports never do; imports decay
 * once the user opts in. What will be soft-deleted or purged within 7 days is predicted exactly (the day
 * it is listed for is the day decay does it), and "keep" takes a memory off the list for good.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { runDecayJob } from "../../jobs/jobs";
import { saveJobSettings } from "../../jobs/settings";
import { lifetimeOverview } from "../../services/lifetime-service";
import { hashedVector, TEST_MODEL_A } from "../../test/test-dim-embedder";
import { openTempStore, type TempStore } from "../../test/temp-store";
import { utcDay } from "./decay";
import { keepMemories } from "./lifetime";
import { checkInvariant, insertMemories, type MemoryKind } from "../store";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

const DAY0 = Date.parse("2030-01-01T00:00:00.000Z");
const at = (day: number) => new Date(DAY0 + day * 86_400_000 + 3 * 3_600_000);
const dayOf = (day: number) => utcDay(at(day));

test("decay by kind: chat and consolidated decay; document, remember and import never (import once opted in); predictions match what decay does", async () => {
  const s = openTempStore({ model: TEST_MODEL_A, dim: 4 });
  stores.push(s);
  const db = s.sqlite;
  const kinds: MemoryKind[] = ["chat", "consolidated", "document", "remember", "import", "chat", "chat"];
  const ids = insertMemories(
    db,
    kinds.map((kind, i) => ({
      spaceId: "personal",
      content: `memory ${i} of kind ${kind}`,
      kind,
      importance: i === 6 ? 3 : 1,
    })),
    kinds.map((k, i) => hashedVector(`memory ${i} ${k}`, 4)),
    TEST_MODEL_A,
  );
  db.prepare("UPDATE memories SET created_at = ?").run(at(0).toISOString());
  const [chat, consolidated, document, remember, imported, kept, deep] = ids as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];

  const softDeletedOn = new Map<string, string>();
  const purgedOn = new Map<string, string>();
  /** For each memory, the days it was predicted for, by the day of the prediction. */
  const predicted = new Map<string, { on: string; day: string; action: string }[]>();
  for (let day = 0; day <= 60; day++) {
    if (day === 15) {
      // one click "keep" on a chat memory already at importance 0 and listed
      assert.ok(lifetimeOverview(db, { now: at(day - 1) }).expiring.items.some((i) => i.id === kept));
      assert.deepEqual(keepMemories(db, [kept]), [kept]);
    }
    if (day === 30) saveJobSettings(db, { lifetime: { import: "decay" } });
    const run = await runDecayJob({ db }, { now: () => at(day), trigger: "schedule" });
    assert.equal(run.status, "ok", run.error ?? "");
    for (const r of db.prepare("SELECT id, soft_deleted AS sd FROM memories").all() as { id: string; sd: number }[]) {
      if (r.sd && !softDeletedOn.has(r.id)) softDeletedOn.set(r.id, dayOf(day));
    }
    for (const id of ids)
      if (!db.prepare("SELECT 1 FROM memories WHERE id = ?").get(id) && !purgedOn.has(id)) purgedOn.set(id, dayOf(day));
    for (const item of lifetimeOverview(db, { now: at(day) }).expiring.items) {
      const list = predicted.get(item.id) ?? [];
      list.push({ on: item.on, day: dayOf(day), action: item.action });
      predicted.set(item.id, list);
    }
    assert.deepEqual(checkInvariant(db), [], `day ${day}`);
  }

  // chat and consolidated: decay on day 14 (idle 14 days), at 0 for 7 days, soft-deleted on day 21, purged 30 days later.
  for (const id of [chat, consolidated]) {
    assert.equal(softDeletedOn.get(id), dayOf(21));
    assert.equal(purgedOn.get(id), dayOf(51));
  }
  // importance 3: decays on days 14, 15 and 16, at 0 for 7 days.
  assert.equal(softDeletedOn.get(deep), dayOf(23));
  // never decayed: document, remember; kept (pinned) from day 15.
  for (const id of [document, remember, kept]) {
    assert.equal(softDeletedOn.get(id), undefined);
    assert.equal(
      (db.prepare("SELECT importance FROM memories WHERE id = ?").get(id) as { importance: number }).importance,
      id === kept ? 5 : 1,
    );
  }
  // import: kept until the opt-in on day 30, then idle since day 0: decays that day, soft-deleted 7 days later.
  assert.equal(softDeletedOn.get(imported), dayOf(37));

  // Predictions: listed exactly in the 7 days before, each time for the day it happened.
  for (const [id, when, action] of [
    [chat, softDeletedOn.get(chat)!, "soft-delete"],
    [chat, purgedOn.get(chat)!, "purge"],
    [imported, softDeletedOn.get(imported)!, "soft-delete"],
    [deep, softDeletedOn.get(deep)!, "soft-delete"],
  ] as const) {
    const list = predicted.get(id)!.filter((p) => p.action === action);
    assert.ok(list.length > 0, `${id} was predicted for ${action}`);
    for (const p of list) assert.equal(p.on, when, `predicted on ${p.day} for ${action}`);
    const firstDay = Date.parse(list[0]!.day);
    assert.ok(Date.parse(when) - firstDay <= 7 * 86_400_000, "listed at most 7 days ahead");
  }
  assert.ok(!predicted.has(document) && !predicted.has(remember), "kinds that do not decay are never listed");
  assert.ok(
    predicted.get(kept)!.every((p) => p.day < dayOf(15)),
    "a kept memory leaves the list",
  );
});

test("lifetime settings: defaults by kind, validated, shown per kind", () => {
  const s = openTempStore();
  stores.push(s);
  const o = lifetimeOverview(s.sqlite);
  assert.deepEqual(
    o.kinds.map((k) => [k.kind, k.decays, k.consolidated]),
    [
      ["chat", true, true],
      ["consolidated", true, true],
      ["remember", false, true],
      ["import", false, true],
      ["document", false, false],
    ],
  );
  assert.throws(() => saveJobSettings(s.sqlite, { lifetime: { chat: "forever" as "keep" } }));
  assert.throws(
    () => saveJobSettings(s.sqlite, { lifetime: { document: "decay" } as never }),
    "document's lifetime is not a setting",
  );
});
