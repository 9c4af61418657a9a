import { headers } from "next/headers";
import { readCookie } from "@/server/auth/access";
import { loginRequiredHere } from "@/server/auth/gate";
import { getDb } from "@/server/db";
import { SESSION_COOKIE, sessionFromToken } from "@/server/auth/store";
import { SignOutButton } from "./sign-out-button";

/** "Sign out" in the navigation, shown when sign-in is required and this browser is signed in. */
export async function AuthNav() {
  const h = await headers();
  if (!loginRequiredHere(h)) return null;
  const token = readCookie(h, SESSION_COOKIE);
  if (!token || !sessionFromToken(getDb().sqlite, token)) return null;
  return <SignOutButton />;
}
