/**
 * Retrieval settings as Settings edits them: per embedding model (the one serving now), saved over the
 * model's measured defaults (server/memory/retrieval/settings.ts).
 */
import type { z } from "zod";
import {
  defaultSettingsFor,
  loadRetrievalSettings,
  retrievalSettingsSchema,
  saveRetrievalSettings,
  type RetrievalSettings,
} from "../memory/retrieval/settings";
import { activeModel } from "../memory/index/model-check";
import type { MemoContext } from "../core/context";
import { ServiceError } from "../core/errors";

export const retrievalPatchInput = retrievalSettingsSchema.partial().strict();
export type RetrievalPatch = z.infer<typeof retrievalPatchInput>;

export interface RetrievalSettingsView {
  model: string;
  settings: RetrievalSettings;
  defaults: RetrievalSettings;
}

export async function getRetrievalSettings(ctx: MemoContext): Promise<RetrievalSettingsView> {
  const { model } = await activeModel(ctx);
  return { model, settings: loadRetrievalSettings(ctx.db, model), defaults: defaultSettingsFor(model) };
}

export async function updateRetrievalSettings(ctx: MemoContext, patch: RetrievalPatch): Promise<RetrievalSettingsView> {
  const { model } = await activeModel(ctx);
  const parsed = retrievalPatchInput.safeParse(patch);
  if (!parsed.success)
    throw new ServiceError(400, parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  const settings = saveRetrievalSettings(ctx.db, model, parsed.data);
  return { model, settings, defaults: defaultSettingsFor(model) };
}

/** Back to the model's defaults. */
export async function resetRetrievalSettings(ctx: MemoContext): Promise<RetrievalSettingsView> {
  const { model } = await activeModel(ctx);
  const defaults = defaultSettingsFor(model);
  return { model, settings: saveRetrievalSettings(ctx.db, model, defaults), defaults };
}
