/** Runs once per server process; the Node-only start-up lives in server/boot.ts. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    // Stamp each request with its socket's peer and bound address (server/auth/peer.ts) before Next sees it.
    (await import("./server/auth/peer")).installPeerHeaders();
    const { boot } = await import("./server/boot");
    boot();
  }
}
