import fs from "node:fs";
import path from "node:path";
import { writeExport } from "../server/test/export-generator";
import { test, expect } from "./memory-fixtures";

/** Memory Manager: pin, edit (re-embedded), delete, restore, bulk actions, export and import (Memo JSON, ChatGPT, Claude) through the page. */

const ALPHA = "Alpha: the spare house key is in the blue flowerpot";
const BETA = "Beta: the car is parked on level three of the garage";
const GAMMA = "Gamma: dentist appointment on Thursday at nine";
const BETA2 = "Beta: my bicycle is locked at the central train station";
const CHATGPT_FIXTURE = path.join(import.meta.dirname, "../server/test/fixtures/chatgpt-conversations.json");
const CLAUDE_FIXTURE = path.join(import.meta.dirname, "../server/test/fixtures/claude-conversations.json");

interface StoredMemory {
  id: string;
  content: string;
  pinned: boolean;
  importance: number;
  softDeleted: boolean;
}

test.describe("Manager page", () => {
  test("pin, edit, delete and restore a memory", async ({ api, space, manager, request }) => {
    const [[alpha], [beta], [gamma]] = (await api.addMemories(
      [ALPHA, BETA, GAMMA].map((text) => ({ text, space })),
    )) as [[string], [string], [string]];
    const get = async (id: string) => (await (await request.get(`/api/v1/memories/${id}`)).json()) as StoredMemory;
    const start = await api.counts();

    await manager.goto();
    await manager.showSpace(space);
    await expect(manager.rows).toHaveCount(3);

    // Pin, then unpin.
    await manager.pin(ALPHA);
    await expect(manager.row(ALPHA).getByRole("button", { name: "Unpin" })).toHaveAttribute("aria-pressed", "true");
    await expect(manager.row(ALPHA)).toContainText("pinned");
    expect(await get(alpha)).toMatchObject({ pinned: true, importance: 5 });
    await manager.unpin(ALPHA);
    expect(await get(alpha)).toMatchObject({ pinned: false });

    // Importance.
    await manager.setImportance(GAMMA, 4);
    expect(await get(gamma)).toMatchObject({ importance: 4 });

    // Edit: the row shows the new text, search finds it by its new words and no longer by the old ones.
    await manager.edit(BETA, BETA2);
    await expect(manager.row(BETA2)).toHaveCount(1);
    await expect(manager.row(BETA)).toHaveCount(0);
    expect(await get(beta)).toMatchObject({ id: beta, content: BETA2 });
    const now = await api.search({ query: "bicycle locked train station", space });
    expect(now.results[0]?.id).toBe(beta);
    const old = await api.search({ query: "car parked level three garage", space });
    const oldHit = [...old.results, ...old.dropped].find((r) => r.id === beta);
    expect(oldHit === undefined || oldHit.matchType === "vector", "the old words no longer match by keyword").toBe(
      true,
    );
    expect(await api.counts()).toEqual(start);

    // Delete: gone from the live list and from search; visible under "deleted" with its purge date; restore brings it back.
    await manager.delete(GAMMA);
    await expect(manager.row(GAMMA)).toHaveCount(0);
    await expect(manager.rows).toHaveCount(2);
    expect((await api.counts()).memories).toBe(start.memories - 1);
    const hidden = await api.search({ query: "dentist appointment Thursday", space });
    expect([...hidden.results, ...hidden.dropped].some((r) => r.id === gamma)).toBe(false);
    await manager.showStatus("deleted");
    await expect(manager.rows).toHaveCount(1);
    await expect(manager.row(GAMMA).getByTestId("deleted-badge")).toContainText(/deleted · purged .*\d{4}/);
    await manager.restore(GAMMA);
    await expect(manager.rows).toHaveCount(0);
    await manager.showStatus("live");
    await expect(manager.rows).toHaveCount(3);
    expect(await get(gamma)).toMatchObject({ softDeleted: false, importance: 4 });
    expect(await api.counts()).toEqual(start);
    const back = await api.search({ query: "dentist appointment Thursday", space });
    expect(back.results[0]?.id).toBe(gamma);
  });

  test("bulk actions on a selection, and text filtering", async ({ api, space, manager }) => {
    await api.addMemories([ALPHA, BETA, GAMMA].map((text) => ({ text, space })));
    const start = await api.counts();
    await manager.goto();
    await manager.showSpace(space);

    await manager.text.fill("the");
    await expect(manager.rows).toHaveCount(2); // ALPHA and BETA contain "the"
    await manager.text.fill("");
    await expect(manager.rows).toHaveCount(3);

    await manager.select(ALPHA);
    await manager.select(GAMMA);
    await expect(manager.bulk.getByTestId("selected-count")).toHaveText("2 selected");
    await manager.bulkAction("Pin", /^Pinned 2\./);
    await manager.pinned.selectOption("yes");
    await manager.settled();
    await expect(manager.rows).toHaveCount(2);
    await manager.pinned.selectOption("");
    await manager.settled();

    await manager.selectAll.check();
    await expect(manager.bulk.getByTestId("selected-count")).toHaveText("3 selected");
    await manager.bulk.getByRole("combobox", { name: "Importance for selected" }).selectOption("2");
    await manager.bulkAction("Set importance", /^Importance set on 1; 2 pinned kept importance 5\./);
    await manager.selectAll.check();
    await manager.bulkAction("Delete", /^Deleted 3\./);
    await expect(manager.rows).toHaveCount(0);
    expect((await api.counts()).memories).toBe(start.memories - 3);
    await manager.showStatus("deleted");
    await manager.selectAll.check();
    await manager.bulkAction("Restore", /^Restored 3\./);
    expect(await api.counts()).toEqual(start);
  });

  test("export a space, import it into another with progress, and nothing doubles on a second import", async ({
    api,
    space,
    manager,
    request,
  }, testInfo) => {
    await api.addMemories([
      { text: ALPHA, space, timestamp: "2024-03-01T10:00:00.000Z", pinned: true },
      { text: BETA, space, timestamp: "2024-03-02T10:00:00.000Z", importance: 3 },
      { text: GAMMA, space, timestamp: "2024-03-03T10:00:00.000Z", kind: "import" },
    ]);
    const res = await request.get(`/api/v1/export?space=${space}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-disposition"]).toMatch(
      new RegExp(`attachment; filename="memo-export-${space}-\\d{4}-\\d{2}-\\d{2}\\.json"`),
    );
    const file = (await res.json()) as {
      format: string;
      version: number;
      count: number;
      memories: { content: string; timestamp: string; pinned: boolean; importance: number; kind: string }[];
    };
    expect([file.format, file.version, file.count]).toEqual(["memo-export", 1, 3]);
    const exported = testInfo.outputPath("export.json");
    fs.writeFileSync(exported, JSON.stringify(file));

    const copy = `${space.slice(0, 55)}-copy`;
    await manager.goto();
    await manager.importFile("memo", exported, copy);
    const job = manager.job(`Memo · export.json → ${copy}`).first();
    await expect(job).toHaveAttribute("data-status", "done");
    await expect(job.getByTestId("import-summary")).toContainText(
      "3 memories for 1 space · 3 imported, 0 already stored",
    );
    await expect(job.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
    await manager.showSpace(copy);
    await expect(manager.rows).toHaveCount(3);
    const again = await request.get(`/api/v1/export?space=${copy}`);
    const copied = (await again.json()) as typeof file;
    const strip = (f: typeof file) =>
      f.memories.map(({ content, timestamp, pinned, importance, kind }) => ({
        content,
        timestamp,
        pinned,
        importance,
        kind,
      }));
    expect(strip(copied)).toEqual(strip(file));

    // The same file again: every memory is already stored.
    await manager.importFile("memo", exported, copy);
    await expect(manager.jobs.first()).toHaveAttribute("data-status", "done");
    await expect(manager.jobs.first().getByTestId("import-summary")).toContainText("0 imported, 3 already stored");
    await expect(manager.rows).toHaveCount(3);
  });

  test("ChatGPT import through the page: exchanges with original times, progress, dedup; a bad file is refused", async ({
    api,
    space,
    manager,
    consoleWatch,
  }, testInfo) => {
    const target = `${space.slice(0, 56)}-gpt`;
    await manager.goto();
    await manager.importFile("chatgpt", CHATGPT_FIXTURE, target);
    const job = manager.job(`ChatGPT · chatgpt-conversations.json → ${target}`).first();
    await expect(job).toHaveAttribute("data-status", "done");
    await expect(job.getByTestId("import-summary")).toContainText("4 conversations, 6 exchanges");
    await expect(job.getByTestId("import-summary")).toContainText("8 imported, 0 already stored");
    await manager.showSpace(target);
    await expect(manager.rows).toHaveCount(8);
    // Its original time (10:00 UTC on 15 June 2024), as the page shows dates: the browser's locale and zone.
    const original = await manager.page.evaluate(() =>
      new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(
        new Date("2024-06-15T10:00:00Z"),
      ),
    );
    await expect(manager.row("User: How often should I feed my sourdough starter?")).toContainText(original);
    await expect(manager.row("User: How often should I feed my sourdough starter?")).toContainText("ChatGPT import");
    const found = await api.search({ query: "tram 28 Lisbon", space: target });
    expect(found.results[0]?.content).toContain("tram 28");

    await manager.importFile("chatgpt", CHATGPT_FIXTURE, target);
    await expect(manager.jobs.first()).toHaveAttribute("data-status", "done");
    await expect(manager.jobs.first().getByTestId("import-summary")).toContainText("0 imported, 8 already stored");

    // Not a conversations.json: a readable error, nothing queued, nothing written.
    consoleWatch.allow(/Failed to load resource: the server responded with a status of 400/);
    const before = await api.counts();
    const bad = testInfo.outputPath("not-chatgpt.json");
    fs.writeFileSync(bad, JSON.stringify({ hello: "world" }));
    const jobs = await manager.jobs.count();
    await manager.importFile("chatgpt", bad, target);
    await expect(manager.error).toContainText("conversations.json must be a JSON array of conversations");
    await expect(manager.jobs).toHaveCount(jobs);
    expect(await api.counts()).toEqual(before);
  });

  test("Claude import through the page: the format is picked, exchanges keep their times, a malformed conversation is listed and the rest imported, dedup", async ({
    api,
    space,
    manager,
    consoleWatch,
  }, testInfo) => {
    const target = `${space.slice(0, 56)}-cla`;
    // The fixture with a malformed conversation in the middle (no chat_messages list).
    const good = JSON.parse(fs.readFileSync(CLAUDE_FIXTURE, "utf8")) as unknown[];
    const file = testInfo.outputPath("claude-conversations.json");
    fs.writeFileSync(file, JSON.stringify([good[0], { uuid: "broken-one", name: "lost" }, ...good.slice(1)]));
    await manager.goto();
    await manager.page.getByRole("combobox", { name: "Format" }).selectOption("claude");
    await expect(manager.page.getByTestId("import-hint")).toContainText("Claude data export");
    await manager.importFile("claude", file, target);
    const job = manager.job(`Claude · claude-conversations.json → ${target}`).first();
    await expect(job).toHaveAttribute("data-status", "done");
    await expect(job.getByTestId("import-summary")).toContainText(
      "4 conversations, 4 exchanges, 2 system/tool/non-text messages left out, 1 malformed conversation left out",
    );
    await expect(job.getByTestId("import-summary")).toContainText("6 imported, 0 already stored");
    await job.getByText("Left out of this file (1)").click();
    await expect(job.getByTestId("import-problems")).toContainText(
      "conversation 2 (broken-one): no 'chat_messages' list",
    );
    await manager.showSpace(target);
    await expect(manager.rows).toHaveCount(6);
    const row = manager.row("User: How deep should the broad beans go?");
    await expect(row).toContainText("Mar 10, 2024"); // one date format, the browser's locale (issue 50)
    await expect(row).toContainText("Claude import");
    const found = await api.search({ query: "broad beans depth", space: target });
    expect(found.results[0]?.content).toContain("broad beans");
    for (const shot of [
      { name: "import-claude-desktop.png", width: 1280, height: 800 },
      { name: "import-claude-mobile.png", width: 390, height: 844 },
    ]) {
      await manager.page.setViewportSize({ width: shot.width, height: shot.height });
      await job.scrollIntoViewIfNeeded();
      await manager.page.screenshot({ path: testInfo.outputPath(shot.name), fullPage: false });
    }
    await manager.page.setViewportSize({ width: 1280, height: 800 });

    // Again: everything is already stored.
    await manager.importFile("claude", file, target);
    await expect(manager.jobs.first()).toHaveAttribute("data-status", "done");
    await expect(manager.jobs.first().getByTestId("import-summary")).toContainText("0 imported, 6 already stored");

    // A ChatGPT file sent as Claude's: a readable error naming the right import, nothing queued or written.
    consoleWatch.allow(/Failed to load resource: the server responded with a status of 400/);
    const before = await api.counts();
    const jobs = await manager.jobs.count();
    await manager.importFile("claude", CHATGPT_FIXTURE, target);
    await expect(manager.error).toContainText("looks like a ChatGPT export");
    await expect(manager.jobs).toHaveCount(jobs);
    expect(await api.counts()).toEqual(before);
  });

  test("a large import shows how far into the file it is and can be cancelled, keeping what it stored", async ({
    space,
    manager,
  }, testInfo) => {
    const target = `${space.slice(0, 56)}-big`;
    const file = testInfo.outputPath("big-conversations.json");
    writeExport(file, "claude", { exchanges: 3000, from: 7_000_000 });
    await manager.goto();
    await manager.importFile("claude", file, target);
    const job = manager.job(`Claude · big-conversations.json → ${target}`).first();
    await expect(job).toHaveAttribute("data-status", "running");
    await expect(job.getByTestId("import-summary")).toContainText(/\d+% of \d+\.\d MB read/);
    await expect
      .poll(async () => Number(await job.getByRole("progressbar").getAttribute("aria-valuenow")))
      .toBeGreaterThan(0);
    await job.scrollIntoViewIfNeeded();
    await manager.page.screenshot({ path: "test-results/screenshots/import-running-1280.png" });
    await manager.page.setViewportSize({ width: 390, height: 844 });
    await job.scrollIntoViewIfNeeded();
    await manager.page.screenshot({ path: "test-results/screenshots/import-running-390.png" });
    await job.getByRole("button", { name: "Cancel, keep what is imported" }).click();
    await expect(job).toHaveAttribute("data-status", "cancelled");
    await expect(job.getByTestId("import-summary")).toContainText("cancelled, what it stored kept");
    await expect(job.getByRole("button", { name: /Cancel/ })).toHaveCount(0);
    await manager.showSpace(target);
    await expect(manager.rows.first()).toBeVisible();
  });
});
