/**
 * Markdown is split on headings first: every ATX (`## Title`) or setext (`Title` over `===`/`---`) heading
 * starts a section, so a chunk never straddles two topics unless a section is too long for one chunk.
 * Lines inside fenced code blocks are never headings. YAML front matter is dropped.
 */
import type { Section } from "./section";

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_2 = /^ {0,3}-+[ \t]*$/;

/** Text of a heading without its markers, for the section's title path. */
function headingTitle(text: string): string {
  return text.replace(/[*_`]/g, "").replace(/\s+/g, " ").trim();
}

export function splitMarkdown(source: string): Section[] {
  let text = source;
  const fm = /^---[ \t]*\n[\s\S]*?\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (fm) text = text.slice(fm[0].length);
  const lines = text.split("\n");
  const sections: Section[] = [];
  const path: { level: number; title: string }[] = [];
  let current: { heading: string | null; lines: string[]; headLines: number } = {
    heading: null,
    lines: [],
    headLines: 0,
  };
  let fence: string | null = null;

  const flush = () => {
    const body = current.lines.join("\n").trim();
    if (body.length > 0) {
      sections.push({ heading: current.heading, path: path.map((p) => p.title), text: body });
    }
  };
  const open = (level: number, title: string, headingLines: string[]) => {
    flush();
    while (path.length && path[path.length - 1]!.level >= level) path.pop();
    path.push({ level, title: headingTitle(title) });
    current = { heading: headingLines.join("\n"), lines: [...headingLines], headLines: headingLines.length };
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = FENCE.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      current.lines.push(line);
      continue;
    }
    if (f) {
      fence = f[1]!;
      current.lines.push(line);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      open(atx[1]!.length, atx[2] ?? "", [line]);
      continue;
    }
    // Setext: a paragraph line directly above a line of = (level 1) or - (level 2).
    const next = lines[i + 1];
    const prev = current.lines[current.lines.length - 1];
    const paragraphLine = line.trim().length > 0 && !/^ {0,3}([>*+-]|\d+[.)])\s/.test(line) && !/^ {4}|\t/.test(line);
    const startsParagraph = prev === undefined || prev.trim() === "" || current.lines.length === current.headLines;
    if (
      next !== undefined &&
      paragraphLine &&
      startsParagraph &&
      (SETEXT_1.test(next) || (SETEXT_2.test(next) && next.trim().length >= 2))
    ) {
      open(SETEXT_1.test(next) ? 1 : 2, line, [line, next]);
      i++;
      continue;
    }
    current.lines.push(line);
  }
  flush();
  return sections;
}
