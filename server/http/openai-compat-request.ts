/**
 * The OpenAI-compatible endpoint's request side (server/http/openai-compat.ts): the request schema, reading and
 * checking a request, its space and model, the model list, and errors in OpenAI's shape.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { formatZod, MAX_JSON_BYTES, readCapped } from "./rest";
import { badTextMessage, findBadText } from "./guard";
import { DEFAULT_SPACE } from "../core/space-name";
import { ServiceError } from "../core/errors";
import {
  createProvider,
  familyPrefixed,
  isConfigured,
  ProviderError,
  providerFamilies,
  resolveProviderConfig,
  type ChatProvider,
  type ProviderConfig,
  type ProviderId,
} from "../chat/providers";
import { mySpaceOf } from "../core/acting";
import { LABELS_LEGEND } from "../memory/retrieval/memory-block";

export const MEMO_MODEL = "memo";
export const MEMORY_PREAMBLE = `Memories recalled by Memo from earlier conversations with this user (dated; use them when they help). ${LABELS_LEGEND}`;

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const messageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
});

export const chatCompletionRequest = z.looseObject({
  model: z.string().trim().min(1, "model must not be empty").max(200),
  messages: z.array(messageSchema).min(1, "messages must not be empty").max(2000),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().min(1).nullable().optional(),
  max_completion_tokens: z.number().int().min(1).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  n: z.number().int().min(1).max(1).nullable().optional(),
  tools: z.array(z.unknown()).nullable().optional(),
  functions: z.array(z.unknown()).nullable().optional(),
  memo_space: z.string().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequest>;

/** An error in OpenAI's JSON shape. */
export class OpenAIHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = "invalid_request_error",
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export function openAIErrorResponse(e: unknown): Response {
  let err: OpenAIHttpError;
  if (e instanceof OpenAIHttpError) err = e;
  else if (e instanceof ProviderError) err = fromProviderError(e);
  else if (e instanceof ServiceError)
    err = new OpenAIHttpError(e.status, e.message, e.status >= 500 ? "server_error" : "invalid_request_error");
  else {
    console.error("[v1] unexpected error", e);
    err = new OpenAIHttpError(500, "internal error; see the Memo server log", "server_error");
  }
  return Response.json(
    { error: { message: err.message, type: err.type, param: err.param, code: err.code } },
    { status: err.status },
  );
}

function fromProviderError(e: ProviderError): OpenAIHttpError {
  const type =
    e.kind === "bad_model"
      ? "invalid_request_error"
      : e.kind === "rate_limited"
        ? "rate_limit_error"
        : e.kind === "bad_request"
          ? "invalid_request_error"
          : "server_error";
  const code =
    e.kind === "bad_model"
      ? "model_not_found"
      : e.kind === "not_configured"
        ? "provider_not_configured"
        : `provider_${e.kind}`;
  return new OpenAIHttpError(
    e.status === 499 ? 499 : e.status,
    e.message,
    type,
    code,
    e.kind === "bad_model" ? "model" : null,
  );
}

/** Read and validate the body; OpenAIHttpError (400/413) otherwise. */
export async function readCompletionRequest(req: Request): Promise<ChatCompletionRequest> {
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > MAX_JSON_BYTES) throw new OpenAIHttpError(413, `request body is larger than ${MAX_JSON_BYTES} bytes`);
  const buf = await readCapped(
    req,
    MAX_JSON_BYTES,
    (n) => new OpenAIHttpError(413, `request body is larger than ${n} bytes`),
  );
  if (buf.byteLength === 0) throw new OpenAIHttpError(400, "request body is empty; send a JSON object");
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buf));
  } catch {
    throw new OpenAIHttpError(400, "request body is not valid UTF-8 JSON");
  }
  const parsed = chatCompletionRequest.safeParse(data);
  if (!parsed.success)
    throw new OpenAIHttpError(
      400,
      formatZod(parsed.error),
      "invalid_request_error",
      "invalid_request",
      String(parsed.error.issues[0]?.path[0] ?? "") || null,
    );
  const bad = findBadText(parsed.data);
  if (bad)
    throw new OpenAIHttpError(
      400,
      badTextMessage(bad),
      "invalid_request_error",
      "invalid_request",
      bad.path.length ? String(bad.path[0]) : null,
    );
  if (parsed.data.tools?.length || parsed.data.functions?.length) {
    throw new OpenAIHttpError(
      400,
      "tools and functions are not supported by Memo's endpoint",
      "invalid_request_error",
      "unsupported_parameter",
      "tools",
    );
  }
  return parsed.data;
}

export function messageText(content: ChatCompletionRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((p) => (p.type === "text" || p.type === "input_text" ? (p.text ?? "") : "")).join("");
  return "";
}

/** The space of a request: header, then body field, then the default; 400 for an invalid name. */
export function requestSpace(req: Request, body: ChatCompletionRequest): string {
  const s = mySpaceOf(req.headers.get("x-memo-space") ?? body.memo_space ?? DEFAULT_SPACE);
  if (s === null)
    throw new OpenAIHttpError(
      400,
      "the space (x-memo-space header or memo_space field) must be 1–64 letters, digits, '-' or '_'",
      "invalid_request_error",
      "invalid_space",
      "memo_space",
    );
  return s;
}

/**
 * Which provider and model a model name selects, with the provider configuration it was chosen from (resolved
 * once for the request: its memory plan and its write's learning decision read the same).
 */
export function resolveModel(
  db: Database.Database,
  model: string,
): { provider: ChatProvider; model: string | undefined; cfg: ProviderConfig } {
  const cfg = resolveProviderConfig(db);
  // "<family>:<model>" for any registered family (the registry's ids, as GET /v1/models lists them).
  const m = familyPrefixed(model, ":");
  if (m) {
    const id = m.family.id as ProviderId;
    if (!isConfigured(cfg, id).ok)
      throw new OpenAIHttpError(
        404,
        `provider '${id}' is not configured in Memo`,
        "invalid_request_error",
        "model_not_found",
        "model",
      );
    return { provider: createProvider(cfg, id), model: m.rest || undefined, cfg };
  }
  if (!cfg.active.value)
    throw new ProviderError(
      "not_configured",
      "Memo has no chat provider configured; set one in Settings → Providers or with MEMO_PROVIDER.",
    );
  const provider = createProvider(cfg, cfg.active.value);
  return { provider, model: model === MEMO_MODEL ? undefined : model, cfg };
}

/** GET /v1/models: "memo" and "<provider>:<model>" for each configured provider. */
export function listModels(db: Database.Database): {
  object: "list";
  data: { id: string; object: "model"; created: number; owned_by: string }[];
} {
  const cfg = resolveProviderConfig(db);
  const data: { id: string; object: "model"; created: number; owned_by: string }[] = [];
  if (cfg.active.value && isConfigured(cfg, cfg.active.value).ok)
    data.push({ id: MEMO_MODEL, object: "model", created: 0, owned_by: `memo (${cfg.active.value})` });
  for (const id of providerFamilies().map((f) => f.id as ProviderId)) {
    if (!isConfigured(cfg, id).ok) continue;
    const p = createProvider(cfg, id);
    if (p.model) data.push({ id: `${id}:${p.model}`, object: "model", created: 0, owned_by: id });
  }
  return { object: "list", data };
}
