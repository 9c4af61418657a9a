import type { Metadata } from "next";
import { Ingest } from "./ingest";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Ingest" };

export default function IngestPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Ingest documents</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Markdown, plain text and PDF files become memories: split on headings, cut into chunks of about 512 tokens,
        embedded and stored. A file already ingested in the space adds nothing new. Progress survives a reload; the work
        runs in the background.
      </p>
      <Ingest />
    </div>
  );
}
