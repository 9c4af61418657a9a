/**
 * The prompt tells the truth (issue 54): every line of the memory block names its writer relative to the
 * person chatting, a fact learned from someone else's words says whose they are, lines of one day carry
 * their time, and "Sent to" says "not sent" when nothing reached the provider. Checked against the system
 * prompt the provider TEST DOUBLE received (e2e/support/openai-fixture.ts, whose memo_facts answers come from
 * a script) on the real turn, persistence and learning paths (server/test/learning-harness.ts), and against
 * what the API reports (the `sent` event, Debug Search's service, the facts list).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import net from "node:net";
import { memoryBlock, type FixtureMessage } from "../../e2e/support/openai-fixture";
import { createPerson } from "../auth/people";
import { runAs } from "../core/acting";
import { addMemories } from "../memory/store/add";
import { setShare } from "../memory/store";
import { search } from "../memory/retrieval/search";
import * as pack from "../memory/retrieval/memory-block";
import { isFactsRequest } from "../test/fixture-facts-model";
import { learningHarness, type LearningHarness } from "../test/learning-harness";
import { updateRetrievalSettings } from "../services/retrieval-settings-service";
import { listFactsFor } from "../services/facts-service";
import { decideProposals, factProposals } from "../services/fact-proposals-service";
import { startLearning } from "../services/learning-service";
import { saveProviderSettings } from "./providers";
import type { TurnEvent } from "./turn";
import { FIXTURE_MODEL } from "../../e2e/support/openai-fixture";
import { setFactLearner } from "./fact-learner";

let h: LearningHarness;
let bobId = "";
const asOwner = <T>(fn: () => T) => runAs({ personId: "owner", admin: true }, fn);
const asBob = <T>(fn: () => T) => runAs({ personId: bobId, admin: false }, fn);

before(async () => {
  h = await learningHarness();
  setFactLearner(h.learner); // the back-fill runs on the harness's learner, not the app's
  h.db.prepare("UPDATE people SET name = 'Marit' WHERE id = 'owner'").run();
  bobId = createPerson(h.db, { name: "Tobias", login: "tobias", role: "member", passwordHash: "x" }).id;
  // Every result that qualifies is packed: these tests are about the labels, not about the threshold.
  await asOwner(() => updateRetrievalSettings(h.memo, { minConfidence: 0 }));
  await asBob(() => updateRetrievalSettings(h.memo, { minConfidence: 0 }));
});

after(async () => {
  setFactLearner(undefined);
  await h.close();
});

const text = (c: FixtureMessage["content"]) =>
  typeof c === "string" ? c : Array.isArray(c) ? c.map((p) => p.text ?? "").join("") : "";

/** The last chat request's system prompt (not a memo_facts call). */
function lastSystemPrompt(): { system: string; block: string } {
  const req = h.fixture.requests.filter((r) => r.path === "/v1/chat/completions" && !isFactsRequest(r.body)).at(-1)!;
  const messages = req.body!.messages!;
  const system = text(messages.find((m) => m.role === "system")?.content ?? "");
  return { system, block: memoryBlock(messages) ?? "" };
}

const sentOf = (events: TurnEvent[]) =>
  (events.filter((e) => e.type === "sent") as Extract<TurnEvent, { type: "sent" }>[]).at(-1)?.sent;

test("another person's words are packed under their name, in their shared space; the person's own as the user's; the legend once", async () => {
  // Marit's cooking chat and a note added over the API to her space "pantry" (no speaker stored).
  await asOwner(() => h.chat("Nonna's cannelloni take two cups of ricotta and a pinch of nutmeg", { space: "pantry" }));
  await asOwner(() =>
    addMemories(h.memo, [{ text: "The Thursday dentist is Dr. Abara at the Elm Street clinic", space: "pantry" }]),
  );
  setShare(h.db, "pantry", bobId, "read");
  // Tobias's own words, then his question with Marit's space added to the conversation.
  await asBob(() => h.chat("I bought ricotta and nutmeg for the cannelloni"));
  const events = await asBob(() =>
    h.chat("What goes into the cannelloni, and who is the Thursday dentist at Elm Street?", {
      sharedSpaces: ["pantry"],
    }),
  );
  const { system, block } = lastSystemPrompt();
  assert.match(block, /\(in Marit's shared space “pantry”\): Marit said: “Nonna's cannelloni/, block);
  assert.doesNotMatch(block, /the user said: “Nonna's/, "Marit's words are not Tobias's");
  assert.match(block, /\(in Marit's shared space “pantry”\): Marit wrote: “The Thursday dentist is Dr\. Abara/);
  assert.match(block, /: the user said: “I bought ricotta and nutmeg/, "Tobias's own words are the user's");
  assert.match(block, /you replied: “Fixture reply to: I bought ricotta/, "a reply to the user is to the user");
  assert.match(block, /Marit said: “Nonna's cannelloni[^\n]*\n {2}you replied to Marit: “/, "a reply to Marit says so");
  const legend = pack.LABELS_LEGEND;
  assert.ok(legend, "the labels have a legend");
  assert.equal(system.split(legend).length - 1, 1, "the system prompt says once what the labels mean");

  // "Sent to" shows the very lines the model got.
  const sent = sentOf(events)!;
  assert.ok(sent.block.endsWith(block), `sent block:\n${sent.block}\n---\nprompt block:\n${block}`);
  assert.equal(sent.notSent, undefined);

  // Debug Search (its service, as Tobias) reports the same label and line for Marit's memory.
  const found = await asBob(() => search(h.memo, { query: "cannelloni ricotta nutmeg", space: "pantry" }));
  const hit = found.results.find((r) => r.content.includes("Nonna's cannelloni"))!;
  assert.equal(hit.source.writer, "Marit");
  assert.deepEqual(hit.source.space, { owner: "Marit", name: "pantry" });
  // (The time of day is shown where two lines share a day among what was found: a turn over two spaces can find more.)
  const untimed = (line: string) => line.replace(/^- (\d{4}-\d{2}-\d{2}) \d{2}:\d{2}/, "- $1");
  const line = hit.packedAs.split("\n")[0]!;
  assert.match(line, /\(in Marit's shared space “pantry”\): Marit said: “Nonna's cannelloni/);
  assert.ok(
    block.split("\n").some((l) => untimed(l) === untimed(line)),
    `${hit.packedAs}\n---\n${block}`,
  );

  // Marit asking in her own space: her words are the user's, nobody else is named.
  await asOwner(() => h.chat("How much ricotta for the cannelloni?", { space: "pantry" }));
  const own = lastSystemPrompt().block;
  assert.match(own, /the user said: “Nonna's cannelloni/);
  assert.doesNotMatch(own, /Marit (said|wrote)/);
});

test("an earlier reply that repeated what it was given is labelled as restating recall; an imported chat names its history", async () => {
  // Marit's last turn in "pantry" was answered by echoing its memory block (the double's reply): a restating reply.
  await asOwner(() =>
    addMemories(
      h.memo,
      [
        {
          text: "",
          space: "pantry",
          timestamp: "2024-03-01T10:00:00.000Z",
          said: [
            { role: "user", text: "Should cannelloni rest before baking?" },
            { role: "assistant", text: "Let them rest ten minutes so the ricotta sets." },
          ],
        },
      ],
      { conversationId: "chatgpt:c-17", kind: "import" },
    ),
  );
  await asOwner(() => h.chat("Ricotta for the cannelloni: how much, and should they rest?", { space: "pantry" }));
  const { block } = lastSystemPrompt();
  assert.match(block, /you replied, restating what you recalled then: “Fixture reply to: How much ricotta/, block);
  assert.match(
    block,
    /- 2024-03-01 \(from the user's chatgpt history\): the user said: “Should cannelloni rest before baking\?”\n {2}you replied: “Let them rest/,
  );
});

test("a fact learned by the owner's back-fill from another person's memory records that person and says so", async () => {
  await asOwner(() =>
    addMemories(h.memo, [{ text: "The household budget sheet is in the blue folder", space: "house" }]),
  );
  setShare(h.db, "house", bobId, "write");
  // Tobias writes into Marit's space (a read-write share); Marit's back-fill then learns from it.
  await asBob(() =>
    addMemories(h.memo, [{ text: "My bank is Fjordbank in Bergen, account ending 4417", space: "house" }]),
  );
  h.fixture.facts.set([{ when: "Fjordbank", facts: [{ text: "Banks with Fjordbank in Bergen." }] }]);
  await asOwner(() => startLearning(h.memo, { kind: "backfill", space: "house" }));
  await h.settle();
  // Learned from another person's words: a proposal Marit confirms first (issue 54, "untrusted text proposes").
  const pending = await asOwner(() => factProposals(h.memo).proposals);
  const proposed = pending.find((p) => p.text === "Banks with Fjordbank in Bergen.");
  assert.ok(proposed, JSON.stringify(pending.map((p) => p.text)));
  assert.deepEqual((await asOwner(() => decideProposals(h.memo, [proposed.id], "accept"))).done, [proposed.id]);
  const facts = await asOwner(() => listFactsFor(h.memo, { space: "house" }));
  const bank = facts.facts.find((f) => f.text === "Banks with Fjordbank in Bergen.");
  assert.ok(bank, JSON.stringify(facts.facts.map((f) => f.text)));
  assert.equal(bank.whose?.writer, "Tobias", "the facts API names the fact's writer");

  // Marit's prompt: the fact is Tobias's, not hers.
  await asOwner(() => h.chat("Which bank is Fjordbank in Bergen, and whose account is it?", { space: "house" }));
  const { system } = lastSystemPrompt();
  assert.match(
    system,
    /\[What I know\][^[]*\n- Tobias said: Banks with Fjordbank in Bergen\. \(since \d{4}-\d{2}-\d{2}\)/,
  );
  assert.doesNotMatch(system, /\n- Banks with Fjordbank/, "never as Marit's own fact");
});

test("two recalled lines of one day carry their time in the person's zone; a day of one line its date alone", async () => {
  const day = "2026-11-20";
  await asOwner(() =>
    addMemories(h.memo, [
      {
        text: "The parcel for Ingrid went to the neighbour at number 12",
        space: "errands",
        timestamp: `${day}T08:15:00.000Z`,
      },
      {
        text: "The parcel for Ingrid was moved to the post office on Kirkegata",
        space: "errands",
        timestamp: `${day}T15:40:00.000Z`,
      },
      {
        text: "The parcel for Ingrid was first announced for delivery",
        space: "errands",
        timestamp: "2026-11-02T11:00:00.000Z",
      },
    ]),
  );
  await asOwner(() =>
    h.chat("Where is Ingrid's parcel now, the neighbour or the post office?", {
      space: "errands",
      tzOffsetMinutes: 60,
    }),
  );
  const { block } = lastSystemPrompt();
  assert.match(block, new RegExp(`- ${day} 09:15: The parcel for Ingrid went to the neighbour`), block);
  assert.match(block, new RegExp(`- ${day} 16:40: The parcel for Ingrid was moved to the post office`));
  assert.match(
    block,
    /- 2026-11-02: The parcel for Ingrid was first announced/,
    "a day of one line keeps the day alone",
  );
});

/** A port on loopback that refuses connections (a server opened and closed). */
async function refusedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test("a provider that refused the connection: the turn reports the block as not sent", async () => {
  const port = await refusedPort();
  saveProviderSettings(h.db, {
    active: "openai",
    openai: { baseUrl: `http://127.0.0.1:${port}/v1`, model: FIXTURE_MODEL },
  });
  try {
    const events = await asOwner(() => h.chat("Where is Ingrid's parcel now?", { space: "errands" }));
    assert.ok(
      events.some((e) => e.type === "error"),
      "the turn failed",
    );
    const sent = sentOf(events)!;
    assert.ok(sent.block.includes("[Relevant Memories]"), "memories were recalled for it");
    assert.match(sent.notSent ?? "", /could not be reached/, JSON.stringify(sent));
  } finally {
    saveProviderSettings(h.db, { active: "openai", openai: { baseUrl: h.fixture.url, model: FIXTURE_MODEL } });
  }
});
