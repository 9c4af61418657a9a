import type { Metadata } from "next";
import { safeNextPath } from "@/server/auth/next-path";
import { ChangePasswordForm } from "./change-password-form";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Change your password" };

/**
 * Where a person whose password an admin set (initial, or a reset) chooses their own. Until they do, the
 * gate (server/auth/access.ts enforcePasswordChange) sends every other page here and refuses every API
 * but the two this form calls; anyone else signed in may change their password here too.
 */
export default async function PasswordPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const next = safeNextPath((await searchParams).next);
  return (
    <div className="mx-auto max-w-sm space-y-4 py-8">
      <h1 className="text-2xl font-semibold">Change your password</h1>
      <ChangePasswordForm next={next.startsWith("/password") ? "/" : next} />
    </div>
  );
}
