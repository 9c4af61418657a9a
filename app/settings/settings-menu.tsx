"use client";

import { useEffect, useRef, useState } from "react";

interface Entry {
  id: string;
  title: string;
}

/** The sections on the page, read from the page itself: a section shows only when the person may see it (People, Background jobs). */
function readSections(container: HTMLElement): Entry[] {
  return [...container.querySelectorAll<HTMLElement>(":scope > section[id]")].map((s) => {
    const heading = s.getAttribute("aria-labelledby");
    const title = (heading ? document.getElementById(heading)?.textContent : null) ?? s.id;
    return { id: s.id, title: title.trim() };
  });
}

/**
 * Settings' section menu: a side list of links on a desktop, a "Go to section" select on a phone. Each
 * section has its own anchor (/settings#retrieval), so a link from elsewhere opens at it; the menu marks
 * the section being read (aria-current) as the page scrolls.
 */
export function SettingsMenu({ containerId }: { containerId: string }) {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  // The section last chosen in the menu stays marked while it is on screen (at the page's end a short last
  // section never reaches the reading line), until the person scrolls by hand.
  const chosen = useRef<string | null>(null);

  useEffect(() => {
    const container = document.getElementById(containerId);
    if (!container) return;
    const refresh = () =>
      setEntries((old) => {
        const now = readSections(container);
        return JSON.stringify(now) === JSON.stringify(old) ? old : now;
      });
    refresh();
    const observer = new MutationObserver(refresh);
    observer.observe(container, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [containerId]);

  // A link from another page (/settings#learning) lands on its section and stays there while the sections
  // above it load and grow, until the person scrolls, clicks or types (or 5 s have passed).
  useEffect(() => {
    const container = document.getElementById(containerId);
    const id = window.location.hash.slice(1);
    if (!container || !id) return;
    let pinned = true;
    const land = () => {
      if (pinned) document.getElementById(id)?.scrollIntoView();
    };
    const release = () => {
      pinned = false;
    };
    const resize = new ResizeObserver(land);
    resize.observe(container);
    const events = ["wheel", "touchstart", "keydown", "mousedown"] as const;
    for (const e of events) window.addEventListener(e, release, { passive: true });
    const timer = setTimeout(release, 5000);
    return () => {
      resize.disconnect();
      clearTimeout(timer);
      for (const e of events) window.removeEventListener(e, release);
    };
  }, [containerId]);

  useEffect(() => {
    let frame = 0;
    const onScroll = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        // The section being read: the last one whose top has passed a quarter of the window.
        let at: string | null = entries[0]?.id ?? null;
        for (const e of entries) {
          const el = document.getElementById(e.id);
          if (el && el.getBoundingClientRect().top <= window.innerHeight / 4) at = e.id;
        }
        const pick = chosen.current ? document.getElementById(chosen.current) : null;
        if (pick) {
          const r = pick.getBoundingClientRect();
          if (r.top < window.innerHeight && r.bottom > 0) at = chosen.current;
        }
        setCurrent(at);
      });
    };
    const byHand = () => {
      chosen.current = null;
    };
    onScroll();
    window.addEventListener("scroll", onScroll, { passive: true });
    for (const e of ["wheel", "touchstart", "keydown"] as const) window.addEventListener(e, byHand, { passive: true });
    window.addEventListener("hashchange", onScroll);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("hashchange", onScroll);
      for (const e of ["wheel", "touchstart", "keydown"] as const) window.removeEventListener(e, byHand);
    };
  }, [entries]);

  const go = (id: string) => {
    history.replaceState(null, "", `#${id}`);
    chosen.current = id;
    document.getElementById(id)?.scrollIntoView();
    setCurrent(id);
  };

  if (entries.length === 0) return null;
  return (
    <>
      <nav
        aria-label="Settings sections"
        className="sticky top-4 hidden self-start md:block"
        data-testid="settings-menu"
      >
        <ul className="space-y-0.5 text-sm">
          {entries.map((e) => (
            <li key={e.id}>
              <a
                href={`#${e.id}`}
                aria-current={current === e.id ? "true" : undefined}
                onClick={(ev) => {
                  ev.preventDefault();
                  go(e.id);
                }}
                className={`block rounded px-2 py-1 ${
                  current === e.id
                    ? "bg-zinc-200 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100"
                    : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-900"
                }`}
              >
                {e.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <label className="flex items-center gap-2 text-sm md:hidden">
        <span className="text-zinc-500">Go to section</span>
        <select
          value={current ?? ""}
          onChange={(ev) => go(ev.target.value)}
          className="min-w-0 flex-1 rounded border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900"
        >
          {entries.map((e) => (
            <option key={e.id} value={e.id}>
              {e.title}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}
