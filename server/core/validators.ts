import { z } from "zod";
import { mySpaceOf, sharedSpaceOf } from "./acting";
import { dateRangeMessage, keptIso } from "./dates";

/** Zod schemas shared by the tRPC routers and the REST routes: one definition of valid input. */

export const MAX_MEMORY_CHARS = 100_000;
export const MAX_QUERY_CHARS = 8_000;

const noNul = (s: string) => !s.includes("\u0000");

/**
 * A space named in a request, turned into the acting person's key for it (server/core/acting.ts): every
 * schema that takes a space resolves it for the person at parse time, so no service sees a bare name.
 */
export const spaceName = z.string().transform((s, ctx) => {
  const key = mySpaceOf(s);
  if (key === null) {
    ctx.addIssue({ code: "custom", message: "space must be 1–64 letters, digits, '-' or '_'" });
    return z.NEVER;
  }
  return key;
});

/**
 * A space whose memories a request reads or writes: the acting person's own (as spaceName), or another
 * person's named '<person id>~<name>' ('owner~recipes' for the owner's). Only the form is checked at parse
 * time; the store answers a space not shared with the person as missing (server/memory/store/shares.ts).
 */
export const sharedSpaceName = z.string().transform((s, ctx) => {
  const key = sharedSpaceOf(s);
  if (key === null) {
    ctx.addIssue({ code: "custom", message: "space must be 1–64 letters, digits, '-' or '_'" });
    return z.NEVER;
  }
  return key;
});

export const memoryText = z
  .string()
  .refine((s) => s.trim().length > 0, "text must not be empty")
  .refine((s) => s.length <= MAX_MEMORY_CHARS, `text must be at most ${MAX_MEMORY_CHARS} characters`)
  .refine(noNul, "text must not contain NUL characters");

/**
 * An ISO-8601 date or date-time, normalised to UTC; `field` names it in the error. Only dates Memo keeps
 * (years 0001–9999: server/core/dates.ts) pass, so no stored time breaks a later computation (issue 58).
 */
export const isoDateTime = (field: string) =>
  z
    .string()
    .superRefine((s, ctx) => {
      if (s.length > 64 || Number.isNaN(Date.parse(s)))
        ctx.addIssue({ code: "custom", message: `${field} must be an ISO-8601 date or date-time` });
      else if (keptIso(s) === null) ctx.addIssue({ code: "custom", message: dateRangeMessage(field) });
    })
    .transform((s) => keptIso(s)!);

export const isoTimestamp = isoDateTime("timestamp");

export const memoryKind = z.enum(["chat", "document", "remember", "import", "consolidated"]);

export const newMemoryInput = z.strictObject({
  text: memoryText,
  space: sharedSpaceName.optional(),
  timestamp: isoTimestamp.optional(),
  kind: memoryKind.optional(),
  importance: z.number().int().min(0).max(5).optional(),
  pinned: z.boolean().optional(),
});
export type NewMemoryInput = z.infer<typeof newMemoryInput>;

export const batchInput = z.strictObject({
  items: z.array(newMemoryInput).min(1, "items must not be empty").max(1000, "at most 1000 items per batch"),
});

/** The person's time zone, minutes east of UTC (JavaScript: −new Date().getTimezoneOffset()), for calendar days. */
export const tzOffsetMinutes = z
  .number()
  .int("tzOffsetMinutes must be a whole number of minutes")
  .min(-840, "tzOffsetMinutes must be between -840 and 840")
  .max(840, "tzOffsetMinutes must be between -840 and 840");

export const searchInput = z.strictObject({
  query: z
    .string()
    .refine((s) => s.trim().length > 0, "query must not be empty")
    .refine((s) => s.length <= MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`)
    .refine(noNul, "query must not contain NUL characters"),
  space: sharedSpaceName.optional(),
  /** Default: the server's time zone. */
  tzOffsetMinutes: tzOffsetMinutes.optional(),
  /**
   * The turn's date: what "last week", "in May" and "recently" resolve against. Default now; an imported
   * conversation's own date when searching it as of then (docs/retrieval.md#time-aware-retrieval).
   */
  at: isoDateTime("at").optional(),
  k: z.number().int().min(1, "k must be at least 1").max(100, "k must be at most 100").optional(),
  context: z
    .array(z.string().max(MAX_QUERY_CHARS).refine(noNul, "context must not contain NUL characters"))
    .max(20)
    .optional(),
  /** Debug Search: override retrieval settings for this query only. */
  options: z
    .strictObject({
      contextMessages: z.number().int().min(0).max(3).optional(),
      anchorQuery: z.boolean().optional(),
      qualityFilter: z.boolean().optional(),
      fusion: z.enum(["rrf", "linear"]).optional(),
      minSimilarity: z.number().min(-1).max(1).optional(),
      /** Candidate pool per list (default min(max(k*5, 20), 100)). */
      pool: z.number().int().min(1, "pool must be at least 1").max(500, "pool must be at most 500").optional(),
      /** The would-be-packed threshold for this query (Debug Search tries one before it is saved). */
      minConfidence: z.number().min(0).max(1).optional(),
      // The memory techniques, each off at its off value (server/memory/retrieval/techniques.ts; the bounds are the
      // retrieval settings' own, kept equal by techniques.test.ts).
      denseMaxDocFraction: z.number().min(0.01).max(1).optional(),
      dateBoost: z.number().min(0).max(5).optional(),
      neighbourWeight: z.number().min(0).max(1).optional(),
    })
    .optional(),
});
export type SearchInput = z.infer<typeof searchInput>;

export const forgetInput = z.strictObject({
  pattern: z
    .string()
    .refine((s) => s.trim().length >= 2, "pattern must have at least 2 characters")
    .refine((s) => s.length <= 1000, "pattern must be at most 1000 characters")
    .refine(noNul, "pattern must not contain NUL characters"),
  space: sharedSpaceName.optional(),
  /** true: answer { count, items } and delete nothing. */
  preview: z.boolean().optional(),
});

export const idsInput = z.strictObject({
  ids: z.array(z.string().uuid("ids must be memory ids")).min(1).max(10_000),
});

export const rememberInput = z.strictObject({ text: memoryText, space: sharedSpaceName.optional() });

/** An API token's name (what uses it). */
export const tokenName = z
  .string()
  .trim()
  .min(1, "name the token (what uses it)")
  .max(100, "a token name has at most 100 characters")
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "the name must not contain control characters");
