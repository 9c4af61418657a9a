import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { TRPCReactProvider } from "./_trpc/client";
import { NavLinks } from "./nav-links";
import { AuthNav, visitorHere } from "./auth-nav";
import { ModelBanner } from "./_setup/model-banner";
import { FirstRunChecklist } from "./_setup/first-run-checklist";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Memo", template: "%s · Memo" },
  description: "Local-first chat with persistent memory",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A signed-out visitor (on /login) gets the name and the page, not the app's menu or its banners.
  const signedOut = (await visitorHere()) === "signed-out";
  return (
    <html lang="en">
      <body className="min-h-screen bg-zinc-50 text-zinc-900 dark:bg-zinc-950 dark:text-zinc-100">
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        {/* Fixed height (the chat shell sits below it): one row, two compact rows on a phone. */}
        <header className="h-[var(--header-h)] overflow-hidden border-b border-zinc-200 dark:border-zinc-800">
          <nav
            aria-label="Main"
            className="flex h-full flex-wrap content-center items-center gap-x-2 whitespace-nowrap px-3 sm:flex-nowrap sm:gap-x-3"
          >
            {signedOut ? (
              <span className="shrink-0 font-semibold tracking-tight">Memo</span>
            ) : (
              <Link href="/" className="shrink-0 font-semibold tracking-tight">
                Memo
              </Link>
            )}
            {!signedOut && <NavLinks />}
            <AuthNav />
          </nav>
        </header>
        <TRPCReactProvider>
          {!signedOut && <ModelBanner />}
          <main id="main" tabIndex={-1} className="mx-auto max-w-5xl px-4 py-6 focus:outline-none">
            {!signedOut && <FirstRunChecklist />}
            {children}
          </main>
        </TRPCReactProvider>
      </body>
    </html>
  );
}
