/**
 * Files for ingestion tests, generated on the fly: a real PNG (hand-encoded), PDFs with a text layer
 * (pdf-lib, standard Helvetica), a scanned-style PDF holding only an image (no text layer), a corrupt PDF,
 * PDFs of very many pages (written by hand).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { PDFDocument, StandardFonts } from "pdf-lib";

function crc32(buf: Uint8Array): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A valid RGB PNG of w×h pixels with a simple gradient. */
export function makePng(w = 32, h = 24): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0; // filter: none
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      raw[o] = (x * 255) / w;
      raw[o + 1] = (y * 255) / h;
      raw[o + 2] = 128;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", zlib.deflateSync(raw)),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/** Wrap text to lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A PDF with a real text layer: each entry of `pages` is one page's paragraphs. */
export async function makeTextPdf(pages: string[][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const paragraphs of pages) {
    let page = doc.addPage([595, 842]);
    let y = 790;
    for (const p of paragraphs) {
      for (const line of wrap(p, 90)) {
        if (y < 50) {
          page = doc.addPage([595, 842]);
          y = 790;
        }
        page.drawText(line, { x: 40, y, size: 10, font });
        y -= 14;
      }
      y -= 10;
    }
  }
  return doc.save();
}

/** A "scanned" PDF: pages holding only an image, no text layer at all. */
export async function makeImageOnlyPdf(pages = 2): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const img = await doc.embedPng(makePng(64, 48));
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([595, 842]);
    page.drawImage(img, { x: 40, y: 300, width: 500, height: 375 });
  }
  return doc.save();
}

/** A PDF header followed by garbage: what a truncated download or a damaged file looks like to a reader. */
export async function makeCorruptPdf(): Promise<Uint8Array> {
  const good = await makeTextPdf([["This text will never be read because the file is damaged."]]);
  const bytes = Buffer.from(good.slice(0, 120)); // header and the start of the first object only
  return Buffer.concat([bytes, Buffer.from("\u0000\u00ff garbage \u0001\u0002 not a pdf body %%EOF", "latin1")]);
}

/**
 * A PDF of `pages` one-line pages ("Page N says hello."), written by hand rather than with pdf-lib, which
 * needs minutes for 100,000 pages on a busy machine. Cached in os.tmpdir() by page count: the crafted-file
 * tests use the same two files on every run.
 */
export function makeManyPagePdf(pages: number): Uint8Array {
  const file = path.join(os.tmpdir(), `memo-test-${pages}-pages-v1.pdf`);
  if (fs.existsSync(file)) return fs.readFileSync(file);
  const parts: string[] = [];
  const offsets: number[] = [];
  let size = 0;
  const add = (s: string) => {
    parts.push(s);
    size += s.length; // ASCII only: characters are bytes
  };
  const obj = (n: number, body: string) => {
    offsets[n] = size;
    add(`${n} 0 obj\n${body}\nendobj\n`);
  };
  add("%PDF-1.4\n");
  // 1: catalog, 2: page tree, 3: font; page k (0-based) is object 4 + 2k, its content stream 5 + 2k.
  obj(1, "<< /Type /Catalog /Pages 2 0 R >>");
  const kids = Array.from({ length: pages }, (_, k) => `${4 + 2 * k} 0 R`).join(" ");
  obj(2, `<< /Type /Pages /Count ${pages} /Kids [${kids}] >>`);
  obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  for (let k = 0; k < pages; k++) {
    const stream = `BT /F1 10 Tf 10 50 Td (Page ${k + 1} says hello.) Tj ET`;
    obj(
      4 + 2 * k,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * k} 0 R >>`,
    );
    obj(5 + 2 * k, `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  }
  const count = 4 + 2 * pages;
  const xref = size;
  add(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) add(`${String(offsets[n]).padStart(10, "0")} 00000 n \n`);
  add(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  const bytes = Buffer.from(parts.join(""), "latin1");
  fs.writeFileSync(`${file}.${process.pid}`, bytes);
  fs.renameSync(`${file}.${process.pid}`, file);
  return bytes;
}
