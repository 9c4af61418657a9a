/**
 * The household's people over REST (issue 32; the contract scripts use, documented in docs/security.md):
 *   POST   /api/v1/people { name, login, password, role, mustChangePassword? } → 201 { id, login }   (admin)
 *   GET    /api/v1/people → { people: [{ …, signIn }], unknownNames }: with failed sign-ins            (admin)
 *   PATCH  /api/v1/people/<id> { disabled?, password?, mustChangePassword?, role? } → the person        (admin)
 *   DELETE /api/v1/people/<id>[?export=1] → { removed, files, backups, scrub[, export: { fileName, file }] }:
 *          all of that person's data, one transaction; with export=1 their export file too, made as they are
 *          removed: another person's memory leaves Memo only with their removal, never the owner's  (admin)
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

/**
 * Remove a person and all their data. With `?export=1` the answer also holds their export file (what they
 * would download themselves: every live memory of every space of theirs, made as them so the store's
 * chokepoints narrow it to their data alone). That is the only way another person's memory leaves Memo
 * (issue 58: nothing one person does is observable by another): the file is made and the person removed in
 * one synchronous step, and it is sent only once the removal has committed — a refused removal (the owner,
 * an unknown id, a running import) sends none. The owner cannot be removed, so the owner's memory never
 * leaves this way; a person exports their own from the Manager.
 */
export function deletePersonHandler(req: Request, id: string): Promise<Response> {
  return handle(() => {
    requireAdminSession(req);
    const db = getDb().sqlite;
    const withExport = ["1", "true"].includes(new URL(req.url).searchParams.get("export") ?? "");
    const person = withExport ? getPerson(db, id) : undefined;
    const now = new Date();
    const file =
      person && id !== OWNER_ID ? runAs({ personId: id, admin: false }, () => exportMemories(db, null, now)) : null;
    const removed = removePersonData(db, id);
    if (!file || !person) return json(removed);
    return json({
      ...removed,
      export: { fileName: `memo-export-${person.login}-${now.toISOString().slice(0, 10)}.json`, file },
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
