import type { Persona } from "./persona";
import type { Exchange } from "./topics";

/**
 * Answers given as a short reply in the next exchange of the same session: the person mentions
 * something, the assistant asks about it, and the answer ("Sage green on three walls…") no longer names
 * what it is about. The question names the subject, so its words sit in the exchange before the gold
 * one — the structure neighbour context exists for. Real chats are full of it; the topic bank has none,
 * because each of its facts is stated in full. As in life-items.ts, item i belongs to the tuning half
 * when i is even and to the reporting half when odd. None answers an unanswerable turn of life-items.ts
 * (a boat named by a brother-in-law did answer "What did we name the sailing boat?": now a food truck).
 */
export interface FollowOnItem {
  lead: Exchange;
  /** The gold exchange: the short reply that holds the answer, right after `lead` in its session. */
  reply: Exchange;
  q: string;
}

export function followOns(p: Persona): FollowOnItem[] {
  return [
    {
      lead: {
        user: "My brother-in-law finally picked a name for his food truck.",
        assistant: "Fun! What did he decide to call it?",
      },
      reply: {
        user: "'Rolling Dough', painted in navy letters on the side.",
        assistant: "That's a great choice, it has a nice double meaning.",
      },
      q: "What did my brother-in-law name his food truck?",
    },
    {
      lead: {
        user: "We've decided to repaint the living room this weekend.",
        assistant: "Nice project! Have you settled on a colour yet?",
      },
      reply: {
        user: "Sage green on three walls and a warm white on the one with the window.",
        assistant: "That combination will feel calm and still bright.",
      },
      q: "Which colour are we painting the living room?",
    },
    {
      lead: {
        user: "My niece's christening is coming up and I've been asked to be her godparent.",
        assistant: "What an honour! When is it happening?",
      },
      reply: {
        user: "Sunday the 14th of September, at the little chapel in Ashby.",
        assistant: "Lovely, that gives you plenty of time to think about a gift.",
      },
      q: "When is my niece's christening?",
    },
    {
      lead: {
        user: "I'm shopping for a new laptop, mostly for photo editing.",
        assistant: "Do you have a budget or a model in mind?",
      },
      reply: {
        user: "Around 1,400, and I'm leaning towards the 14-inch one with the OLED screen.",
        assistant: "That's a sensible range for editing work, and OLED is great for colour.",
      },
      q: "How much am I planning to spend on the new laptop?",
    },
    {
      lead: {
        user: "We went to the new exhibition at the city museum on Sunday.",
        assistant: "How was it? Which part did you like best?",
      },
      reply: {
        user: "The room of Japanese woodblock prints, I could have stayed there for hours.",
        assistant: "They're extraordinary up close, the detail in the carving is amazing.",
      },
      q: "What was my favourite part of the museum exhibition?",
    },
    {
      lead: {
        user: "The home insurance renewal letter arrived today and the premium has gone up a lot.",
        assistant: "That's frustrating. How much are they asking for now?",
      },
      reply: {
        user: "612 a year, up from 455 last time.",
        assistant: "A jump like that is worth challenging: ask them to match a comparison quote.",
      },
      q: "What's the new price of our home insurance?",
    },
    {
      lead: {
        user: `I've been asked to give a speech at ${p.friend.name}'s fortieth.`,
        assistant: "That's an honour! Do you know what you'll talk about?",
      },
      reply: {
        user: "The time we got lost in Naples and ended up as guests at a stranger's wedding.",
        assistant: "That story will get a big laugh, and it says a lot about your friendship.",
      },
      q: `Which story am I telling in my speech for ${p.friend.name}'s fortieth?`,
    },
    {
      lead: {
        user: "We're finally getting a proper kitchen table.",
        assistant: "Exciting! What kind did you go for?",
      },
      reply: {
        user: "Solid oak, extendable, it seats eight with both leaves in.",
        assistant: "Plenty of room for dinner parties then.",
      },
      q: "What kind of kitchen table did we pick?",
    },
    {
      lead: {
        user: "My sister-in-law had her baby last night!",
        assistant: "Congratulations to the whole family! Boy or girl, and how are they both?",
      },
      reply: {
        user: "A little girl, Ottilie, 3.2 kilos, and both are doing well.",
        assistant: "Wonderful news, and what a beautiful name.",
      },
      q: "What did my sister-in-law call her baby?",
    },
    {
      lead: {
        user: "I've taken up birdwatching on weekend mornings.",
        assistant: "What a lovely hobby! Have you spotted anything special yet?",
      },
      reply: {
        user: "A kingfisher on the canal near the lock, just a flash of bright blue.",
        assistant: "Lucky you, they're shy and very quick.",
      },
      q: "What's the most exciting bird I've seen since I started birdwatching?",
    },
    {
      lead: {
        user: "The landlord finally agreed to get the boiler fixed.",
        assistant: "Good. Do you know when someone is coming?",
      },
      reply: {
        user: "Thursday between eight and twelve, a guy called Barry from the heating firm.",
        assistant: "Make sure someone's home to let him in, and ask him for the safety certificate.",
      },
      q: "When is the boiler repair happening?",
    },
    {
      lead: {
        user: "We're organising a family reunion for my grandmother's ninetieth.",
        assistant: "What a milestone! Where will it be?",
      },
      reply: {
        user: "At my aunt's farmhouse in the Cotswolds, the last weekend of August.",
        assistant: "A farmhouse gives everyone space, that sounds ideal.",
      },
      q: "Where is grandma's ninetieth being held?",
    },
    {
      lead: {
        user: "I have to pick a charity for the money from the office bake sale.",
        assistant: "Do you have a shortlist?",
      },
      reply: {
        user: "We went with the local hospice, they looked after my uncle last year.",
        assistant: "A very personal choice; they'll appreciate it.",
      },
      q: "Which charity is getting the bake sale money?",
    },
    {
      lead: {
        user: "My back's been sore, so we've been shopping around for a new mattress.",
        assistant: "Good idea. Do you prefer firm or soft?",
      },
      reply: {
        user: "Medium-firm hybrid. We ordered it yesterday and it comes with a 100-night trial.",
        assistant: "The trial period takes the pressure off the decision.",
      },
      q: "What kind of mattress did we order?",
    },
    {
      lead: {
        user: "My old university roommate is coming to visit next month.",
        assistant: "How lovely! How long is she staying?",
      },
      reply: {
        user: "Five nights. She lands on the 3rd and we'll do a day trip to the coast.",
        assistant: "That's a nice length for a proper catch-up.",
      },
      q: "How long is my university roommate staying with us?",
    },
    {
      lead: {
        user: "I've decided to learn to sew my own clothes.",
        assistant: "Great! What will your first project be?",
      },
      reply: {
        user: "A simple linen shirt from a beginner pattern, in rust orange.",
        assistant: "Linen is forgiving, good choice for a first go.",
      },
      q: "What's my first sewing project?",
    },
    {
      lead: {
        user: "Our street is having a summer party on Saturday.",
        assistant: "Fun! Are you bringing anything?",
      },
      reply: {
        user: "My lemon drizzle cake and a big bowl of pasta salad.",
        assistant: "Crowd-pleasers, both of them.",
      },
      q: "What am I bringing to the street party?",
    },
    {
      lead: {
        user: "I dropped my phone on the tram and the screen cracked.",
        assistant: "Ouch. Can it be repaired?",
      },
      reply: {
        user: "The shop on Mercer Street quoted 140 and it'll be ready on Friday.",
        assistant: "Not too bad, and quicker than sending it away.",
      },
      q: "How much will fixing my cracked phone screen cost?",
    },
    {
      lead: {
        user: "We're thinking of putting solar panels on the roof.",
        assistant: "Have you had any quotes yet?",
      },
      reply: {
        user: "Two so far: 7,800 from SunRoof and 9,200 from a local installer with a longer warranty.",
        assistant: "The warranty difference may well be worth the extra.",
      },
      q: "What quotes did we get for the solar panels?",
    },
    {
      lead: {
        user: "My aunt is retiring after thirty years as a nurse.",
        assistant: "What a career! Is there a celebration planned?",
      },
      reply: {
        user: "A dinner at the Italian place on the harbour on the 21st, about thirty guests.",
        assistant: "That sounds like a fitting send-off.",
      },
      q: "Where is my aunt's retirement dinner?",
    },
    {
      lead: {
        user: "I finally bought a bike to commute to work.",
        assistant: "Great decision! What did you get?",
      },
      reply: {
        user: "A second-hand steel tourer with mudguards and a rack, 320 from a guy on the marketplace.",
        assistant: "Those are built to last, and the rack will be handy.",
      },
      q: "What bike did I buy for commuting?",
    },
    {
      lead: {
        user: "I've been invited to a fancy-dress party next Friday.",
        assistant: "Ha, what are you going as?",
      },
      reply: {
        user: "A lighthouse keeper, with a yellow raincoat and a lantern I found in the attic.",
        assistant: "Very creative, and easy to move in.",
      },
      q: "What's my costume for the fancy-dress party?",
    },
    {
      lead: {
        user: "I took my grandfather's old watch in to be repaired.",
        assistant: "Good idea. What did the watchmaker say?",
      },
      reply: {
        user: "It needs a new mainspring and a full service: about three weeks and 180.",
        assistant: "Worth it for something with that much history.",
      },
      q: "What did the watchmaker say about grandad's watch?",
    },
    {
      lead: {
        user: "Our pub quiz team needs a new name.",
        assistant: "Ha! Any front-runners?",
      },
      reply: {
        user: "We settled on 'Quizteama Aguilera', it won by one vote.",
        assistant: "Brilliant, a classic pun.",
      },
      q: "What did we call our pub quiz team?",
    },
  ];
}
