import type { Page } from "@playwright/test";
import { test, expect } from "./chat-fixtures";

/**
 * A new user's second walk (issue 57): the words on the provider pages, the Ingest page's limits and time
 * estimate said before an upload, the chat page's target sizes on a phone (WCAG 2.2: 24 px, the frequent
 * controls 44), and every page in dark mode (a screenshot pair per page, and no text that cannot be read).
 * Screenshots: test-results/screenshots/new-user-*.png.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `test-results/screenshots/new-user-${name}.png`, fullPage: true });

/** Every visible control's box on the page: name, role and size (visually hidden inputs aside: their label is the target). */
async function controlBoxes(page: Page) {
  return page.evaluate(() => {
    const sel =
      'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], [role="switch"], [role="tab"], [tabindex]:not([tabindex="-1"])';
    const out: { name: string; tag: string; w: number; h: number }[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(sel))) {
      if (!el.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
      // A checkbox or radio button in its label: the label is the target (a click on it toggles).
      const label = el.matches("input[type=checkbox], input[type=radio]") ? el.closest("label") : null;
      const r = (label ?? el).getBoundingClientRect();
      if (r.width <= 1 && r.height <= 1) continue; // sr-only
      if (r.right <= 0 || r.left >= window.innerWidth) continue; // a closed drawer, off screen
      const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
      out.push({ name, tag: el.tagName.toLowerCase(), w: Math.round(r.width), h: Math.round(r.height) });
    }
    return out;
  });
}

test.describe("chat page on a phone (390×844)", () => {
  test.use({ viewport: PHONE });

  test("every control is at least 24×24 px; Copy, Edit, Regenerate, Undo and Send at least 44×44", async ({
    chat,
    page,
    space,
  }) => {
    await chat.goto(space);
    const token = Math.random().toString(36).slice(2, 8);
    const reply = await chat.send(`What is a good name for a cat ${token}?`);
    await chat.settled(reply);
    await expect(reply.getByTestId("remembered-link")).toBeVisible({ timeout: 20_000 });
    const remembered = await chat.send(`/remember The spare key ${token} is under the blue pot`);
    await expect(remembered).toContainText("Remembered");
    const forgot = await chat.send(`/forget spare key ${token}`);
    await forgot.getByRole("button", { name: /^Forget 1 memory/ }).click();
    await expect(page.getByRole("button", { name: "Undo", exact: true }).first()).toBeVisible();
    await expect(page.getByTestId("banner-notice").first()).toBeVisible();
    await shot(page, "chat-targets-390");

    const small: string[] = [];
    const frequent = /^(Copy|Edit|Regenerate|Undo|Send|Retry)$/;
    const check = (boxes: Awaited<ReturnType<typeof controlBoxes>>) => {
      for (const b of boxes) {
        const min = frequent.test(b.name) ? 44 : 24;
        if (b.w < min || b.h < min) small.push(`${b.tag} "${b.name}" ${b.w}×${b.h} (< ${min})`);
      }
    };
    const boxes = await controlBoxes(page);
    expect(boxes.filter((b) => b.name === "Copy").length).toBeGreaterThanOrEqual(2);
    expect(boxes.some((b) => b.name === "this exchange")).toBe(true);
    check(boxes);
    // The drawer's controls too (the conversation list, search, new chat).
    await chat.openDrawerButton.click();
    await expect(chat.conversations).toBeInViewport();
    await page.waitForTimeout(400); // the drawer's slide-in
    check(await controlBoxes(page));
    expect([...new Set(small)], "controls under the target size").toEqual([]);
  });
});

test.describe("the provider pages say each thing once, where it applies", () => {
  test("Settings → Providers does not send you to itself; the chat card's 'Other ways' adds, not repeats", async ({
    chat,
    chatApi,
    providers,
    page,
    space,
  }) => {
    void chatApi; // resets the provider settings afterwards
    await providers.goto();
    await providers.choose("None (memory commands only)");
    await providers.save();
    await expect(providers.state).toContainText("No chat provider is configured");
    await expect(providers.state).not.toContainText("Settings → Providers");

    await chat.goto(space);
    const card = chat.connectModel;
    await card.getByText("Other ways to connect one").click();
    await expect(card).toContainText("MEMO_PROVIDER=openai");
    const text = (await card.textContent()) ?? "";
    for (const once of ["Settings → Providers", "/remember", "No chat provider is configured", "Connect a model"])
      expect(text.split(once).length - 1, `"${once}" said ${text.split(once).length - 1} times: ${text}`).toBeLessThan(
        2,
      );
    await page.setViewportSize(PHONE);
    await shot(page, "connect-model-390");
  });
});

test.describe("Ingest page: what applies is said before the upload", () => {
  test("the limits per type and the time a file takes here; a text file over the character limit is not uploaded", async ({
    page,
  }) => {
    await page.goto("/ingest");
    const hint = page.getByTestId("ingest-limits");
    await expect(hint).toContainText(/Markdown and text: up to 5,000,000 characters/);
    await expect(hint).toContainText(/PDF: up to 50\.0 MB, 2,000 pages/);
    await expect(page.getByTestId("ingest-speed")).toContainText(
      /(No document has been ingested here yet|about .* per MB)/,
    );
    const big = Buffer.alloc(5_000_100, "a");
    await page
      .getByLabel("Choose files to ingest")
      .setInputFiles({ name: "huge.txt", mimeType: "text/plain", buffer: big });
    await expect(page.getByRole("alert").filter({ hasText: "huge.txt" })).toContainText(
      "huge.txt: not uploaded: it holds 5,000,100 characters of text; Memo reads at most 5,000,000 per file",
    );
    await expect(page.getByTestId("uploading")).toHaveCount(0);
    await expect(page.getByTestId("document").filter({ hasText: "huge.txt" })).toHaveCount(0);
    await shot(page, "ingest-limits-1280");
  });
});

/** Text whose contrast with what is behind it is under 4.5:1 (3:1 for large text), and light boxes, in dark mode. */
async function darkProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // Any CSS colour (rgb, oklch, oklab, color-mix…) to sRGB through a canvas, as the browser paints it.
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const g = canvas.getContext("2d", { willReadFrequently: true })!;
    const cache = new Map<string, [number, number, number, number] | null>();
    const parse = (c: string): [number, number, number, number] | null => {
      if (!c || c === "transparent") return null;
      if (!cache.has(c)) {
        g.clearRect(0, 0, 1, 1);
        g.fillStyle = "rgba(0, 0, 0, 0)";
        g.fillStyle = c;
        g.fillRect(0, 0, 1, 1);
        const [r, gr, bl, a] = g.getImageData(0, 0, 1, 1).data;
        cache.set(c, [r!, gr!, bl!, a! / 255]);
      }
      return cache.get(c)!;
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    /** The colour behind an element: its own and its ancestors' backgrounds, composited. */
    const background = (el: Element | null): number[] => {
      const layers: number[][] = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0) {
          layers.push(c);
          if (c[3] >= 1) break;
        }
      }
      let base = [255, 255, 255];
      for (const c of layers.reverse()) base = base.map((v, i) => v * (1 - c[3]!) + c[i]! * c[3]!);
      return base;
    };
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const text = (n.textContent ?? "").trim();
      const el = n.parentElement;
      if (!text || !el) continue;
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue;
      if (el.closest("svg, .recharts-wrapper, [disabled], [aria-disabled='true']")) continue;
      const st = getComputedStyle(el);
      const fg = parse(st.color);
      if (!fg) continue;
      const bg = background(el);
      const fgc = fg.slice(0, 3).map((v, i) => v * fg[3]! + bg[i]! * (1 - fg[3]!));
      const [a, b] = [lum(fgc), lum(bg)].sort((x, y) => y - x);
      const ratio = (a! + 0.05) / (b! + 0.05);
      const size = Number.parseFloat(st.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`"${text.slice(0, 40)}" ${ratio.toFixed(2)}:1`);
    }
    // A light box on a dark page: a white card or panel.
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const c = parse(getComputedStyle(el).backgroundColor);
      if (!c || c[3] < 0.5 || !el.checkVisibility()) continue;
      const r = el.getBoundingClientRect();
      if (r.width * r.height < 20_000) continue; // a card or panel, not a button (its text is checked above)
      if (lum(c) > 0.5 && !el.closest("svg, .recharts-wrapper"))
        out.push(`light box <${el.tagName.toLowerCase()} ${(el.textContent ?? "").trim().slice(0, 30)}>`);
    }
    return [...new Set(out)];
  });
}

test.describe("dark mode: every page reads well", () => {
  test.use({ colorScheme: "dark" });
  const PAGES: [string, string, string][] = [
    ["chat", "/", "form[aria-label='Send a message'][data-hydrated]"],
    ["ingest", "/ingest", "[data-testid='drop-zone']"],
    ["settings", "/settings", "#providers-heading"],
    ["manager", "/memory/manager", "main h1"],
    ["knows", "/memory/knows", "main h1"],
    ["analytics", "/memory/analytics", "main h1"],
    ["search", "/memory/search", "main h1"],
    ["password", "/password", "main h1"],
  ];
  for (const [name, path, ready] of PAGES) {
    test(`${name}: a screenshot pair in dark, and no unreadable text or light box`, async ({ page }) => {
      const problems: string[] = [];
      for (const [size, viewport] of [
        ["1280", DESKTOP],
        ["390", PHONE],
      ] as const) {
        await page.setViewportSize(viewport);
        await page.goto(path);
        await expect(page.locator(ready).first()).toBeVisible();
        await page.waitForLoadState("networkidle");
        await shot(page, `dark-${name}-${size}`);
        problems.push(...(await darkProblems(page)).map((p) => `${size}: ${p}`));
      }
      expect(problems, `${name} in dark mode`).toEqual([]);
    });
  }
});
