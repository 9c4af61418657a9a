/**
 * A request body received to a file as it streams in (issue 55): an export of hundreds of MB is never held
 * in the server's memory. The file is created owner-only; past `maxBytes` (declared or counted) the upload
 * is cut and the partial file removed, a 413. Backpressure: a chunk is written before the next is read.
 */
import fs from "node:fs";
import path from "node:path";
import { ServiceError } from "../core/errors";
import { streamBodyCapped } from "./guard";

export async function receiveToFile(req: Request, file: string, maxBytes: number): Promise<number> {
  const tooLarge = () =>
    new ServiceError(
      413,
      `the file is larger than ${Math.round(maxBytes / 1024 / 1024)} MB (MEMO_IMPORT_MAX_MB sets the largest import)`,
    );
  const declared = Number(req.headers.get("content-length") ?? 0);
  if (declared > maxBytes) throw tooLarge();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const fh = await fs.promises.open(file, "wx", 0o600);
  try {
    const size = await streamBodyCapped(req, maxBytes, async (chunk) => {
      await fh.write(chunk);
    });
    if (size === "too large") throw tooLarge();
    await fh.close();
    return size;
  } catch (e) {
    await fh.close().catch(() => undefined);
    fs.rmSync(file, { force: true });
    throw e;
  }
}
