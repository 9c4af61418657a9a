import assert from "node:assert/strict";
import { test } from "node:test";
import {
  isSelfDisclosure,
  queryIntent,
  speakerIntent,
  speakerPart,
  suitsIntent,
  turnIntent as turnIntentWithSign,
} from "./personal";

const turnIntent = (...args: Parameters<typeof turnIntentWithSign>) => turnIntentWithSign(...args).intent;

test("query intent and self-disclosure: personal questions want the person's own statements", () => {
  assert.equal(queryIntent("What's my dog called?"), "personal");
  assert.equal(queryIntent("Do I read e-books?"), "personal");
  assert.equal(queryIntent("How do I center a div?"), "general");
  assert.equal(queryIntent("Write a haiku about autumn."), "general");
  assert.equal(queryIntent("What book did you recommend about habits?"), "assistant");
  assert.equal(queryIntent("How do I like my steak cooked?"), "personal", "a taste, not a how-to");
  assert.equal(isSelfDisclosure("User: We adopted a beagle on Saturday!\nAssistant: Congratulations!"), true);
  assert.equal(isSelfDisclosure("User: How do I descale a kettle?\nAssistant: Vinegar."), false);
  assert.equal(isSelfDisclosure("User: Why is the sky blue?\nAssistant: Scattering."), false);
  // Asks in the first person are about a task, not the person.
  for (const ask of [
    "Help me draft a resignation letter, keep it short.",
    "I need a toast for my sister's wedding. Something friendly.",
    "Could you write me a bio for the club newsletter.",
    "I never really understood tides. What's the gist?",
    "Please summarise this article for me.",
  ])
    assert.equal(isSelfDisclosure(`User: ${ask}\nAssistant: Sure.`), false, ask);
  for (const news of [
    "I need a root canal next Thursday.",
    "I wrote to the council about the potholes on our street.",
    "Help arrived at last: my brother is staying with us this week.",
  ])
    assert.equal(isSelfDisclosure(`User: ${news}\nAssistant: Noted.`), true, news);
});

test("turn intent: a turn about the person's life without first-person words", () => {
  // A follow-up with no one in it takes the frame of the message before it.
  assert.equal(turnIntent("Is he up and walking yet?"), "general");
  assert.equal(turnIntent("Is he up and walking yet?", ["How is my dad after his knee operation?"]), "personal");
  assert.equal(turnIntent("And in Python?", ["How do I reverse a string in JavaScript?"]), "general");
  // A request to recount the person's past, even phrased as an ask.
  for (const q of [
    "Give me the whole story of the guitar: how did it start and how did it turn out?",
    "Recap the house move, start to finish.",
    "The whole story of the allotment, please.",
    "Back in April, what was going on with the vegetable garden?",
    "What has been going on with the boiler?",
  ]) {
    assert.equal(turnIntent(q), "personal", q);
    assert.equal(queryIntent(q), "general", `${q}: no first person, so no boost`);
  }
  // A kinship word used as a name is the person's family; with an article or someone else's, it is not.
  assert.equal(turnIntent("How is pops healing after the procedure?"), "personal");
  assert.equal(turnIntent("What did the watchmaker say about grandad's watch?"), "personal");
  assert.equal(turnIntent("Is Mum coming on Sunday?"), "personal");
  for (const q of [
    "Why do they call it a dad joke?",
    "What did the mother of the bride wear?",
    "Who was the grandma in Little Red Riding Hood?",
    "Who is the father of modern physics?",
    "What is the capital of Australia?",
    "How do I center a div?",
    "Explain recursion to a ten-year-old.",
    "What happened to the Roman empire?",
  ])
    assert.equal(turnIntent(q), "general", q);
  // A name the person has told about (the caller says which: keyword-search.ts namesToldOf).
  const toldOf = (t: string) => (/Ziggy/.test(t) ? ["Ziggy"] : []);
  assert.equal(turnIntent("When does Ziggy need boosters?", [], toldOf), "personal");
  assert.equal(turnIntent("When does Ziggy need boosters?"), "general");
  assert.equal(turnIntent("When are they due?", ["Quick question about Ziggy."], toldOf), "personal");
  assert.equal(turnIntent("How do I train a dog like Ziggy?", [], toldOf), "general", "a how-to stays one");
  // Which sign it was (Debug Search shows it); none when the words say it themselves.
  assert.equal(
    turnIntentWithSign("When does Ziggy need boosters?", [], toldOf).sign,
    "the person has told about Ziggy",
  );
  assert.equal(turnIntentWithSign("How is pops healing?").sign, "“pops” is family");
  assert.equal(turnIntentWithSign("Recap the hike.").sign, "a request to recount the person's past");
  assert.equal(turnIntentWithSign("Is he walking?", ["How is my dad?"]).sign, "a follow-up of the previous message");
  // A date window the query names that holds the person's memories (the caller says which words).
  const garden = "What happened with the vegetable garden in May?";
  assert.equal(turnIntent(garden), "general");
  assert.deepEqual(turnIntentWithSign(garden, [], undefined, "in May"), {
    intent: "personal",
    sign: "it names a time of the person's history, “in May”",
  });
  assert.equal(turnIntent("How do I plant tomatoes in May?", [], undefined, "in May"), "general", "a how-to stays one");
  assert.equal(
    turnIntentWithSign("What did I say in May?", [], undefined, "in May").sign,
    null,
    "first person says it",
  );
  assert.equal(turnIntentWithSign("How is my dad?").sign, null);
  assert.equal(turnIntentWithSign("What is a monad?").sign, null);
  // The frame of an earlier message counts its implicit signs too.
  assert.equal(turnIntent("Is he walking yet?", ["How is pops after the operation?"]), "personal");
});

test("a conversation between named people: a question naming a speaker wants that speaker's own statements", () => {
  const ex =
    "Caroline: I joined a support group last week, it helped a lot. Melanie: I'm so glad! I went hiking with my kids.";
  assert.equal(speakerPart(ex, "Caroline"), "I joined a support group last week, it helped a lot.");
  assert.equal(speakerPart(ex, "Melanie"), "I'm so glad! I went hiking with my kids.");
  assert.equal(speakerPart(ex, "Anna"), "");
  assert.equal(
    speakerPart("Caroline: Hi. Melanie: Hey. Caroline: I painted a sunrise.", "Caroline"),
    "Hi. I painted a sunrise.",
  );
  assert.equal(isSelfDisclosure(ex, ["Caroline"]), true);
  assert.equal(
    isSelfDisclosure("Caroline: How do I glaze a pot? Melanie: I paint mine with a brush.", ["Caroline"]),
    false,
  );
  assert.equal(
    isSelfDisclosure("Caroline: How do I glaze a pot? Melanie: I paint mine with a brush.", ["Caroline", "Melanie"]),
    true,
  );
  assert.equal(suitsIntent("personal", "Melanie: I ran a marathon. Caroline: Wow.", ["Caroline"]), false);
  // Without speakers, a memory that is not a chat exchange is the person's own material, as before.
  assert.equal(isSelfDisclosure(ex), true);

  assert.equal(speakerIntent("What did Caroline research?", ["Caroline"]), "personal");
  assert.equal(speakerIntent("What did Caroline research?", []), null);
  assert.equal(speakerIntent("How do I paint like Caroline?", ["Caroline"]), null, "a how-to stays general");
  assert.equal(speakerIntent("What did I tell Caroline?", ["Caroline"]), null, "first person: the person's own intent");
  assert.deepEqual(
    turnIntentWithSign("When did Caroline go to the support group?", [], () => [], null, ["Caroline"]),
    {
      intent: "personal",
      sign: "it asks about Caroline, who speaks in these conversations",
    },
  );
});
