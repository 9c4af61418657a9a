import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { loginRequiredHere } from "@/server/auth/gate";
import { getDb } from "@/server/db";
import { hasOwnerPassword } from "@/server/auth/store";
import { otherPeopleCount } from "@/server/auth/people";
import { safeNextPath } from "@/server/auth/next-path";
import { LoginForm } from "./login-form";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const next = safeNextPath((await searchParams).next);
  const required = loginRequiredHere(await headers());
  const passwordSet = hasOwnerPassword(getDb().sqlite);
  return (
    <div className="mx-auto max-w-sm space-y-4 py-8">
      <h1 className="text-2xl font-semibold">Sign in to Memo</h1>
      {!passwordSet ? (
        <p className="text-sm" role="status">
          No owner password is set. On the machine running Memo, run <code>npm run set-password</code>, then sign in
          here.
        </p>
      ) : (
        <>
          {!required && (
            <p className="text-sm text-zinc-500" role="status">
              Memo is listening on loopback only: no sign-in is needed here.{" "}
              <Link href="/" className="underline">
                Open Memo
              </Link>
            </p>
          )}
          <LoginForm next={next} household={otherPeopleCount(getDb().sqlite) > 0} />
        </>
      )}
    </div>
  );
}
