import { noteStorageFault, storageFaultOf } from "./storage-fault";

/** The HTTP statuses a service error may carry. */
export type ServiceStatus = 400 | 403 | 404 | 409 | 413 | 429 | 502 | 503;

/** An error with the HTTP status it maps to; the message is meant for people. */
export class ServiceError extends Error {
  constructor(
    readonly status: ServiceStatus,
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** The embedding server cannot be reached or started (503 to callers). Thrown by server/embedder. */
export class EmbedderUnavailableError extends Error {
  readonly code = "EMBEDDER_UNAVAILABLE";
  constructor(message: string) {
    super(message);
    this.name = "EmbedderUnavailableError";
  }
}

/** The embedding server answered with something that is not embeddings (502 to callers). Thrown by server/embedder. */
export class EmbedderResponseError extends Error {
  readonly code = "EMBEDDER_BAD_RESPONSE";
}

/** A store operation refused: the vectors belong to another model, the row is missing, or the input is invalid. */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly code: "MODEL_MISMATCH" | "NOT_FOUND" | "INVALID",
  ) {
    super(message);
    this.name = "StoreError";
  }
}

/** The one map from engine errors to ServiceErrors (REST, tRPC and MCP all use it); undefined for anything unexpected. */
export function asServiceError(e: unknown): ServiceError | undefined {
  if (e instanceof ServiceError) return e;
  if (e instanceof EmbedderUnavailableError) return new ServiceError(503, e.message);
  if (e instanceof EmbedderResponseError)
    return new ServiceError(502, `The embedding server gave a bad answer: ${e.message}. Nothing was written.`);
  if (e instanceof StoreError)
    return new ServiceError(e.code === "NOT_FOUND" ? 404 : e.code === "MODEL_MISMATCH" ? 409 : 400, e.message);
  // A data folder that is read-only or full: 503 with what to do, and health hears of it (storage-fault.ts).
  const fault = storageFaultOf(e);
  if (fault) {
    noteStorageFault(fault);
    return new ServiceError(503, fault.message);
  }
  return undefined;
}

/** The one map from an HTTP status to the tRPC error code that answers with it (tRPC routers use it). */
export const TRPC_CODE_BY_STATUS = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  429: "TOO_MANY_REQUESTS",
  499: "CLIENT_CLOSED_REQUEST",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
  504: "GATEWAY_TIMEOUT",
} as const;

export type TrpcCode = (typeof TRPC_CODE_BY_STATUS)[keyof typeof TRPC_CODE_BY_STATUS] | "INTERNAL_SERVER_ERROR";

/** The tRPC code for a status; `fallback` for a status without one. */
export function trpcCodeFor(status: number, fallback: TrpcCode = "INTERNAL_SERVER_ERROR"): TrpcCode {
  return (TRPC_CODE_BY_STATUS as Record<number, TrpcCode>)[status] ?? fallback;
}
