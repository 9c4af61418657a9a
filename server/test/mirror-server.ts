/**
 * TEST DOUBLE: a model mirror on 127.0.0.1:0 serving one file, like a CDN would for models:pull —
 * honours `Range: bytes=N-` (206 + Content-Range), can send slowly (a fixed byte rate), and can drop the
 * connection once mid-body (the socket is destroyed after `dropAfterBytes` of the file were sent). Every
 * request is recorded so tests can see what was resumed.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface MirrorOptions {
  /** The file to serve, under `/<name>`. */
  file: string;
  name: string;
  /** Bytes per second (0: as fast as possible). */
  bytesPerSec?: number;
  /** Destroy the connection once, when this file offset has been sent (null: never). */
  dropAtOffset?: number | null;
}

export interface MirrorRequest {
  range: string | null;
  status: number;
  /** Bytes of the file sent by this response before it ended or was cut. */
  sent: number;
}

export class MirrorServer {
  readonly requests: MirrorRequest[] = [];
  url = "";
  private readonly data: Buffer;
  private dropped = false;
  private readonly server: http.Server;

  private constructor(private readonly o: MirrorOptions) {
    this.data = fs.readFileSync(o.file);
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(o: MirrorOptions): Promise<MirrorServer> {
    const s = new MirrorServer(o);
    await new Promise<void>((resolve) => s.server.listen(0, "127.0.0.1", resolve));
    s.url = `http://127.0.0.1:${(s.server.address() as AddressInfo).port}/${o.name}`;
    return s;
  }

  /** Change the rate for the next chunks (tests speed up a resume). */
  setRate(bytesPerSec: number): void {
    this.o.bytesPerSec = bytesPerSec;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const range = req.headers.range ?? null;
    const rec: MirrorRequest = { range, status: 0, sent: 0 };
    this.requests.push(rec);
    if (req.url !== `/${this.o.name}`) {
      rec.status = 404;
      res.writeHead(404).end("not found");
      return;
    }
    const size = this.data.length;
    let start = 0;
    if (range) {
      const m = range.match(/^bytes=(\d+)-$/);
      if (!m || Number(m[1]) >= size) {
        rec.status = 416;
        res.writeHead(416, { "content-range": `bytes */${size}` }).end();
        return;
      }
      start = Number(m[1]);
      rec.status = 206;
      res.writeHead(206, {
        "content-length": String(size - start),
        "content-range": `bytes ${start}-${size - 1}/${size}`,
        "accept-ranges": "bytes",
      });
    } else {
      rec.status = 200;
      res.writeHead(200, {
        "content-length": String(size),
        "accept-ranges": "bytes",
        "content-type": "application/octet-stream",
      });
    }
    const CHUNK = 4096;
    let offset = start;
    let closed = false;
    res.on("close", () => (closed = true));
    while (offset < size && !closed) {
      const end = Math.min(size, offset + CHUNK);
      const drop =
        !this.dropped && this.o.dropAtOffset != null && end > this.o.dropAtOffset && offset <= this.o.dropAtOffset;
      if (drop) {
        const upto = this.o.dropAtOffset!;
        if (upto > offset) res.write(this.data.subarray(offset, upto));
        rec.sent += upto - offset;
        this.dropped = true;
        // Let the bytes leave, then cut the connection mid-body.
        await new Promise((r) => setTimeout(r, 50));
        res.socket?.destroy();
        return;
      }
      const ok = res.write(this.data.subarray(offset, end));
      rec.sent += end - offset;
      offset = end;
      if (!ok) await new Promise<void>((r) => res.once("drain", () => r()));
      const rate = this.o.bytesPerSec ?? 0;
      if (rate > 0) await new Promise((r) => setTimeout(r, (CHUNK / rate) * 1000));
    }
    if (!closed) res.end();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
