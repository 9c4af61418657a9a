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
import { SettingsMenu } from "./settings-menu";

export const dynamic = "force-dynamic";
// The tab says which page this is (the layout adds " · Memo").
export const metadata: Metadata = { title: "Settings" };

export default function SettingsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Settings</h1>
      {/* A side list of the sections on a desktop, a select on a phone; each section has its own #anchor. */}
      <div className="md:grid md:grid-cols-[11rem_minmax(0,1fr)] md:gap-6">
        <div className="sticky top-0 z-10 -mx-4 bg-zinc-50 px-4 py-2 md:static md:mx-0 md:bg-transparent md:p-0 dark:bg-zinc-950 md:dark:bg-transparent">
          <SettingsMenu containerId="settings-sections" />
        </div>
        <div id="settings-sections" className="min-w-0 space-y-6 [&>section]:scroll-mt-14 md:[&>section]:scroll-mt-4">
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
      </div>
    </div>
  );
}
