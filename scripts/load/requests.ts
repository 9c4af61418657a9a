/** The requests `npm run load` sends (scripts/load.ts): a chat turn read to the end of its stream, a JSON POST. */

/** POST /api/chat and read the event stream to its end. */
export async function chatTurn(
  base: string,
  body: Record<string, unknown>,
): Promise<{ ok: boolean; ms: number; firstTokenMs: number | null; conversationId: string | null; error?: string }> {
  const t0 = performance.now();
  let firstTokenMs: number | null = null;
  const res = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(body),
  });
  const conversationId = res.headers.get("x-memo-conversation");
  if (!res.ok || !res.body)
    return {
      ok: false,
      ms: performance.now() - t0,
      firstTokenMs,
      conversationId,
      error: `HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`,
    };
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let end: string | null = null;
  let error: string | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let at: number;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const frame = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = frame
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6);
      if (!data) continue;
      const ev = JSON.parse(data) as { type: string; message?: string };
      if (ev.type === "delta" && firstTokenMs === null) firstTokenMs = performance.now() - t0;
      if (ev.type === "done" || ev.type === "command") end = ev.type;
      if (ev.type === "error") error = ev.message;
    }
  }
  return {
    ok: end !== null && !error,
    ms: performance.now() - t0,
    firstTokenMs,
    conversationId,
    error: error ?? (end ? undefined : "the stream ended without a done event"),
  };
}

/** POST a JSON body; the answer parsed when it is JSON. */
export async function postJson(
  base: string,
  p: string,
  body: unknown,
): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${base}${p}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, ms: performance.now() - t0 };
}
