"use client";

import { useIsMutating } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

/**
 * A reply's lines (Remembered, Facts) poll while the exchange is stored and learned from. A chat being
 * deleted removes its replies under such a poll (a 404): polls wait while a delete is in flight, and a
 * reply that is gone is not asked for again.
 */
export function useChatDeleting(): boolean {
  const trpc = useTRPC();
  return useIsMutating({ mutationKey: trpc.conversations.delete.mutationKey() }) > 0;
}

/** React Query's retry: a few times for a passing fault, never for a reply that is gone (404). */
export function retryUnlessGone(failures: number, e: unknown): boolean {
  return failures < 3 && (e as { data?: { httpStatus?: number } }).data?.httpStatus !== 404;
}
