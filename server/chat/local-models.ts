/**
 * GGUF files in data/models/ (and data/models/chat/), for Settings to offer as the local chat model.
 * Embedding models (nomic-embed…, anything named *embed*) are listed apart: they cannot chat.
 */
import fs from "node:fs";
import path from "node:path";
import { modelsDir } from "../core/config";

export interface LocalGguf {
  path: string;
  file: string;
  bytes: number;
  kind: "chat" | "embedding";
}

export function listLocalGgufs(): LocalGguf[] {
  const out: LocalGguf[] = [];
  for (const dir of [path.join(modelsDir(), "chat"), modelsDir()]) {
    if (!fs.existsSync(dir)) continue;
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!e.isFile() || !e.name.toLowerCase().endsWith(".gguf")) continue;
      const p = path.join(dir, e.name);
      out.push({
        path: p,
        file: e.name,
        bytes: fs.statSync(p).size,
        kind: /embed/i.test(e.name) ? "embedding" : "chat",
      });
    }
  }
  return out;
}

/** A chat GGUF the person picked in Settings: it must be one of those listed (no arbitrary paths). */
export function resolveListedChatGguf(p: string): LocalGguf | null {
  return listLocalGgufs().find((g) => g.kind === "chat" && g.path === p) ?? null;
}
