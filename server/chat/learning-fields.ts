/**
 * The fact-learning setting (`facts.learning`, docs/facts.md), declared once: whose it is, its one field — a
 * switch per provider endpoint, keyed "<provider>@<host>" as memory sharing keys them — its default by where
 * the endpoint is, its validation, and the words Settings → Learning facts shows for it
 * (app/settings/learning-section.tsx). fact-model.ts reads, merges and writes it from this. Plain data, no
 * server imports, so the page can read it.
 */
export const LEARNING_SETTING = {
  key: "facts.learning",
  /** Each person's own: it goes with their memory-sharing choices (issue 48). */
  scope: "personal",
  field: {
    name: "providers",
    label: "Learn facts with",
    /** Nothing saved for an endpoint: on for this machine (it costs nothing), off for a remote one. */
    default: { local: true, remote: false },
    /** What a switch costs, by where the endpoint is (the form adds its default). */
    cost: {
      local: "on this machine",
      remote: "remote: costs one extra call per exchange, and sends it the exchange with your known facts",
    },
    /** The longest endpoint key accepted ("<provider>@<host>"). */
    keyMaxLength: 300,
  },
} as const;

/** Whether learning is on for an endpoint when the person has saved nothing for it. */
export function learningDefault(local: boolean): boolean {
  return LEARNING_SETTING.field.default[local ? "local" : "remote"];
}

/** The form's line for an endpoint: what it costs and its default. */
export function learningHint(local: boolean): string {
  const where = local ? "local" : "remote";
  return `· ${LEARNING_SETTING.field.cost[where]} (${learningDefault(local) ? "on" : "off"} by default)`;
}
