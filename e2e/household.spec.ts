import fs from "node:fs";
import type { Browser, Locator, Page } from "@playwright/test";
import { test, expect } from "./fixtures";
import { ChatPage } from "./pages/chat.page";
import { LoginPage } from "./pages/login.page";
import { LAN_PASSWORD, startLanServer, type LanServer } from "./support/lan-server";

/**
 * A household server (issue 32, docs/security.md#a-household-server-several-people): on the 0.0.0.0
 * server, the owner adds a person; both chat at the same time in their own `personal` spaces and each
 * turn's recalled memories (what would be sent) hold only their own memory; the owner disables the person
 * and that person's next request is refused; the owner sees failed sign-ins per account. Screenshots of Settings → People at 1280×800 and 390×844 go to
 * test-results/screenshots/settings-people-*.png. (This server's provider key is a secret the fixture refuses,
 * so replies end in a key error: recall happens before the provider is asked, and is what is checked.)
 */
const SAM_PASSWORD = "sam's own long password";
const OWNER_FACT = "My locker code at the swimming pool is 5512.";
const SAM_FACT = "My locker code at the swimming pool is 9034.";
const QUESTION = "What is my locker code at the swimming pool?";

let lan: LanServer;

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async () => {
  lan = await startLanServer(4);
});
test.afterAll(async () => {
  await lan?.stop();
});

async function signedIn(browser: Browser, login: string, password: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: lan.url, extraHTTPHeaders: { origin: lan.url } });
  const page = await context.newPage();
  const form = new LoginPage(page);
  await form.goto();
  if (login) await page.getByRole("textbox", { name: /^Sign-in name/ }).fill(login);
  await form.signIn(password);
  await expect(page).not.toHaveURL(/\/login/);
  return page;
}

test("two people chat at once, each recalls only their own memory; a disabled person is refused at once", async ({
  browser,
}) => {
  const owner = await signedIn(browser, "", LAN_PASSWORD);
  const added = await owner.request.post("/api/v1/people", {
    data: { name: "Sam", login: "sam", password: SAM_PASSWORD, role: "member" },
  });
  expect(added.status(), await added.text()).toBe(201);
  const sam = (await added.json()) as { id: string; login: string };
  expect(sam.login).toBe("sam");

  // Two wrong guesses of Sam's password from a browser that never signed in (issue 43, finding 3): the
  // owner sees them per account in Settings → People; Sam, a member, does not.
  const stranger = await browser.newContext({ baseURL: lan.url });
  for (const guess of ["wrong guess one", "wrong guess two"]) {
    const r = await stranger.request.post("/api/auth/login", { data: { login: "sam", password: guess } });
    expect(r.status()).toBe(401);
    expect((await r.json()).error.message).toBe("wrong sign-in name or password");
  }
  await stranger.close();

  // Settings → People as the owner sees it, with Sam listed: at 1280×800 and 390×844 (then back).
  const viewport = owner.viewportSize();
  await owner.goto("/settings#people");
  const people = owner.getByTestId("people-section");
  await expect(people).toContainText("sam");
  const samRow = people.getByRole("row").filter({ hasText: "sam" });
  await expect(samRow.getByTestId("sign-in-failures")).toContainText("2 failed");
  await samRow.getByTestId("sign-in-failures").getByText("1 address").click();
  await expect(samRow.getByTestId("sign-in-failures")).toContainText("127.0.0.1: 2");
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await owner.setViewportSize({ width, height });
    await people.scrollIntoViewIfNeeded();
    await people.screenshot({ path: `test-results/screenshots/settings-people-${width}.png` });
  }
  if (viewport) await owner.setViewportSize(viewport);

  const member = await signedIn(browser, "sam", SAM_PASSWORD);
  await member.goto("/settings#people");
  await expect(member.getByTestId("people-section")).toContainText("Your password");
  await expect(member.getByTestId("people-section")).not.toContainText("failed");
  expect((await member.request.get("/api/v1/people")).status(), "a member does not list people").toBe(403);
  for (const [page, text] of [
    [owner, OWNER_FACT],
    [member, SAM_FACT],
  ] as const) {
    const res = await page.request.post("/api/v1/remember", { data: { text } });
    expect(res.status(), await res.text()).toBe(201);
  }

  // The same question at the same time, each in their own `personal`.
  const ownerChat = new ChatPage(owner);
  const memberChat = new ChatPage(member);
  await Promise.all([ownerChat.goto(), memberChat.goto()]);
  const [ownerReply, memberReply] = await Promise.all([ownerChat.send(QUESTION), memberChat.send(QUESTION)]);
  const ownerRecalled = await ownerChat.openRecalled(ownerReply);
  const memberRecalled = await memberChat.openRecalled(memberReply);
  await expect(ownerRecalled).toContainText("5512");
  await expect(ownerRecalled).not.toContainText("9034");
  await expect(memberRecalled).toContainText("9034");
  await expect(memberRecalled).not.toContainText("5512");

  // Search over the API: the same separation.
  const found = await member.request.post("/api/v1/search", { data: { query: QUESTION } });
  expect(found.status()).toBe(200);
  const body = await found.text();
  expect(body).toContain("9034");
  expect(body).not.toContain("5512");

  // Disabled mid-session: the person's next request and next page are refused.
  const disabled = await owner.request.patch(`/api/v1/people/${sam.id}`, { data: { disabled: true } });
  expect(disabled.status(), await disabled.text()).toBe(200);
  const refused = await member.request.post("/api/v1/search", { data: { query: QUESTION } });
  expect([401, 403]).toContain(refused.status());
  expect(await refused.text()).not.toContain("9034");
  await member.goto("/");
  await expect(member).toHaveURL(/\/login/);
  // The owner goes on.
  expect((await owner.request.post("/api/v1/search", { data: { query: QUESTION } })).status()).toBe(200);
});

const KIM_PASSWORD = "kim's own long password";
const RECIPE = "Grandma's lentil soup needs cumin, a bay leaf and a squeeze of lemon.";
// Answers may echo the query: it lacks "cumin", the word checked for.
const RECIPE_Q = "lentil soup bay leaf lemon";

test("a space the owner shares (Settings → Spaces → Share) is read by that person only where they name it, and nowhere once removed", async ({
  browser,
}) => {
  const owner = await signedIn(browser, "", LAN_PASSWORD);
  const added = await owner.request.post("/api/v1/people", {
    data: { name: "Kim", login: "kim", password: KIM_PASSWORD, role: "member" },
  });
  expect(added.status(), await added.text()).toBe(201);
  const kept = await owner.request.post("/api/v1/remember", { data: { text: RECIPE, space: "recipes" } });
  expect(kept.status(), await kept.text()).toBe(201);

  await owner.goto("/settings");
  const spaces = owner.getByTestId("spaces-section");
  await spaces.getByRole("button", { name: "Share recipes" }).click();
  const panel = spaces.getByRole("group", { name: "Sharing of recipes" });
  await panel.getByRole("textbox", { name: "Sign-in name of the person to share recipes with" }).fill("kim");
  await panel.getByRole("button", { name: "Share", exact: true }).click();
  await expect(panel.getByTestId("space-share-person")).toContainText("Kim");
  await shoot(owner, spaces, "settings-space-shared");

  const kim = await signedIn(browser, "kim", KIM_PASSWORD);
  await kim.goto("/settings");
  const row = kim.getByTestId("shared-space-row");
  await expect(row).toContainText("recipes");
  await expect(row).toContainText("Owner");
  await shoot(kim, kim.getByTestId("spaces-section"), "settings-shared-with-me");

  // Kim is told on the chat page (issue 48), with whose space it is and how it is shared, and can pick it in
  // a new chat before its first message (the "Shared" picker in the chat's options).
  const kimChat = new ChatPage(kim);
  const notice = kim.getByTestId("share-notice");
  const picker = kim.getByTestId("shared-spaces-picker");
  const viewport = kim.viewportSize();
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await kim.setViewportSize({ width, height });
    await kimChat.goto();
    await expect(notice).toHaveText(/^Owner shared the space “recipes” with you \(read-only\)\./);
    await kim.screenshot({ path: `test-results/screenshots/chat-share-notice-${width}.png` });
    if (await kimChat.optionsButton.isVisible()) await kimChat.optionsButton.click();
    await picker.locator("summary").click();
    await expect(picker.getByRole("checkbox", { name: "recipes (Owner’s, read-only)" })).not.toBeChecked();
    await kim.screenshot({ path: `test-results/screenshots/chat-shared-picker-new-${width}.png` });
  }
  if (viewport) await kim.setViewportSize(viewport);
  await picker.getByRole("checkbox", { name: /^recipes/ }).check();
  await expect(picker.locator("summary")).toHaveText("Shared (1)");
  const picked = await kimChat.send(RECIPE_Q);
  await expect(await kimChat.openRecalled(picked)).toContainText("cumin");
  const conversationId = await kimChat.conversationId();
  const addedSpaces = await kim.request.get(
    `/api/trpc/conversations.spaces?input=${encodeURIComponent(JSON.stringify({ id: conversationId }))}`,
  );
  expect(await addedSpaces.text()).toContain('"spaces":["owner~recipes"]');
  await expect(notice, "adding the space to a chat is seeing it").toHaveCount(0);

  // A second share, dismissed: gone for good (the seen state is stored, not the page's).
  const kept2 = await owner.request.post("/api/v1/remember", {
    data: { text: "The roses want pruning in March.", space: "garden" },
  });
  expect(kept2.status(), await kept2.text()).toBe(201);
  const garden = await owner.request.post("/api/trpc/spaces.share", {
    data: JSON.stringify({ space: "garden", person: "kim", mode: "write" }),
    headers: { "content-type": "application/json" },
  });
  expect(garden.status(), await garden.text()).toBe(200);
  await kimChat.goto();
  await expect(notice).toHaveText(/^Owner shared the space “garden” with you \(read-write\)\./);
  await notice.getByRole("button", { name: "Dismiss: Owner shared garden with you" }).click();
  await expect(notice).toHaveCount(0);
  await kimChat.goto();
  await expect(kimChat.emptyHint).toBeVisible();
  await expect(notice).toHaveCount(0);

  // A lookup by id runs the store's SQL check of who acts (acting_person()) in the built app's bundles.
  const recipeId = ((await kept.json()) as { ids: string[] }).ids[0]!;
  expect((await kim.request.get(`/api/v1/memories/${recipeId}`)).status()).toBe(200);
  const named = await kim.request.post("/api/v1/search", { data: { query: RECIPE_Q, space: "owner~recipes" } });
  expect(named.status(), await named.text()).toBe(200);
  expect(await named.text()).toContain("cumin");
  expect(await (await kim.request.post("/api/v1/search", { data: { query: RECIPE_Q } })).text()).not.toContain("cumin");
  const write = await kim.request.post("/api/v1/remember", { data: { text: "Kim was here", space: "owner~recipes" } });
  expect(write.status(), await write.text()).toBe(403);

  await panel.getByRole("button", { name: "Stop sharing recipes with Kim" }).click();
  await expect(panel.getByTestId("space-share-person")).toHaveCount(0);
  const after = await kim.request.post("/api/v1/search", { data: { query: RECIPE_Q, space: "owner~recipes" } });
  expect(after.status()).toBe(404);
  expect(await after.text()).not.toContain("cumin");
  const byId = await kim.request.get(`/api/v1/memories/${recipeId}`);
  expect(byId.status()).toBe(404);
  expect(await byId.text()).not.toContain("cumin");
});

const LEE_PASSWORD = "lee's own long password";

test("a member sets their own memory lifetime in Settings (decay days and kinds), which the owner's stays apart from", async ({
  browser,
}) => {
  const owner = await signedIn(browser, "", LAN_PASSWORD);
  const added = await owner.request.post("/api/v1/people", {
    data: { name: "Lee", login: "lee", password: LEE_PASSWORD, role: "member" },
  });
  expect(added.status(), await added.text()).toBe(201);
  const lee = await signedIn(browser, "lee", LEE_PASSWORD);
  await lee.goto("/settings#lifetime");
  const section = lee.getByTestId("lifetime-section");
  const form = section.getByRole("form", { name: "Lifetime of your memories" });
  await expect(form.getByRole("spinbutton", { name: "Idle days before decay" })).toHaveValue("14");
  await form.getByRole("spinbutton", { name: "Idle days before decay" }).fill("5");
  await form.getByRole("spinbutton", { name: "Days at importance 0" }).fill("3");
  await form.getByRole("spinbutton", { name: "Retention of deleted memories" }).fill("10");
  await form.getByRole("checkbox", { name: /^Imported/ }).check();
  await form.getByRole("button", { name: "Save lifetime settings" }).press("Enter");
  await expect(section.getByTestId("lifetime-saved")).toContainText("Saved");
  await shoot(lee, section, "settings-lifetime-member");
  // Providers are the household's (issue 48: a member's card was empty): said, with their own memory sharing.
  const providers = lee.getByTestId("providers-section");
  await expect(providers.getByTestId("providers-admin-only")).toContainText("an admin sets them up");
  await expect(providers.getByTestId("memory-sharing")).toBeVisible();
  await shoot(lee, providers, "settings-providers-member");
  await expect(lee.getByTestId("people-section")).not.toContainText("Adding the first person");
  // The household's job schedule is an admin's: a member gets no jobs form to fail on.
  await expect(lee.getByRole("form", { name: "Background job settings" })).toHaveCount(0);

  // Saved as Lee's own: after a reload, and as the decay job reads it.
  await lee.reload();
  await expect(form.getByRole("spinbutton", { name: "Idle days before decay" })).toHaveValue("5");
  await expect(form.getByRole("spinbutton", { name: "Retention of deleted memories" })).toHaveValue("10");
  await expect(form.getByRole("checkbox", { name: /^Imported/ })).toBeChecked();
  const mine = await lee.request.get("/api/trpc/jobs.lifetime");
  expect(await mine.text()).toMatch(/"idleDays":5,"zeroDays":3,"retentionDays":10/);
  // The owner's are the owner's.
  const owners = await owner.request.get("/api/trpc/jobs.lifetime");
  expect(await owners.text()).toMatch(/"idleDays":14,"zeroDays":7,"retentionDays":30/);
  await owner.goto("/settings#lifetime");
  await expect(
    owner.getByTestId("lifetime-section").getByRole("spinbutton", { name: "Idle days before decay" }),
  ).toHaveValue("14");
  await shoot(owner, owner.getByTestId("jobs-section"), "settings-jobs-admin");
});

const RIA_PASSWORD = "ria's own long password";
const RIA_FACT = "Ria's bike lock code is 4471.";

test("another person's memory leaves only with their removal: Settings → People has Export and remove, no Export", async ({
  browser,
}) => {
  const owner = await signedIn(browser, "", LAN_PASSWORD);
  const added = await owner.request.post("/api/v1/people", {
    data: { name: "Ria", login: "ria", password: RIA_PASSWORD, role: "member" },
  });
  expect(added.status(), await added.text()).toBe(201);
  const ria = await signedIn(browser, "ria", RIA_PASSWORD);
  const res = await ria.request.post("/api/v1/remember", { data: { text: RIA_FACT } });
  expect(res.status(), await res.text()).toBe(201);

  await owner.goto("/settings#people");
  const people = owner.getByTestId("people-section");
  const row = people.getByRole("row").filter({ hasText: "ria" });
  await expect(row.getByRole("button", { name: "Export and remove" })).toBeVisible();
  await expect(people).toContainText("a person's memories leave Memo only with their removal");
  // No standing export of a person who stays (issue 58), and none of the owner at all.
  await expect(people.getByRole("link", { name: "Export" })).toHaveCount(0);
  await expect(people.getByRole("row").filter({ hasText: "owner" }).getByRole("button")).toHaveCount(0);
  await shoot(owner, people, "settings-people-export-and-remove");

  owner.once("dialog", (d) => void d.accept());
  const [download] = await Promise.all([
    owner.waitForEvent("download"),
    row.getByRole("button", { name: "Export and remove" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^memo-export-ria-\d{4}-\d{2}-\d{2}\.json$/);
  const file = JSON.parse(fs.readFileSync((await download.path())!, "utf8")) as { memories: { content: string }[] };
  expect(file.memories.map((m) => m.content)).toEqual([RIA_FACT]);
  await expect(people).toContainText("Their memories were saved as memo-export-ria-");
  await expect(people.getByRole("row").filter({ hasText: "ria" })).toHaveCount(0);
});

/** The element at 1280×800 and 390×844, into test-results/screenshots/<name>-<width>.png; the viewport restored. */
async function shoot(page: Page, el: Locator, name: string): Promise<void> {
  const viewport = page.viewportSize();
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await el.scrollIntoViewIfNeeded();
    await el.screenshot({ path: `test-results/screenshots/${name}-${width}.png` });
  }
  if (viewport) await page.setViewportSize(viewport);
}
