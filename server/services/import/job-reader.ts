/**
 * A job's file as a pull sequence of units (one import group each: the chunks of one exchange, or of one
 * memory of a Memo export), from the job's cursor on. The runner takes units until a batch is full; the
 * cursor after the last unit taken is where a restart resumes (runner.ts).
 *
 * Conversation exports (ChatGPT, Claude) are streamed (stream-conversations.ts): one conversation in memory
 * at a time. A Memo export is planned whole (its importer validates the file as one object), which is why its
 * size stays capped lower (MAX_IMPORT_BYTES in transfer-service.ts).
 */
import fs from "node:fs";
import type { NewMemory } from "../../memory/store";
import { ServiceError } from "../../core/errors";
import type { ImportPlan } from "../transfer-service";
import { chatGptFormat } from "./chatgpt";
import { claudeFormat } from "./claude";
import { type ConversationCounts, type ConversationFormat, exchangeGroup } from "./conversations";
import { IMPORT_FORMATS, type ImportFormatId } from "./formats";
import type { ImportJobRow } from "./job-rows";
import { type StreamedConversation, streamConversations } from "./stream-conversations";

/** One group of the file and where it stands in it. */
export interface ImportUnit {
  /** The conversation (or Memo memory) it is part of, and its place among that item's groups. */
  item: number;
  group: number;
  /** The last group of its item: the cursor after it is the next item's start. */
  last: boolean;
  chunks: NewMemory[];
  /** What the item adds to the job's counts, credited with its last group (so a resumed item counts once). */
  credit: ConversationCounts | null;
  problem: string | null;
  /** Bytes of the file read up to this item. */
  bytesRead: number;
  /** The conversation as read, on its first unit (null on the others, and for a Memo export). */
  conversation: StreamedConversation | null;
}

export interface ImportReader {
  next(): Promise<ImportUnit | null>;
  close(): void;
}

/** Plans a whole file of a format read at once (a Memo export); the server passes its off-thread planner. */
export type PlanWhole = (format: ImportFormatId, bytes: Uint8Array, space: string | undefined) => Promise<ImportPlan>;

const FORMATS: Partial<Record<ImportFormatId, ConversationFormat>> = { chatgpt: chatGptFormat, claude: claudeFormat };

/** Is this format read as a stream (else planned whole)? */
export const isStreamed = (format: ImportFormatId): boolean => FORMATS[format] !== undefined;

/**
 * Check the start of a large streamed file before it is queued: a list whose first conversation is this
 * format's (not another app's), valid JSON so far. A 400 otherwise; later problems fail the job as it reads.
 */
export async function checkStreamedStart(format: ImportFormatId, file: string): Promise<void> {
  const f = FORMATS[format];
  if (!f) throw new Error(`${format} is not read as a stream`);
  for await (const _ of streamConversations(file, f)) break;
}

type Job = Pick<ImportJobRow, "kind" | "file" | "space" | "nextItem" | "nextGroup" | "queuedAt">;

export function openReader(job: Job, planWhole: PlanWhole, onDetail: (detail: string) => void): ImportReader {
  if (!job.file || !fs.existsSync(job.file))
    throw new ServiceError(409, "the received file is gone (removed from the data folder): send it again");
  const it = isStreamed(job.kind) ? conversationUnits(job) : planUnits(job, planWhole, onDetail);
  return {
    next: async () => {
      const r = await it.next();
      return r.done ? null : r.value;
    },
    close: () => void it.return(undefined),
  };
}

async function* conversationUnits(job: Job): AsyncGenerator<ImportUnit> {
  const format = FORMATS[job.kind]!;
  const prefix = IMPORT_FORMATS[job.kind].conversationPrefix!;
  // An undated exchange is stamped with the job's queue time: a resumed job stamps it the same.
  const now = new Date(job.queuedAt);
  for await (const c of streamConversations(job.file!, format, { from: job.nextItem, now })) {
    const groups = c.exchanges.map((e) => exchangeGroup(e, job.space!, prefix));
    const credit: ConversationCounts = {
      conversations: c.read ? 1 : 0,
      exchanges: c.exchanges.length,
      skippedMessages: c.skipped,
      undated: c.exchanges.filter((e) => e.undated).length,
      malformed: c.read ? 0 : 1,
    };
    const first = c.index === job.nextItem ? job.nextGroup : 0;
    if (groups.length === 0) {
      yield {
        item: c.index,
        group: 0,
        last: true,
        chunks: [],
        credit,
        problem: c.problem,
        bytesRead: c.bytesRead,
        conversation: c,
      };
      continue;
    }
    for (let g = first; g < groups.length; g++) {
      const last = g === groups.length - 1;
      yield {
        item: c.index,
        group: g,
        last,
        chunks: groups[g]!,
        credit: last ? credit : null,
        problem: null,
        bytesRead: c.bytesRead,
        conversation: g === first ? c : null,
      };
    }
  }
}

async function* planUnits(
  job: Job,
  planWhole: PlanWhole,
  onDetail: (detail: string) => void,
): AsyncGenerator<ImportUnit> {
  const bytes = await fs.promises.readFile(job.file!);
  const plan = await planWhole(job.kind, bytes, job.space ?? undefined);
  onDetail(plan.detail);
  for (let i = job.nextItem; i < plan.groups.length; i++)
    yield {
      item: i,
      group: 0,
      last: true,
      chunks: plan.groups[i]!,
      credit: null,
      problem: null,
      bytesRead: Math.round((bytes.byteLength * (i + 1)) / plan.groups.length),
      conversation: null,
    };
}
