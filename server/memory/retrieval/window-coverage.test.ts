import assert from "node:assert/strict";
import { after, test } from "node:test";
import { insertMemories } from "../store";
import { axisVector, openTempStore, type TempStore } from "../../test/temp-store";
import { informativeWindows, windowShare } from "./window-coverage";

const stores: TempStore[] = [];
after(() => stores.forEach((s) => s.close()));

function store(days: string[]): TempStore {
  const s = openTempStore({ model: "axis", dim: 4 });
  stores.push(s);
  insertMemories(
    s.sqlite,
    days.map((d, i) => ({ spaceId: "personal", content: `note ${i}`, timestamp: `${d}T10:00:00.000Z` })),
    days.map((_, i) => axisVector(4, i)),
    "axis",
  );
  return s;
}

const window = (day: string, text: string) => ({ start: `${day}T00:00:00.000Z`, end: `${day}T23:59:59.999Z`, text });

test("a window's share of the space: its live memories inside it over the space's live count", () => {
  const s = store(["2026-11-01", "2026-11-01", "2026-11-02", "2026-11-03"]);
  assert.equal(windowShare(s.sqlite, "personal", window("2026-11-01", "on 1 November")), 0.5);
  assert.equal(windowShare(s.sqlite, "personal", window("2026-11-05", "on 5 November")), 0);
  assert.equal(windowShare(s.sqlite, "nobody", window("2026-11-01", "x")), 0, "an empty space holds nothing");
});

test("a window holding more than maxShare of the space is no window; one that separates stays", () => {
  const s = store(["2026-11-20", "2026-11-20", "2026-11-20", "2026-10-01"]);
  const now = window("2026-11-20", "now");
  const october = { start: "2026-10-01T00:00:00.000Z", end: "2026-10-31T23:59:59.999Z", text: "in October" };
  const r = informativeWindows(s.sqlite, "personal", { windows: [now, october] }, 0.5);
  assert.deepEqual(
    r.time.windows.map((w) => w.text),
    ["in October"],
  );
  assert.deepEqual(
    r.broad.map((w) => w.text),
    ["now"],
  );
  // At 1 every window counts (the technique off).
  assert.equal(informativeWindows(s.sqlite, "personal", { windows: [now] }, 1).time.windows.length, 1);
});
