import assert from "node:assert/strict";
import { test } from "node:test";
import { questionAsStatement, statedQuestions } from "./question-frame";

test("a question loses its question word, its inverted auxiliary and its question mark", () => {
  assert.equal(questionAsStatement("When is my dad's knee replacement?"), "my dad's knee replacement");
  assert.equal(questionAsStatement("Do I keep my tasks on my phone?"), "I keep my tasks on my phone");
  assert.equal(questionAsStatement("What did the vet say about Ziggy?"), "the vet say about Ziggy");
  assert.equal(questionAsStatement("How's the training going?"), "the training going");
  assert.equal(questionAsStatement("Didn’t I book the aisle seat??"), "I book the aisle seat");
});

test("question phrases go as one unit; an auxiliary after the subject stays", () => {
  assert.equal(questionAsStatement("How much did I pay for my six-string?"), "I pay for my six-string");
  assert.equal(questionAsStatement("What kind of movies do I avoid?"), "movies do I avoid");
  assert.equal(questionAsStatement("Which breed is my four-legged buddy?"), "breed is my four-legged buddy");
});

test("a question typed without its mark is one when it opens like a question", () => {
  assert.equal(questionAsStatement("what did i say about the boiler"), "i say about the boiler");
  assert.equal(questionAsStatement("is the dentist on tuesday"), "the dentist on tuesday");
  assert.equal(questionAsStatement("can't sleep again"), "can't sleep again", "an unmarked negative opens a statement");
});

test("statements stay as typed; a one-word question keeps its word", () => {
  assert.equal(questionAsStatement("What a day."), "What a day.");
  assert.equal(questionAsStatement("What a day!"), "What a day!");
  assert.equal(questionAsStatement("Remind me what I said about the boiler"), "Remind me what I said about the boiler");
  assert.equal(questionAsStatement("Why?"), "Why");
  assert.equal(questionAsStatement("?"), "?");
});

test("a text keeps its lines and statements; each of its questions is stated", () => {
  assert.equal(
    statedQuestions("Quick question about Ziggy.\nWhen are the booster shots due again?"),
    "Quick question about Ziggy.\nthe booster shots due again",
  );
  assert.equal(
    statedQuestions("I'm practising tonight. Which chord was giving me trouble? Thanks."),
    "I'm practising tonight. chord was giving me trouble Thanks.",
  );
  assert.equal(
    statedQuestions("Recap our dog for me, from the beginning."),
    "Recap our dog for me, from the beginning.",
  );
});
