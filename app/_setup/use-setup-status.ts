"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../_trpc/client";

/** setup.status, polled quickly while a download or re-index runs and slowly otherwise. */
export function useSetupStatus(enabled = true) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.setup.status.queryOptions(),
    enabled,
    refetchInterval: (q) => {
      const d = q.state.data;
      if (!d) return 10_000;
      if (d.storageProblem) return 5000; // the banner goes soon after the folder is fixed
      const busy =
        ["downloading", "verifying", "switching"].includes(d.download.phase) ||
        d.reindex.active ||
        d.embedder.status !== "ready";
      return busy ? 1500 : 30_000;
    },
  });
}
