import { createTRPCRouter, personalProcedure, publicProcedure } from "../trpc";
import * as spaces from "../../services/spaces-service";
import * as shares from "../../services/shares-service";
import * as notices from "../../services/share-notices";

/** Spaces for Settings: list with counts, create, rename, delete (with the name repeated as confirmation), sharing. */
export const spacesRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => spaces.listSpaceSummaries(ctx.memo.db)),
  create: publicProcedure
    .input(spaces.createSpaceInput)
    .mutation(({ ctx, input }) => spaces.createSpace(ctx.memo.db, input.name)),
  rename: publicProcedure
    .input(spaces.renameSpaceInput)
    .mutation(({ ctx, input }) => spaces.renameSpace(ctx.memo.db, input.from, input.to)),
  delete: publicProcedure
    .input(spaces.deleteSpaceInput)
    .mutation(({ ctx, input }) => spaces.deleteSpace(ctx.memo.db, input.name, input.confirm)),
  /** Shared spaces: what I share (with whom, how) and what is shared with me (with its owner's name). */
  shares: publicProcedure.query(({ ctx }) => shares.listShares(ctx.memo.db)),
  /**
   * Share one of my spaces with a person (sign-in name or id), read-only or read-write; again to change the
   * mode. Who may read my memory is mine to decide at a browser: never an API token's (issue 58).
   */
  share: personalProcedure.input(shares.shareInput).mutation(({ ctx, input }) => shares.shareSpace(ctx.memo.db, input)),
  /** Spaces shared with me that I have not seen yet (the chat page's notices). */
  shareNotices: publicProcedure.query(({ ctx }) => notices.shareNotices(ctx.memo.db)),
  /** I saw that this space was shared with me: its notice goes. */
  dismissShareNotice: publicProcedure
    .input(notices.dismissShareNoticeInput)
    .mutation(({ ctx, input }) => notices.dismissShareNotice(ctx.memo.db, input)),
  /** Stop sharing one of my spaces with a person (a session's, as share). */
  unshare: personalProcedure
    .input(shares.unshareInput)
    .mutation(({ ctx, input }) => shares.unshareSpace(ctx.memo.db, input)),
});
