/** One section of a parsed document: the unit the chunker keeps whole where it can. */
export interface Section {
  /** The heading line(s) as written in the source (Markdown), or null. */
  heading: string | null;
  /** Titles of the enclosing headings, outermost first (Markdown), e.g. ["Guide", "Install"]. */
  path: string[];
  /** The section's text, starting with its heading line when it has one. */
  text: string;
}
