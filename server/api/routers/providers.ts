import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { createTRPCRouter, ownerProcedure } from "../trpc";
import { trpcCodeFor } from "../../core/errors";
import { currentLocalChatServer } from "../../chat/local-server";
import {
  createProvider,
  PROVIDER_IDS,
  ProviderError,
  providerFamily,
  providerSettingsPatchSchema,
  providerStatus,
  resetProviderSettings,
  resolveProviderConfig,
  saveProviderSettings,
} from "../../chat/providers";

/** Provider failures become tRPC errors with the same readable message. */
function providerError(e: unknown): never {
  if (e instanceof ProviderError)
    throw new TRPCError({ code: trpcCodeFor(e.status, "BAD_GATEWAY"), message: e.message, cause: e });
  throw e;
}

function status(db: Parameters<typeof providerStatus>[0]) {
  const s = providerStatus(db);
  const local = currentLocalChatServer()?.status() ?? null;
  return {
    ...s,
    local: local && {
      state: local.state,
      model: local.model,
      engine: local.engine,
      lastError: local.lastError,
      restarts: local.restarts,
    },
  };
}

const providerId = z.enum(PROVIDER_IDS);

class Rollback extends Error {}

/**
 * The configuration the form's unsaved values would give: applied and resolved inside a transaction
 * that is then rolled back, so Test uses exactly Save's rules and nothing is stored.
 */
function resolveUnsavedConfig(
  db: Parameters<typeof providerStatus>[0],
  patch: Parameters<typeof saveProviderSettings>[1],
): ReturnType<typeof resolveProviderConfig> {
  let cfg: ReturnType<typeof resolveProviderConfig> | undefined;
  try {
    db.transaction(() => {
      saveProviderSettings(db, patch);
      cfg = resolveProviderConfig(db);
      throw new Rollback();
    })();
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  return cfg!;
}

/** Chat providers (Settings → Providers and the chat page's picker). API keys never leave the server; API tokens get none of it. */
export const providersRouter = createTRPCRouter({
  status: ownerProcedure.query(({ ctx }) => status(ctx.memo.db)),
  save: ownerProcedure.input(providerSettingsPatchSchema).mutation(({ ctx, input }) => {
    try {
      saveProviderSettings(ctx.memo.db, input);
    } catch (e) {
      providerError(e);
    }
    return status(ctx.memo.db);
  }),
  /** Forget the saved settings: the environment alone decides again. */
  reset: ownerProcedure.mutation(({ ctx }) => {
    resetProviderSettings(ctx.memo.db);
    return status(ctx.memo.db);
  }),
  /** The picker: make a provider (and optionally a model of it) the one chat uses. */
  select: ownerProcedure
    .input(z.strictObject({ provider: providerId, model: z.string().trim().min(1).max(200).optional() }))
    .mutation(({ ctx, input }) => {
      const patch: Parameters<typeof saveProviderSettings>[1] = { active: input.provider };
      // Only a family whose endpoint offers a choice of models has a model to save (families.ts).
      if (input.model && providerFamily(input.provider).modelChoice)
        (patch as Record<string, unknown>)[input.provider] = { model: input.model };
      saveProviderSettings(ctx.memo.db, patch);
      return status(ctx.memo.db);
    }),
  /** The models a provider offers; a provider that cannot be asked answers with an empty list and the reason. */
  models: ownerProcedure.input(z.strictObject({ provider: providerId })).query(async ({ ctx, input }) => {
    try {
      const provider = createProvider(resolveProviderConfig(ctx.memo.db), input.provider);
      return { provider: input.provider, models: await provider.listModels(AbortSignal.timeout(15_000)), error: null };
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      return { provider: input.provider, models: [] as string[], error: e.message };
    }
  }),
  /** Send a tiny request and report how it went (Settings' "Test" button). */
  test: ownerProcedure
    .input(z.strictObject({ provider: providerId.optional(), settings: providerSettingsPatchSchema.optional() }))
    .mutation(async ({ ctx, input }) => {
      const t0 = performance.now();
      try {
        const cfg = input.settings
          ? resolveUnsavedConfig(ctx.memo.db, input.settings)
          : resolveProviderConfig(ctx.memo.db);
        const id = input.provider ?? cfg.active.value;
        if (!id)
          throw new ProviderError(
            "not_configured",
            providerStatus(ctx.memo.db).problem ?? "No provider is configured.",
          );
        const r = await createProvider(cfg, id).complete(
          [{ role: "user", content: "Reply with the single word: OK" }],
          { maxTokens: 16 },
        );
        return {
          ok: true as const,
          provider: id,
          model: r.model,
          reply: r.text.slice(0, 200),
          ms: Math.round(performance.now() - t0),
          error: null,
        };
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        return {
          ok: false as const,
          provider: input.provider ?? null,
          model: null,
          reply: null,
          ms: Math.round(performance.now() - t0),
          error: e.message,
        };
      }
    }),
});
