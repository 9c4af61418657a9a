import { z } from "zod";
import { createTRPCRouter, personalProcedure, publicProcedure } from "../trpc";
import {
  endpointKeyInput,
  loadPrivacySettings,
  providerEndpoint,
  setSharing,
  setTemporaryReadsMemory,
  sharingFor,
  SHARING_MODES,
} from "../../chat/memory-policy";
import { isConfigured, providerFamilies, type ProviderId, resolveProviderConfig } from "../../chat/providers";
import { getConversationOr404 } from "../../chat/conversations";
import { setConversationMemory, TEMPORARY_HEARTBEAT_MS, touchTemporaryChat } from "../../chat/temporary-chats";

const conversationId = z.string().uuid("id must be a conversation id");

/**
 * What memory leaves the machine and what a conversation keeps (server/chat/memory-policy.ts,
 * server/chat/temporary-chats.ts): per-provider sharing, temporary chats, memory per conversation.
 */
export const privacyRouter = createTRPCRouter({
  /** Each configured provider: where its prompts go, whether that is this machine, and what it may receive. */
  status: publicProcedure.query(({ ctx }) => {
    const cfg = resolveProviderConfig(ctx.memo.db);
    const settings = loadPrivacySettings(ctx.memo.db);
    const providers = providerFamilies()
      .map((f) => f.id as ProviderId)
      .filter((id) => isConfigured(cfg, id).ok)
      .map((id) => {
        const e = providerEndpoint(cfg, id);
        return { ...e, sharing: sharingFor(settings, e), active: cfg.active.value === id };
      });
    return { providers, temporaryReadsMemory: settings.temporaryReadsMemory, heartbeatMs: TEMPORARY_HEARTBEAT_MS };
  }),
  /** Save what a remote provider endpoint may receive (null: forget the choice, ask again). */
  setSharing: personalProcedure
    .input(
      z.strictObject({
        key: endpointKeyInput("remote"),
        mode: z.enum(SHARING_MODES).nullable(),
      }),
    )
    .mutation(({ ctx, input }) => {
      setSharing(ctx.memo.db, input.key, input.mode);
      return { key: input.key, mode: input.mode };
    }),
  setTemporaryReadsMemory: personalProcedure.input(z.strictObject({ read: z.boolean() })).mutation(({ ctx, input }) => {
    setTemporaryReadsMemory(ctx.memo.db, input.read);
    return { read: input.read };
  }),
  /** Recall or storing on/off for one conversation (the chips in its header). */
  setConversationMemory: publicProcedure
    .input(z.strictObject({ id: conversationId, recall: z.boolean().optional(), store: z.boolean().optional() }))
    .mutation(({ ctx, input }) => {
      setConversationMemory(ctx.memo.db, input.id, { recall: input.recall, store: input.store });
      return getConversationOr404(ctx.memo.db, input.id);
    }),
  /** The chat page keeps an open temporary chat alive; once its tab closes, the chat is deleted. */
  heartbeat: publicProcedure
    .input(z.strictObject({ id: conversationId }))
    .mutation(({ ctx, input }) => touchTemporaryChat(ctx.memo.db, input.id)),
});
