import { Analytics } from "./analytics";
import { JobsPanel } from "./jobs-panel";

export const dynamic = "force-dynamic";

export default function AnalyticsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memory · Analytics</h1>
      <Analytics />
      <JobsPanel />
    </div>
  );
}
