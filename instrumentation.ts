/** Runs once per server process; the Node-only start-up lives in server/boot.ts. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { boot } = await import("./server/boot");
    boot();
  }
}
