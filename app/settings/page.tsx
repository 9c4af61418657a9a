import type { Metadata } from "next";
import { ProvidersSection } from "./providers-section";
import { RetrievalSection } from "./retrieval-section";
import { SpacesSection } from "./spaces-section";
import { JobsSection } from "./jobs-section";
import { LifetimeSection } from "./lifetime-section";
import { AccessSection } from "./access-section";
import { ModelsSection } from "./models-section";
import { PeopleSection } from "./people-section";
import { LearningSection } from "./learning-section";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <div className="space-y-6">
      <h1 className="text-2xl font-semibold">Settings</h1>
      <ProvidersSection />
      <LearningSection />
      <ModelsSection />
      <RetrievalSection />
      <SpacesSection />
      <LifetimeSection />
      <JobsSection />
      <PeopleSection />
      <AccessSection />
    </div>
  );
}
