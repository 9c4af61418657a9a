"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The main navigation's links; the current page is marked for screen readers (aria-current) and visually. */
const GROUPS: { label?: string; links: { href: string; label: string }[] }[] = [
  {
    links: [
      { href: "/", label: "Chat" },
      { href: "/ingest", label: "Ingest" },
    ],
  },
  {
    label: "Memory",
    links: [
      { href: "/memory/search", label: "Debug Search" },
      { href: "/memory/manager", label: "Manager" },
      { href: "/memory/knows", label: "Facts" },
      { href: "/memory/analytics", label: "Analytics" },
    ],
  },
  { links: [{ href: "/settings", label: "Settings" }] },
];

function isCurrent(pathname: string, href: string): boolean {
  if (href === "/") return pathname === "/" || pathname.startsWith("/c/");
  return pathname === href || pathname.startsWith(`${href}/`);
}

const ROW = "contents sm:flex sm:flex-nowrap sm:items-center sm:gap-x-1";

/** A labelled group is drawn as a box around its links with its name small inside it: a group's name, not a dead link. */
function Group({ label, id, children }: { label?: string; id: string; children: React.ReactNode }) {
  if (!label) return <div className={ROW}>{children}</div>;
  return (
    <div
      role="group"
      aria-labelledby={id}
      className={`${ROW} sm:rounded-md sm:border sm:border-zinc-200 sm:py-0.5 sm:pl-2 sm:pr-0.5 sm:dark:border-zinc-800`}
    >
      {children}
    </div>
  );
}

export function NavLinks() {
  const pathname = usePathname() ?? "/";
  return (
    // On a phone the links flow with the "Memo" link as one wrapping row (two rows in all), not a block under it.
    <ul className="contents text-sm sm:flex sm:flex-nowrap sm:items-center sm:gap-x-1">
      {GROUPS.map((g, gi) => (
        <li key={gi} className="contents sm:flex sm:flex-nowrap sm:items-center sm:gap-x-1">
          <Group label={g.label} id={`nav-group-${gi}`}>
            {g.label && (
              <span
                id={`nav-group-${gi}`}
                data-testid="nav-group-label"
                className="hidden cursor-default select-none text-[11px] font-medium uppercase tracking-wide text-zinc-500 sm:inline dark:text-zinc-400"
              >
                {g.label}
              </span>
            )}
            {/* On a phone each link flows on its own (the group's links may share a row with Chat or Settings). */}
            <ul className="contents text-sm sm:flex sm:flex-nowrap sm:items-center sm:gap-x-1">
              {g.links.map((n) => {
                const current = isCurrent(pathname, n.href);
                return (
                  <li key={n.href}>
                    <Link
                      href={n.href}
                      aria-current={current ? "page" : undefined}
                      className={`inline-block rounded px-1 py-0.5 sm:px-2 sm:py-1 ${
                        current
                          ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900"
                          : "text-zinc-600 hover:bg-zinc-200 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
                      }`}
                    >
                      {n.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </Group>
        </li>
      ))}
    </ul>
  );
}
