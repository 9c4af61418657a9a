import type { Metadata } from "next";
import { Knows } from "./knows";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "What Memo knows" };

export default function KnowsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memory · What Memo knows</h1>
      <Knows />
    </div>
  );
}
