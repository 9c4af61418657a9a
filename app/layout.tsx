import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "./_trpc/client";
import "./globals.css";

export const metadata: Metadata = {
  title: "Memo",
  description: "Local-first chat with persistent memory",
};

const NAV = [
  { href: "/", label: "Chat" },
  { href: "/ingest", label: "Ingest" },
  { href: "/memory/search", label: "Search" },
  { href: "/memory/manager", label: "Manager" },
  { href: "/memory/analytics", label: "Analytics" },
  { href: "/settings", label: "Settings" },
];

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
        <header className="border-b border-zinc-200 dark:border-zinc-800">
          <nav aria-label="Main" className="mx-auto flex max-w-5xl flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3">
            <Link href="/" className="font-semibold tracking-tight">
              Memo
            </Link>
            {NAV.map((n) => (
              <Link key={n.href} href={n.href} className="text-sm text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100">
                {n.label}
              </Link>
            ))}
          </nav>
        </header>
        <TRPCReactProvider>
          <main className="mx-auto max-w-5xl px-4 py-6">{children}</main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
