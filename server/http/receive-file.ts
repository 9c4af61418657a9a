/**
 * A request body received to a file as it streams in (issue 55): an export of hundreds of MB is never held
 * in the server's memory. The file is created owner-only; past `maxBytes` (declared or counted) the upload
 * is cut and the partial file removed, a 413. Backpressure: a chunk is written before the next is read.
 */
import fs from "node:fs";
import path from "node:path";
import { ServiceError } from "../core/errors";

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
  let size = 0;
  try {
    if (req.body) {
      const reader = req.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge();
        }
        await fh.write(value);
      }
    }
    await fh.close();
    return size;
  } catch (e) {
    await fh.close().catch(() => undefined);
    fs.rmSync(file, { force: true });
    throw e;
  }
}
