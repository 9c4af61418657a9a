import type { Metadata } from "next";
import { ImportExport } from "./import-export";
import { Manager } from "./manager";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Manager" };

export default function ManagerPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Memory · Manager</h1>
      <Manager />
      <ImportExport />
    </div>
  );
}
