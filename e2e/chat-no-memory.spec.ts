import { test, expect } from "./chat-fixtures";
import { memoryBlock, type FixtureRequest } from "./support/openai-fixture";

/**
 * Recall only what matters: with memories in the space, a general-knowledge question gets none of them.
 * Nothing reaches the minimum confidence, so the page says "No memory used" and the provider (the
 * OpenAI-compatible test double, e2e/support/openai-fixture.ts) receives a system prompt without a
 * [Relevant Memories] block. A question about the stored fact still gets it (the threshold is not a wall).
 */

const token = () => Math.random().toString(36).slice(2, 8);
const fixtureURL = `http://127.0.0.1:${process.env.MEMO_E2E_FIXTURE_PORT}`;

test("a general-knowledge question uses no memory: the page says so and the provider gets no memory block", async ({
  chat,
  chatApi,
  space,
  request,
}) => {
  const code = token();
  const fact = `Our dog Pepper-${code} is a beagle and she hates the vacuum cleaner.`;
  await chat.goto(space);
  const first = await chat.send(fact);
  await expect(chat.replyText(first)).toContainText(`Fixture reply to: ${fact}`);
  await chatApi.waitForMemory(space, "dog Pepper beagle", `Pepper-${code}`);

  await chat.newChatButton.click();
  // Its own token, not the fact's: a word the question shares with a memory is evidence for that memory.
  const question = `How do I center a div horizontally and vertically with CSS? (${token()})`;
  const reply = await chat.send(question);
  await expect(chat.replyText(reply)).toContainText(`Fixture reply to: ${question}`);
  await expect(chat.replyText(reply)).toContainText("No memory block received.");
  await expect(reply.getByTestId("no-memory-used")).toHaveText("No memory used");
  await expect(reply.getByTestId("recalled")).toHaveCount(0);

  // What the provider actually received for that turn: a system prompt without any memory block.
  const requests = (await (await request.get(`${fixtureURL}/__fixture/requests`)).json()) as FixtureRequest[];
  const turn = requests.filter((r) => JSON.stringify(r.body).includes(question));
  expect(turn.length).toBeGreaterThan(0);
  for (const r of turn) expect(memoryBlock(r.body?.messages ?? [])).toBeNull();

  // A question about the stored fact still recalls it (in a new chat: the CSS question is no context of it).
  await chat.newChatButton.click();
  const about = await chat.send("What breed is our dog Pepper?");
  await expect(chat.replyText(about)).toContainText("Memory block received:");
  await expect(chat.replyText(about)).toContainText(`Pepper-${code}`);
  await expect(about.getByTestId("no-memory-used")).toHaveCount(0);
});
