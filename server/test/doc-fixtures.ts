/**
 * Files for ingestion tests, generated on the fly: a real PNG (hand-encoded), PDFs with a text layer
 * (pdf-lib, standard Helvetica), a scanned-style PDF holding only an image (no text layer), a corrupt PDF.
 */
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
