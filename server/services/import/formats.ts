/**
 * The import formats, as people and pages see them (docs/architecture.md#importers). Plain data with no
 * server imports, so the Manager page builds its import form from it; what each format does with a file
 * (parse → plan) is in registry.ts, which must name a planner for every id here (a type error otherwise).
 */
export interface ImportFormatInfo {
  /** Shown in the import form's format list and in the job list ("ChatGPT · conversations.json"). */
  name: string;
  /** The route that takes this format's file as its body; every route under /api/v1/import but jobs is one. */
  route: string;
  /** What the file is (the file input's label). */
  fileLabel: string;
  /** One line on where the file comes from and what becomes of it. */
  hint: string;
  /** The job's label when the request names no file. */
  defaultLabel: string;
  /** Space the memories go to when none is given: a space name, or null for the space each memory names. */
  defaultSpace: "personal" | null;
  /**
   * For conversation exports: the prefix of the stored `conversation_id` (`chatgpt:<id>`), which is how a
   * memory row says where it came from; such an import can teach facts on request (LearnFacts).
   */
  conversationPrefix: string | null;
  /**
   * For another app's export: where in that app it is made and the file to import from it (the first-run
   * checklist and the "What Memo knows" page name every such importer from here); null for Memo's own.
   */
  exportFrom: { steps: string; file: string } | null;
}

export const IMPORT_FORMATS = {
  memo: {
    name: "Memo",
    route: "/api/v1/import",
    fileLabel: "Memo export file",
    hint: "A JSON file made by Export. Memories already stored (same text in the same space) are skipped; the rest are embedded with the current model.",
    defaultLabel: "request body",
    defaultSpace: null,
    conversationPrefix: null,
    exportFrom: null,
  },
  chatgpt: {
    name: "ChatGPT",
    route: "/api/v1/import/chatgpt",
    fileLabel: "conversations.json file",
    hint: "conversations.json from a ChatGPT data export (Settings → Data controls → Export; unzip it first). Each exchange becomes a chat memory with its original time, and each conversation a chat you can reopen and continue.",
    defaultLabel: "conversations.json",
    defaultSpace: "personal",
    conversationPrefix: "chatgpt:",
    exportFrom: { steps: "Settings → Data controls → Export", file: "conversations.json" },
  },
  claude: {
    name: "Claude",
    route: "/api/v1/import/claude",
    fileLabel: "Claude conversations.json file",
    hint: "conversations.json from a Claude data export (Settings → Privacy → Export data; unzip it first). Each exchange becomes a chat memory with its original time, and each conversation a chat you can reopen and continue.",
    defaultLabel: "conversations.json",
    defaultSpace: "personal",
    conversationPrefix: "claude:",
    exportFrom: { steps: "Settings → Privacy → Export data", file: "conversations.json" },
  },
} as const satisfies Record<string, ImportFormatInfo>;

export type ImportFormatId = keyof typeof IMPORT_FORMATS;

export const IMPORT_FORMAT_IDS = Object.keys(IMPORT_FORMATS) as ImportFormatId[];

export function isImportFormat(id: string): id is ImportFormatId {
  return Object.hasOwn(IMPORT_FORMATS, id);
}

/** The formats that import another app's export (ChatGPT, Claude, …), in the registry's order. */
export function otherAppImports(): (ImportFormatInfo & {
  id: ImportFormatId;
  exportFrom: { steps: string; file: string };
})[] {
  return IMPORT_FORMAT_IDS.flatMap((id) => {
    const f: ImportFormatInfo = IMPORT_FORMATS[id];
    return f.exportFrom ? [{ ...f, id, exportFrom: f.exportFrom }] : [];
  });
}

/** "ChatGPT", "ChatGPT or Claude", "ChatGPT, Claude or X" (`word`: "or" / "and"). */
export function namesList(names: readonly string[], word: "or" | "and"): string {
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} ${word} ${names.at(-1)}`;
}

/** The format whose import stored this conversation id (`chatgpt:…`), or null for Memo's own chats. */
export function importedFrom(conversationId: string): ImportFormatId | null {
  for (const id of IMPORT_FORMAT_IDS) {
    const prefix: string | null = IMPORT_FORMATS[id].conversationPrefix;
    if (prefix && conversationId.startsWith(prefix)) return id;
  }
  return null;
}
