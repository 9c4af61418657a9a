/**
 * Calling the app's route handlers and tRPC procedures in-process, as a person's session or token would,
 * for suites that check what each person sees (the side-channel suite). Handlers are found from app/'s
 * route.ts files; a call returns its status and its body as text.
 */
import fs from "node:fs";
import path from "node:path";
import { TRPCError } from "@trpc/server";
import type { MemoContext } from "../core/context";
import { createCaller } from "../api/root";

const appDir = path.resolve(import.meta.dirname, "../../app");

export interface RouteFile {
  file: string;
  /** The URL pattern, e.g. /api/v1/memories/[id]. */
  pattern: string;
}

/** Every route.ts under app/, with its URL pattern (route groups and private folders left out). */
export function routeFiles(dir = appDir): RouteFile[] {
  const out: RouteFile[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...routeFiles(p));
    else if (e.name === "route.ts") {
      const segs = path
        .relative(appDir, dir)
        .split(path.sep)
        .filter((s) => s && !/^\(.*\)$/.test(s) && !s.startsWith("_"));
      out.push({ file: p, pattern: `/${segs.join("/")}` });
    }
  }
  return out;
}

export interface Answer {
  status: number;
  /** The body as text (REST), or the result as JSON or the error (tRPC). */
  body: string;
}

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Call `METHOD /pattern` with these headers (a session cookie or a bearer token). */
export async function callRoute(
  key: string,
  headers: Record<string, string>,
  opts: { params?: Record<string, string>; body?: unknown; query?: string } = {},
): Promise<Answer> {
  const [method, pattern] = key.split(" ") as [string, string];
  const file = routeFiles().find((r) => r.pattern === pattern);
  if (!file) throw new Error(`no route ${pattern}`);
  const mod = (await import(file.file)) as Record<string, Handler>;
  const url = `http://127.0.0.1:3000${pattern.replace(/\[(\w+)\]/g, (_, k: string) => opts.params?.[k] ?? "x")}${opts.query ? `?${opts.query}` : ""}`;
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const req = new Request(url, {
    method,
    headers: {
      host: "127.0.0.1:3000",
      accept: "application/json",
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body,
  });
  const res = await mod[method]!(req, { params: Promise.resolve(opts.params ?? {}) });
  return { status: res.status, body: await res.text() };
}

/** Call tRPC procedure `router.procedure` with these headers. */
export async function callProcedure(
  memo: MemoContext,
  name: string,
  headers: Record<string, string>,
  input?: unknown,
): Promise<Answer> {
  const caller = createCaller({ memo, headers: new Headers(headers) }) as unknown as Record<
    string,
    Record<string, (i: unknown) => Promise<unknown>>
  >;
  const [r, p] = name.split(".") as [string, string];
  try {
    return { status: 200, body: JSON.stringify((await caller[r]![p]!(input)) ?? null) };
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    return { status: 400, body: `${e.code}: ${e.message}` };
  }
}
