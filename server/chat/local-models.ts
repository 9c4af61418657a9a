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

/**
 * Why a path cannot be the local chat model, or null when it is a GGUF file: it must exist, be a file and
 * start with the GGUF signature. Only those 4 bytes are read, and the answer never repeats them or anything
 * else of the file (issue 58: an admin's path pointed at another file must not show its contents).
 */
export function ggufFileProblem(p: string): string | null {
  let fd: number | undefined;
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return `the chat model ${p} is not a file`;
    fd = fs.openSync(p, "r");
    const head = Buffer.alloc(4);
    const n = fs.readSync(fd, head, 0, 4, 0);
    return n === 4 && head.toString("latin1") === "GGUF" ? null : `the chat model file ${p} is not a GGUF model`;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR"
      ? `the chat model file ${p} (it does not exist)`
      : `the chat model file ${p} cannot be read`;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
