/**
 * The household's people over REST (issue 32; the contract scripts use, documented in docs/security.md):
 *   POST   /api/v1/people { name, login, password, role, mustChangePassword? } → 201 { id, login }   (admin)
 *   GET    /api/v1/people → { people: [{ …, signIn }], unknownNames }: with failed sign-ins            (admin)
 *   PATCH  /api/v1/people/<id> { disabled?, password?, mustChangePassword?, role? } → the person        (admin)
 *   DELETE /api/v1/people/<id> → { removed, files }: all of that person's data, one transaction         (admin)
 *   GET    /api/v1/people/<id>/export → that person's export file (what removal deletes), as an attachment (admin)
 *   POST   /api/v1/tokens { name } → 201 { token, id, name, prefix }: a token acting as the signed-in person
 * Admin means a session of a person whose role is admin, or the owner at the machine; never an API token.
 */
import { z } from "zod";
import { acting, runAs } from "../core/acting";
import { ServiceError } from "../core/errors";
import { OWNER_ID } from "../core/space-name";
import { getDb } from "../db";
import { principalOf } from "../auth/gate";
import { hashPassword, MAX_PASSWORD_CHARS, passwordProblem } from "../auth/password";
import {
  createPerson,
  getPerson,
  listPeople,
  LOGIN_RE,
  personByLogin,
  setPersonDisabled,
  setPersonPasswordHash,
} from "../auth/people";
import { NO_FAILURES, signInFailureReport } from "../auth/sign-in-report";
import { createApiToken, createSession, hasOwnerPassword } from "../auth/store";
import { removePersonData } from "../services/people-service";
import { exportMemories } from "../services/transfer-service";
import { tokenName } from "../core/validators";
import { sessionCookie } from "./auth";
import { handle, json, readBody } from "./rest";

function requireAdminSession(req: Request): void {
  const p = principalOf(req.headers, req.url);
  if (!p || p.kind === "token" || p.kind === "public" || !acting().admin)
    throw new ServiceError(403, "only an admin signed in with a password (or the owner at the machine) manages people");
}

const password = z.string().max(MAX_PASSWORD_CHARS * 4);
const newPersonInput = z.strictObject({
  name: z.string().trim().min(1, "name the person").max(100, "a name has at most 100 characters"),
  login: z.string().regex(LOGIN_RE, "login must be 1–64 letters, digits, '.', '-' or '_'"),
  password,
  role: z.enum(["admin", "member"]).default("member"),
  mustChangePassword: z.boolean().optional(),
});
const patchPersonInput = z.strictObject({
  disabled: z.boolean().optional(),
  password: password.optional(),
  mustChangePassword: z.boolean().optional(),
});

export function createPersonHandler(req: Request): Promise<Response> {
  return handle(async () => {
    requireAdminSession(req);
    const atTheMachine = principalOf(req.headers, req.url)?.kind === "anonymous-loopback";
    const input = await readBody(req, newPersonInput);
    const db = getDb().sqlite;
    // Adding a person turns sign-in on, even on loopback: the owner must be able to sign in first.
    if (!hasOwnerPassword(db))
      throw new ServiceError(409, "set the owner password first (Settings → Access, or `npm run set-password`)");
    const problem = passwordProblem(input.password);
    if (problem) throw new ServiceError(400, problem);
    if (personByLogin(db, input.login)) throw new ServiceError(409, `the sign-in name '${input.login}' is taken`);
    const p = createPerson(db, {
      name: input.name,
      login: input.login,
      role: input.role,
      mustChangePassword: input.mustChangePassword,
      passwordHash: await hashPassword(input.password),
    });
    const res = json({ id: p.id, login: p.login }, 201);
    // The owner at the machine (no session: nobody else existed) — this person turns sign-in on for them too,
    // and the page's next request would be refused (issue 48). They are the owner already: keep them signed in.
    if (atTheMachine)
      res.headers.append(
        "set-cookie",
        sessionCookie(createSession(db, { personId: OWNER_ID, userAgent: req.headers.get("user-agent") }).token, req),
      );
    return res;
  });
}

/** The people, each with their failed sign-ins (server/auth/sign-in-report.ts), and those of names nobody has. */
export function listPeopleHandler(req: Request): Promise<Response> {
  return handle(() => {
    requireAdminSession(req);
    const db = getDb().sqlite;
    const report = signInFailureReport(db);
    return json({
      people: listPeople(db).map((p) => ({ ...p, signIn: report.byAccount.get(p.id) ?? NO_FAILURES })),
      unknownNames: report.unknownNames,
    });
  });
}

export function patchPersonHandler(req: Request, id: string): Promise<Response> {
  return handle(async () => {
    requireAdminSession(req);
    const input = await readBody(req, patchPersonInput);
    const db = getDb().sqlite;
    if (!getPerson(db, id)) throw new ServiceError(404, "no person with this id");
    if (id === OWNER_ID) throw new ServiceError(400, "the owner is changed in Settings → Access");
    if (input.password !== undefined) {
      const problem = passwordProblem(input.password);
      if (problem) throw new ServiceError(400, problem);
      setPersonPasswordHash(db, id, await hashPassword(input.password), input.mustChangePassword ?? true);
    }
    if (input.disabled !== undefined) setPersonDisabled(db, id, input.disabled);
    return json(getPerson(db, id));
  });
}

export function deletePersonHandler(req: Request, id: string): Promise<Response> {
  return handle(() => {
    requireAdminSession(req);
    return json(removePersonData(getDb().sqlite, id));
  });
}

/**
 * The export a person would download themselves (Manager → Export: every live memory of every space of
 * theirs), made as that person so the store's chokepoints narrow it to their data alone. Offered before
 * removal, which deletes all of it.
 */
export function exportPersonHandler(req: Request, id: string): Promise<Response> {
  return handle(() => {
    requireAdminSession(req);
    const db = getDb().sqlite;
    const person = getPerson(db, id);
    if (!person) throw new ServiceError(404, "no person with this id");
    const now = new Date();
    const file = runAs({ personId: id, admin: false }, () => exportMemories(db, null, now));
    const name = `memo-export-${person.login}-${now.toISOString().slice(0, 10)}.json`;
    return new Response(JSON.stringify(file, null, 1), {
      status: 200,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  });
}

export function createTokenHandler(req: Request): Promise<Response> {
  return handle(async () => {
    const p = principalOf(req.headers, req.url);
    if (!p || p.kind === "token" || p.kind === "public")
      throw new ServiceError(403, "sign in with your password to make API tokens (a token cannot make tokens)");
    const { name } = await readBody(req, z.strictObject({ name: tokenName }));
    const t = createApiToken(getDb().sqlite, name, acting().personId);
    return json({ token: t.token, id: t.id, name: t.name, prefix: t.prefix }, 201);
  });
}
