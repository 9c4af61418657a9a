/**
 * Replies cut short, and the note that marks them (pure: the chat page imports it too).
 *
 * A reply that did not finish is stored with what was shown and a note appended, so the page never
 * mistakes it for a complete answer and says why it ended:
 *  - `stopped`: the person pressed Stop. The text is exactly what their page showed (server/chat/turn.ts).
 *  - `reload`: the page went away (reload, closed tab) while the reply streamed.
 *  - `shutdown`: Memo was stopping; `failed`: the provider failed mid-reply; `cancelled`: a caller of
 *    runTurn other than the chat page cancelled it (its signal).
 * A reply the person stopped or left is not stored as memory unless they keep it ("Remember this
 * anyway", server/chat/keep-cut-short.ts): they did not see it finish. One cut by a failure or a
 * shutdown is stored as memory without the note, as before.
 */
export type CutReason = "stopped" | "reload" | "shutdown" | "cancelled" | "failed";

const NOTE_TEXT: Record<Exclude<CutReason, "failed">, string> = {
  stopped: "you stopped the reply",
  reload: "by reload: the page was reloaded or closed before the reply finished",
  shutdown: "Memo was shutting down before the reply finished",
  cancelled: "the reply was stopped before it finished",
};

/** The note appended to a reply cut short. */
export function cutNote(reason: CutReason, failure?: string): string {
  const text =
    reason === "failed"
      ? `the provider failed mid-reply: ${(failure ?? "").replace(/\s+/g, " ").slice(0, 200)}`
      : NOTE_TEXT[reason];
  return `\n\n[interrupted: ${text}]`;
}

const NOTE_RE = /\n\n\[interrupted: ([^\n]*)\]$/;

/** A stored reply's text and note apart (a reply stopped before its first token has no text). */
export function splitCutNote(content: string): { text: string; note: string | null; reason: CutReason | null } {
  const m = NOTE_RE.exec(content);
  if (!m) return { text: content, note: null, reason: null };
  const note = m[1]!;
  const reason: CutReason =
    note === NOTE_TEXT.stopped
      ? "stopped"
      : note === NOTE_TEXT.reload
        ? "reload"
        : note === NOTE_TEXT.shutdown
          ? "shutdown"
          : note.startsWith("the provider failed")
            ? "failed"
            : "cancelled";
  return { text: content.slice(0, m.index), note, reason };
}

export function stripCutNote(content: string): string {
  return splitCutNote(content).text;
}

/** Cut short by the person (Stop) or by their page going away: not a memory unless they keep it. */
export function keptOnlyOnRequest(reason: CutReason | null): boolean {
  return reason === "stopped" || reason === "reload";
}
