import type { Metadata } from "next";
import { DebugSearch } from "./debug-search";
import { EmbedderBanner } from "./embedder-banner";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Debug Search" };

export default function DebugSearchPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memory · Debug Search</h1>
      <EmbedderBanner />
      <DebugSearch />
    </div>
  );
}
