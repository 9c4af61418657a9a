/**
 * The check that a path is a GGUF model before anything hands it to llama.cpp (issue 58: its loader quotes
 * the bytes it read, so another file's contents would reach the page). Its own file: the provider registry
 * imports it, and nothing here lists folders.
 */
import fs from "node:fs";
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
