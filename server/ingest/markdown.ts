/**
 * Markdown is split on headings first: every ATX (`## Title`) or setext (`Title` over `===`/`---`) heading
 * starts a section, so a chunk never straddles two topics unless a section is too long for one chunk.
 * Lines inside fenced code blocks are never headings. YAML front matter is dropped.
 */
import type { Section } from "./section";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SETEXT_1 = /^ {0,3}=+[ \t]*$/;
const SETEXT_2 = /^ {0,3}-+[ \t]*$/;

/** A title in the heading path is cut to this many characters (a crafted 100K-character heading stays text). */
export const MAX_TITLE_CHARS = 200;

/** Text of a heading without its markers, for the section's title path. */
function headingTitle(text: string): string {
  return text.replace(/[*_`]/g, "").replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_CHARS);
}

const blank = (c: string | undefined) => c === " " || c === "\t";

/**
 * An ATX heading (`## Title ##`): its level and title, or null. Scanned by hand in one pass: the regex it
 * replaces (`(.*?)(?:[ \t]+#+)?[ \t]*$`) backtracked quadratically on a long run of spaces, so one
 * 100 KB line held the event loop for many seconds.
 */
export function atxHeading(line: string): { level: number; title: string } | null {
  let i = 0;
  while (i < 3 && line[i] === " ") i++;
  let j = i;
  while (j < line.length && line[j] === "#") j++;
  const level = j - i;
  if (level < 1 || level > 6 || (j < line.length && !blank(line[j]))) return null;
  let end = line.length;
  while (end > j && blank(line[end - 1])) end--;
  // An optional closing run of #s, preceded by a space or tab.
  let k = end;
  while (k > j && line[k - 1] === "#") k--;
  if (k < end && blank(line[k - 1])) {
    end = k;
    while (end > j && blank(line[end - 1])) end--;
  }
  let start = j;
  while (start < end && blank(line[start])) start++;
  return { level, title: line.slice(start, end) };
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
    const atx = atxHeading(line);
    if (atx) {
      open(atx.level, atx.title, [line]);
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
