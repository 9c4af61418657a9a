import { z } from "zod";
import { getDb } from "../db";
import { handle, json, readBody } from "./rest";
import { accessConfig, clientAddress, readCookie, requestIsHttps } from "../auth/access";
import { loginRequiredHere } from "../auth/gate";
import { signIn } from "../auth/login";
import { MAX_PASSWORD_CHARS } from "../auth/password";
import { DEVICE_COOKIE } from "../auth/sign-in-attempts";
import { deleteSession, SESSION_COOKIE, sessionDays } from "../auth/store";

/** The session cookie: httpOnly (no script can read it), SameSite=Lax, Secure when the request came over https. */
export function sessionCookie(token: string, req: Request): string {
  const secure = requestIsHttps(req.headers, accessConfig()) ? "; Secure" : "";
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.round(sessionDays() * 86_400)}${secure}`;
}

/**
 * The known-device cookie (server/auth/sign-in-attempts.ts), set at every successful sign-in and kept at
 * sign-out: it lets this browser's sign-ins count apart from an attack on the account elsewhere. It is no
 * credential (it opens nothing); only /api (sign-in, the password forms) reads it. 400 days, browsers' cap.
 */
export function deviceCookie(secret: string, req: Request): string {
  const secure = requestIsHttps(req.headers, accessConfig()) ? "; Secure" : "";
  return `${DEVICE_COOKIE}=${secret}; Path=/api; HttpOnly; SameSite=Lax; Max-Age=${400 * 86_400}${secure}`;
}

export function clearedSessionCookie(req: Request): string {
  const secure = requestIsHttps(req.headers, accessConfig()) ? "; Secure" : "";
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}

const loginInput = z.strictObject({
  /** A person's sign-in name; without it the password is the owner's (as before people existed). */
  login: z.string().trim().min(1, "enter your sign-in name").max(64, "sign-in name too long").optional(),
  password: z
    .string()
    .min(1, "enter the password")
    .max(MAX_PASSWORD_CHARS * 4, "password too long"),
});

/**
 * POST /api/auth/login { login?, password } → 200 { ok, expiresAt, person, mustChangePassword } with the
 * session and device cookies; 401 "wrong sign-in name or password" for every failure; 429 throttled, with
 * Retry-After. `{ password }` alone signs in the owner.
 */
export function loginHandler(req: Request): Promise<Response> {
  return handle(async () => {
    const { login, password } = await readBody(req, loginInput, 16 * 1024);
    const db = getDb().sqlite;
    const r = await signIn(db, {
      login,
      password,
      ip: clientAddress(req.headers, accessConfig()),
      deviceCookie: readCookie(req.headers, DEVICE_COOKIE),
      sessionToken: readCookie(req.headers, SESSION_COOKIE),
      userAgent: req.headers.get("user-agent"),
    });
    if (!r.ok) {
      const headers: Record<string, string> = { "cache-control": "no-store" };
      if (r.retryAfterS) headers["retry-after"] = String(r.retryAfterS);
      return Response.json({ error: { status: r.status, message: r.message } }, { status: r.status, headers });
    }
    const res = json({
      ok: true,
      expiresAt: r.expiresAt,
      loginRequired: loginRequiredHere(req.headers),
      person: r.personId,
      mustChangePassword: r.mustChangePassword,
    });
    res.headers.append("set-cookie", sessionCookie(r.token, req));
    res.headers.append("set-cookie", deviceCookie(r.deviceCookie, req));
    res.headers.set("cache-control", "no-store");
    return res;
  });
}

/** POST /api/auth/logout → 200 { ok }: the session is deleted from the store and the cookie cleared. */
export function logoutHandler(req: Request): Response {
  const signedOut = deleteSession(getDb().sqlite, readCookie(req.headers, SESSION_COOKIE));
  const res = json({ ok: true, signedOut });
  res.headers.set("set-cookie", clearedSessionCookie(req));
  res.headers.set("cache-control", "no-store");
  return res;
}
