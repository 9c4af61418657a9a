import { headers } from "next/headers";
import { readCookie } from "@/server/auth/access";
import { loginRequiredHere } from "@/server/auth/gate";
import { getDb } from "@/server/db";
import { SESSION_COOKIE, sessionFromToken } from "@/server/auth/store";
import { SignOutButton } from "./sign-out-button";

/**
 * Who is looking: "open" when no sign-in is needed here (loopback, the owner alone), "signed-in" with a
 * live session, else "signed-out" — a visitor who can use only the sign-in page, so the layout shows them
 * no app menu (each of its links would bounce back to /login).
 */
export async function visitorHere(): Promise<"open" | "signed-in" | "signed-out"> {
  const h = await headers();
  if (!loginRequiredHere(h)) return "open";
  const token = readCookie(h, SESSION_COOKIE);
  return token && sessionFromToken(getDb().sqlite, token) ? "signed-in" : "signed-out";
}

/** "Sign out" in the navigation, shown when sign-in is required and this browser is signed in. */
export async function AuthNav() {
  return (await visitorHere()) === "signed-in" ? <SignOutButton /> : null;
}
