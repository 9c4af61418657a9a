import type { Metadata } from "next";
import { Analytics } from "./analytics";
import { JobsPanel } from "./jobs-panel";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Analytics" };

export default function AnalyticsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memory · Analytics</h1>
      <Analytics />
      <JobsPanel />
    </div>
  );
}
