import { cap, HE, SHE, type Persona, type Pron } from "./persona";
import type { Rng } from "./rng";

/**
 * The topic bank of the retrieval test set. Each topic builds, for one persona, an "arc": the exchanges
 * that hold facts (in time order), topic-adjacent distractor exchanges that share its words but answer
 * none of its questions, and question templates whose answers sit in known fact exchanges.
 *
 * Question types:
 * - paraphrase: asks in other words than the exchange ("pup" for "beagle", "tying the knot" for "wedding");
 * - keyword: shares the exchange's distinctive words (names, places, terms);
 * - followup: only makes sense with the earlier user messages in `lead` ("when is it again?");
 * - long: more than 7 words; `anchorFront` tells whether the topic sits in the first 5 words (the anchor).
 */
export type QuestionType = "paraphrase" | "keyword" | "followup" | "long";
export type Category = "pets" | "hobbies" | "family" | "work" | "travel" | "food" | "health" | "plans";

export interface Exchange {
  user: string;
  assistant: string;
}
export interface FactExchange extends Exchange {
  key: string;
}
export interface QuestionTemplate {
  type: QuestionType;
  text: string;
  /** Keys of the fact exchanges that hold the answer. */
  gold: string[];
  /** Earlier user messages in the asking chat that make a follow-up meaningful (oldest first). */
  lead?: string[];
  anchorFront?: boolean;
}
export interface Arc {
  facts: FactExchange[];
  distractors: Exchange[];
  questions: QuestionTemplate[];
}
export interface Topic {
  id: string;
  category: Category;
  build: (r: Rng, p: Persona) => Arc;
}

const PET_NAMES = [
  "Waffles",
  "Biscuit",
  "Pepper",
  "Mochi",
  "Ziggy",
  "Juniper",
  "Pickles",
  "Nacho",
  "Clementine",
  "Maple",
  "Pixel",
  "Bowie",
  "Hazel",
  "Sprout",
  "Tofu",
  "Marlow",
];
const pron = (r: Rng): Pron => (r.chance(0.5) ? HE : SHE);

const dog: Topic = {
  id: "dog",
  category: "pets",
  build(r) {
    const breed = r.pick([
      "beagle",
      "border collie",
      "golden retriever",
      "dachshund",
      "corgi",
      "greyhound",
      "shiba inu",
      "boxer",
      "whippet",
      "labrador",
    ]);
    const other = r.pick(["husky", "chihuahua", "german shepherd", "pug", "rottweiler"]);
    const pet = r.pick(PET_NAMES);
    const g = pron(r);
    const weeks = r.int(2, 5);
    return {
      facts: [
        {
          key: "adopt",
          user: r.pick([
            `We finally did it, we adopted a ${breed} from the shelter on Saturday! We're calling ${g.him} ${pet}.`,
            `Big news: there's a ${breed} living with us now. Got ${g.him} from the rescue last weekend, ${pet} is ${g.his} name.`,
          ]),
          assistant: `Congratulations! A ${breed} is a lovely companion. Give ${pet} a couple of weeks to decompress and keep the routine predictable while ${g.he} settles in.`,
        },
        {
          key: "vet",
          user: `${pet} had ${g.his} first checkup at the vet today. ${g.He} needs the second round of vaccines in ${weeks} weeks, and the vet said ${g.he}'s a little underweight so we're upping ${g.his} food.`,
          assistant: `Good that you caught the weight early. Split the extra food across meals, and put the booster date in your calendar now so it doesn't slip.`,
        },
        {
          key: "training",
          user: `Obedience class update: ${pet} can sit and stay reliably now, but ${g.he} still pulls on the leash like a sled dog whenever ${g.he} sees a squirrel.`,
          assistant: `That's real progress. For leash pulling, stop every time the lead goes tight and only walk on when it's slack; a front-clip harness helps too.`,
        },
      ],
      distractors: [
        {
          user: `My neighbour's ${other} barks for hours when they're out at work. Is there a polite way to bring it up with them?`,
          assistant: `Keep it friendly and factual: mention the times it happens and ask whether they knew. Most owners don't realise their dog barks while they're away.`,
        },
        {
          user: `Is chocolate actually dangerous for dogs or is that a myth?`,
          assistant: `It's real: theobromine is toxic to dogs, and dark chocolate is the worst. If a dog eats some, call a vet or a pet poison line right away.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What's the pup we brought home called?`, gold: ["adopt"] },
        { type: "paraphrase", text: `Which breed is my four-legged buddy?`, gold: ["adopt"] },
        { type: "keyword", text: `When does ${pet} need the second round of vaccines?`, gold: ["vet"] },
        { type: "paraphrase", text: `Did the animal clinic have any worries about my pet's health?`, gold: ["vet"] },
        {
          type: "long",
          anchorFront: true,
          text: `${pet}'s leash pulling on walks, is that getting any better or did I say ${g.he} still drags me toward every squirrel?`,
          gold: ["training"],
        },
        {
          type: "followup",
          lead: [`I want to ask you something about ${pet}.`],
          text: `How's the training going?`,
          gold: ["training"],
        },
        {
          type: "followup",
          lead: [`Quick question about ${pet}.`],
          text: `When are the booster shots due again?`,
          gold: ["vet"],
        },
      ],
    };
  },
};

const cat: Topic = {
  id: "cat",
  category: "pets",
  build(r, p) {
    const pet = r.pick(PET_NAMES);
    const g = pron(r);
    const color = r.pick(["ginger", "tabby", "black and white", "grey", "tortoiseshell"]);
    const food = r.pick(["a salmon-free diet", "a special kidney diet", "a grain-free wet food"]);
    return {
      facts: [
        {
          key: "adopt",
          user: `We brought home a ${color} kitten from my coworker's litter. ${g.He}'s tiny and fearless, we named ${g.him} ${pet}.`,
          assistant: `How exciting! Kittens that age are curious about everything, so tuck away cables and small objects, and give ${pet} a quiet room to retreat to.`,
        },
        {
          key: "vomit",
          user: `${pet} keeps throwing up after meals. The vet ran some bloodwork and put ${g.him} on ${food} for a month to see if it helps.`,
          assistant: `That's a sensible first step. Switch foods gradually over a week, and keep a note of any episodes so the vet can compare.`,
        },
        {
          key: "scratch",
          user: `${pet} has shredded the arm of our new sofa. We bought a tall sisal scratching post and put it right next to the couch.`,
          assistant: `Placing the post where the damage happens is exactly right. Rub some catnip on it and reward ${g.him} every time ${g.he} uses it.`,
        },
      ],
      distractors: [
        {
          user: `Why do cats knock things off tables? My friend's cat does it constantly.`,
          assistant: `Mostly play and attention: swatting objects mimics hunting and usually gets a reaction from people.`,
        },
        {
          user: `Are lilies really poisonous to cats?`,
          assistant: `Yes, true lilies are extremely toxic to cats; even pollen or vase water can cause kidney failure. Keep them out of any home with a cat.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Where did our little furball come from?`, gold: ["adopt"] },
        { type: "keyword", text: `What colour is ${pet}?`, gold: ["adopt"] },
        { type: "paraphrase", text: `Why did my pet get a new feeding plan?`, gold: ["vomit"] },
        { type: "keyword", text: `What did we buy to stop ${pet} scratching the sofa?`, gold: ["scratch"] },
        {
          type: "followup",
          lead: [`Can we talk about ${pet} again?`],
          text: `Did the bloodwork show anything, what's the plan?`,
          gold: ["vomit"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `My ${p.partner.rel} asked me last night and I honestly forgot, what did we do about the ruined couch?`,
          gold: ["scratch"],
        },
      ],
    };
  },
};

const pottery: Topic = {
  id: "pottery",
  category: "hobbies",
  build(r, p) {
    const studio = r.pick(["Clay Corner", "Mudlark Studio", "Kiln & Co", "The Wheel House"]);
    const day = r.pick(["Tuesday", "Wednesday", "Thursday"]);
    return {
      facts: [
        {
          key: "start",
          user: `I signed up for a ${day} evening wheel-throwing course at ${studio}. Eight weeks, starting next month. Slightly terrified.`,
          assistant: `That sounds like a great outlet! Everyone's first pieces wobble. Trim your nails, wear clothes you don't mind ruining, and enjoy the mess.`,
        },
        {
          key: "progress",
          user: `Week five at ${studio}: I finally centred the clay on my own and pulled a mug that didn't collapse. Glazing it a deep blue next week.`,
          assistant: `Centring on your own is the big milestone, congratulations. A blue glaze over a lighter clay body can look stunning.`,
        },
        {
          key: "gift",
          user: `I'm making a set of four bowls on the wheel for ${p.parent.name}'s birthday. Hoping they survive the kiln.`,
          assistant: `Handmade bowls are a wonderful gift. Let them dry slowly and evenly so they don't crack in the firing.`,
        },
      ],
      distractors: [
        {
          user: `What's the difference between earthenware and stoneware?`,
          assistant: `Stoneware is fired hotter and ends up denser and more waterproof; earthenware is fired lower, more porous, and usually needs glaze to hold water.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What ceramics class did I enrol in?`, gold: ["start"] },
        { type: "keyword", text: `Which night is my ${studio} wheel-throwing course?`, gold: ["start"] },
        { type: "paraphrase", text: `Did I manage to make a cup yet in my class?`, gold: ["progress"] },
        {
          type: "paraphrase",
          text: `What handmade present am I preparing for ${p.parent.his === "her" ? "my mother" : "my father"}?`,
          gold: ["gift"],
        },
        {
          type: "followup",
          lead: [`Let's talk about my pottery for a minute.`],
          text: `What colour was I going to glaze it?`,
          gold: ["progress"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `My clay course at the studio, how many weeks did I say it runs and when does it start?`,
          gold: ["start"],
        },
      ],
    };
  },
};

const climbing: Topic = {
  id: "climbing",
  category: "hobbies",
  build(r, p) {
    const gym = r.pick(["Crux", "Summit Walls", "The Boulder Shed", "Vertical Edge"]);
    const grade = r.pick(["V3", "V4", "6a", "6b"]);
    return {
      facts: [
        {
          key: "start",
          user: `${p.friend.name} dragged me to the bouldering gym ${gym} yesterday. My forearms are destroyed but I loved it. Getting a membership.`,
          assistant: `Forearm pump is the classic first-session souvenir. Rest a day or two between sessions at first so your tendons can adapt.`,
        },
        {
          key: "grade",
          user: `I sent my first ${grade} problem at ${gym} tonight after like fifteen attempts! The crux was a big dyno to a sloper.`,
          assistant: `A ${grade} after fifteen attempts is persistence paying off. Dynos to slopers are hard, well done.`,
        },
        {
          key: "injury",
          user: `Tweaked a finger pulley on a crimpy route. The physio says no climbing for three weeks and then taping it for a while.`,
          assistant: `Pulley strains are common in climbing. Follow the three-week rest and come back on big holds before you try small crimps again.`,
        },
      ],
      distractors: [
        {
          user: `What shoes do people usually recommend for beginner climbers?`,
          assistant: `Comfortable, flat, velcro shoes: you don't need aggressive downturned ones until you're climbing steep routes.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Who got me into rock scrambling indoors?`, gold: ["start"] },
        { type: "keyword", text: `What was the hardest grade I've sent at ${gym}?`, gold: ["grade"] },
        { type: "paraphrase", text: `How long am I benched from the wall because of my hand?`, gold: ["injury"] },
        {
          type: "followup",
          lead: [`I'm back at the climbing gym this week.`, `Still thinking about that injury.`],
          text: `How long was I supposed to rest it?`,
          gold: ["injury"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `I'm trying to remember for my training log, which move was the crux on my first hard send?`,
          gold: ["grade"],
        },
      ],
    };
  },
};

const guitar: Topic = {
  id: "guitar",
  category: "hobbies",
  build(r) {
    const song = r.pick(["Wonderwall", "Blackbird", "Hallelujah", "Wish You Were Here", "Dust in the Wind"]);
    const teacher = r.pick(["Marta", "Joel", "Keisha", "Andre"]);
    return {
      facts: [
        {
          key: "buy",
          user: `Bought a secondhand acoustic guitar off a marketplace for 120. Going to finally learn properly this year, with lessons from a teacher called ${teacher}.`,
          assistant: `Great buy at that price. Get it set up at a shop so the strings sit low; it makes learning much less painful.`,
        },
        {
          key: "song",
          user: `${teacher} has me learning ${song}. The F chord barre is killing me, my fingertips are raw.`,
          assistant: `The F barre defeats everyone at first. Try the small four-string version of F for now and build up to the full barre.`,
        },
      ],
      distractors: [
        {
          user: `How often should guitar strings be changed?`,
          assistant: `For a regular player, every two to three months, or sooner if they sound dull or won't stay in tune.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `How much did I pay for my six-string?`, gold: ["buy"] },
        { type: "keyword", text: `Which song is ${teacher} teaching me?`, gold: ["song"] },
        { type: "paraphrase", text: `What part of the piece I'm practising hurts my fingers?`, gold: ["song"] },
        {
          type: "followup",
          lead: [`My music lessons are going okay.`],
          text: `What's the name of my instructor again?`,
          gold: ["buy"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `I'm practising tonight after dinner and I can't remember which chord was giving me so much trouble?`,
          gold: ["song"],
        },
      ],
    };
  },
};

const running: Topic = {
  id: "running",
  category: "hobbies",
  build(r, p) {
    const race = r.pick(["half marathon", "10k", "marathon"]);
    const month = r.pick(["October", "September", "April", "May"]);
    const target =
      race === "10k"
        ? r.pick(["55 minutes", "50 minutes"])
        : race === "marathon"
          ? "four hours"
          : r.pick(["two hours", "1:55"]);
    return {
      facts: [
        {
          key: "signup",
          user: `I registered for the ${p.city} ${race} in ${month}. My goal is to finish under ${target}. Need a training plan.`,
          assistant: `Exciting! Build your weekly mileage gradually, no more than about ten percent a week, with one long run and one faster session each week.`,
        },
        {
          key: "longrun",
          user: `Did my longest run ever this morning, ${r.int(14, 28)} km along the river. Legs are jelly but I'm proud.`,
          assistant: `That's a big milestone. Refuel with carbs and protein within an hour, and keep tomorrow easy.`,
        },
        {
          key: "shoes",
          user: `Got properly fitted for running shoes, the store said I overpronate so I'm in stability shoes now.`,
          assistant: `A gait analysis is worth it. Break the new pair in on shorter runs before using them for a long one.`,
        },
      ],
      distractors: [
        {
          user: `Is it better to stretch before or after running?`,
          assistant: `Dynamic warm-ups before, like leg swings and walking lunges; save longer static stretches for after.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What event am I preparing for and when?`, gold: ["signup"] },
        { type: "keyword", text: `What finishing time am I aiming for in the ${race}?`, gold: ["signup"] },
        { type: "paraphrase", text: `What's the furthest distance I've jogged so far?`, gold: ["longrun"] },
        { type: "paraphrase", text: `Why did the store put me in different sneakers?`, gold: ["shoes"] },
        {
          type: "followup",
          lead: [`I'm nervous about race day.`],
          text: `What time was I hoping to finish in?`,
          gold: ["signup"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `Training for the ${race}, how far was my longest run so far, I think it was along the river?`,
          gold: ["longrun"],
        },
      ],
    };
  },
};

const garden: Topic = {
  id: "garden",
  category: "hobbies",
  build(r) {
    const veg = r.pick(["tomatoes", "courgettes", "peppers", "runner beans"]);
    const pest = r.pick(["aphids", "slugs", "whitefly"]);
    return {
      facts: [
        {
          key: "plant",
          user: `Planted ${veg}, basil and lettuce in the raised bed out back this weekend. First real vegetable garden!`,
          assistant: `Lovely mix. Basil is a great companion for ${veg}. Water deeply in the mornings rather than a little every evening.`,
        },
        {
          key: "pest",
          user: `The ${veg} are covered in ${pest}. I've been spraying them with soapy water, which seems to help a bit.`,
          assistant: `Soapy water is a reasonable first line. Check under the leaves, and encourage ladybirds and birds that eat them.`,
        },
      ],
      distractors: [
        {
          user: `When is the best time of year to plant tulip bulbs?`,
          assistant: `Autumn, once the soil has cooled, usually October to November in the northern hemisphere.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which crops did I put in the ground this season?`, gold: ["plant"] },
        { type: "keyword", text: `What's attacking my ${veg}?`, gold: ["pest"] },
        { type: "paraphrase", text: `How have I been dealing with the bugs on my plants?`, gold: ["pest"] },
        { type: "followup", lead: [`My garden has a problem.`], text: `What was I doing about it?`, gold: ["pest"] },
        {
          type: "long",
          anchorFront: true,
          text: `The raised bed out back, what did I plant in it this spring besides the herbs?`,
          gold: ["plant"],
        },
      ],
    };
  },
};

const bookclub: Topic = {
  id: "bookclub",
  category: "hobbies",
  build(r, p) {
    const book = r.pick([
      ["The Salt Orchard", "Imogen Hale"],
      ["A Map of Quiet Rivers", "Tomas Lindqvist"],
      ["The Glass Observatory", "Adaeze Okafor"],
      ["Winter at Marrow Street", "Celia Brandt"],
    ] as const);
    return {
      facts: [
        {
          key: "join",
          user: `Joined a book club that meets at ${p.friend2.name}'s place on the first Sunday of every month. First pick is ${book[0]} by ${book[1]}.`,
          assistant: `A monthly club is a great way to read outside your usual taste. Jot down a couple of questions as you read so you have something to bring.`,
        },
        {
          key: "opinion",
          user: `Finished ${book[0]}. Honestly the ending felt rushed and I couldn't stand the narrator, but the writing about the sea was gorgeous.`,
          assistant: `Mixed feelings make for the best discussions. An unlikeable narrator is often deliberate, so that could be a good question for the group.`,
        },
      ],
      distractors: [
        {
          user: `Can you recommend some short novels under 200 pages?`,
          assistant: `A few classics: Of Mice and Men, The Old Man and the Sea, Breakfast at Tiffany's, and Convenience Store Woman.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Where does my reading group get together?`, gold: ["join"] },
        { type: "keyword", text: `What did I think of ${book[0]}?`, gold: ["opinion"] },
        { type: "paraphrase", text: `Which novel are we discussing first in my literature circle?`, gold: ["join"] },
        { type: "followup", lead: [`Book club is on Sunday.`], text: `Did I like how it ended?`, gold: ["opinion"] },
        {
          type: "long",
          anchorFront: false,
          text: `Someone at work asked for a recommendation and I wondered who wrote the first book my club picked?`,
          gold: ["join"],
        },
      ],
    };
  },
};

const wedding: Topic = {
  id: "wedding",
  category: "family",
  build(r, p) {
    const s = p.sibling;
    const fiance = r.pick(["Jordan", "Alexis", "Morgan", "Riley", "Casey"]);
    const venue = r.pick([
      "a vineyard outside Napa",
      "an old barn in the Cotswolds",
      "a lakeside lodge in Ontario",
      "a beach in Crete",
    ]);
    const month = r.pick(["June", "August", "September"]);
    return {
      facts: [
        {
          key: "engaged",
          user: `My ${s.rel} ${s.name} just got engaged to ${fiance}! ${fiance} proposed on a ferry, of all places.`,
          assistant: `What wonderful news, congratulations to them both! A proposal on a ferry is a story they'll tell forever.`,
        },
        {
          key: "venue",
          user: `${s.name} and ${fiance} booked the wedding for ${month} at ${venue}. I have to sort out flights and a hotel.`,
          assistant: `Book early, since wedding guests fill up nearby hotels fast. Ask the couple whether they have a room block.`,
        },
        {
          key: "speech",
          user: `${s.name} asked me to give a speech at the reception. I want to tell the story about us getting lost on a camping trip as kids.`,
          assistant: `That's a great anchor for a speech: funny, personal and short. Tie it back to ${s.name} and ${fiance} at the end and keep it under five minutes.`,
        },
      ],
      distractors: [
        {
          user: `What's a normal amount to spend on a wedding gift?`,
          assistant: `It varies a lot by place and closeness; many people give what they can comfortably afford, and registries help.`,
        },
        {
          user: `My coworker is getting married and the invitation says cocktail attire. What does that mean?`,
          assistant: `Knee-length or midi dresses, dressy separates, or a suit without the need for a tuxedo.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Who is my ${s.rel} going to marry?`, gold: ["engaged"] },
        { type: "paraphrase", text: `How did ${fiance} pop the question?`, gold: ["engaged"] },
        { type: "keyword", text: `Where is ${s.name}'s wedding?`, gold: ["venue"] },
        { type: "paraphrase", text: `In which month does my ${s.rel} tie the knot?`, gold: ["venue"] },
        {
          type: "long",
          anchorFront: true,
          text: `The speech for ${s.name}'s reception, which childhood story did I want to tell in it?`,
          gold: ["speech"],
        },
        {
          type: "followup",
          lead: [`I need to sort out travel for ${s.name}'s big day.`],
          text: `Where was it being held again?`,
          gold: ["venue"],
        },
        {
          type: "followup",
          lead: [`I've been thinking about my toast for the reception.`],
          text: `What story was I going to tell?`,
          gold: ["speech"],
        },
      ],
    };
  },
};

const parentSurgery: Topic = {
  id: "parent",
  category: "family",
  build(r, p) {
    const par = p.parent;
    const op = r.pick(["hip replacement", "knee replacement", "cataract surgery", "heart bypass"]);
    const date = r.pick(["the 14th", "the 3rd", "the 22nd"]);
    return {
      facts: [
        {
          key: "schedule",
          user: `My ${par.rel} is having ${op} on ${date}. I'm taking the week off to stay with ${par.him} and help around the house.`,
          assistant: `That's kind of you. Ask the hospital for the discharge checklist ahead of time so you know what equipment ${par.he}'ll need at home.`,
        },
        {
          key: "recovery",
          user: `${cap(par.rel)}'s recovery is going well, ${par.he}'s walking with a frame already and the nurses are impressed. Still grumpy about the hospital food though.`,
          assistant: `Walking so soon is a great sign. Grumbling about the food usually means someone is feeling more like themselves.`,
        },
      ],
      distractors: [
        {
          user: `What are good get-well gifts for someone in hospital?`,
          assistant: `Comfortable socks, a long phone charger, lip balm, a book or puzzles, and snacks if they're allowed.`,
        },
      ],
      questions: [
        {
          type: "paraphrase",
          text: `What operation is my ${par.rel === "mom" ? "mother" : "father"} getting?`,
          gold: ["schedule"],
        },
        {
          type: "paraphrase",
          text: `How is ${par.rel === "mom" ? "mum" : "pops"} healing after the procedure?`,
          gold: ["recovery"],
        },
        { type: "keyword", text: `When is my ${par.rel}'s ${op}?`, gold: ["schedule"] },
        {
          type: "followup",
          lead: [`Checking in about my ${par.rel}.`],
          text: `Is ${par.he} up and walking yet?`,
          gold: ["recovery"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `I need to tell my boss which week I'm off, when is the surgery and am I staying over?`,
          gold: ["schedule"],
        },
      ],
    };
  },
};

const kid: Topic = {
  id: "kid",
  category: "family",
  build(r, p) {
    const k = p.kid;
    const sport = r.pick(["soccer", "swimming", "basketball", "gymnastics"]);
    const teacher = r.pick(["Mr. Okoro", "Ms. Delgado", "Mrs. Feld", "Mr. Brennan"]);
    return {
      facts: [
        {
          key: "sport",
          user: `${k.name} joined the under-${k.age + 1} ${sport} team. Practice is Wednesdays and games on Saturday mornings, so my weekends are gone.`,
          assistant: `Team sports are great at that age. Keep a bag by the door with water, snacks and spare kit to make Saturday mornings easier.`,
        },
        {
          key: "school",
          user: `Parent-teacher meeting with ${teacher}: ${k.name} is doing great in maths but struggling with reading, so we're going to read together every night.`,
          assistant: `Reading together nightly makes a big difference. Let ${k.name} pick some of the books; interest matters more than level.`,
        },
        {
          key: "birthday",
          user: `${k.name} wants a dinosaur-themed birthday party for turning ${k.age + 1}. We're doing it at the natural history museum.`,
          assistant: `A dinosaur party at a museum sounds like a dream for a ${k.age + 1}-year-old. Book early; those slots go fast.`,
        },
      ],
      distractors: [
        {
          user: `How much screen time is reasonable for a school-age kid?`,
          assistant: `Many paediatric guidelines suggest consistent limits, with screens off an hour before bed and not crowding out sleep, play or homework.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which team did my ${k.rel} sign up for?`, gold: ["sport"] },
        { type: "keyword", text: `What did ${teacher} say about ${k.name}?`, gold: ["school"] },
        { type: "paraphrase", text: `Which subject is my child finding hard at school?`, gold: ["school"] },
        { type: "paraphrase", text: `What theme is my kid's party going to have?`, gold: ["birthday"] },
        {
          type: "followup",
          lead: [`${k.name} has a big weekend coming.`],
          text: `When are the games?`,
          gold: ["sport"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `${k.name}'s parent-teacher meeting, what did we agree to do at home every night to help?`,
          gold: ["school"],
        },
      ],
    };
  },
};

const anniversary: Topic = {
  id: "anniversary",
  category: "family",
  build(r, p) {
    const pt = p.partner;
    const years = r.int(3, 15);
    const place = r.pick(["Osteria Lupa", "The Copper Pot", "Sakura Garden", "Le Petit Jardin"]);
    const gift = r.pick([
      "a vintage record player",
      "a framed map of where we met",
      "a weekend pottery class for two",
      "a watch engraved with our date",
    ]);
    return {
      facts: [
        {
          key: "plan",
          user: `Our ${years}-year anniversary is coming up. I booked a table at ${place}, the place where ${pt.name} and I had our first date.`,
          assistant: `Going back to your first-date spot is so romantic. Maybe ask the restaurant if they can do something small, like a note on the table.`,
        },
        {
          key: "gift",
          user: `I got ${pt.name} ${gift} for the anniversary. Hiding it in the garage until then.`,
          assistant: `That's a thoughtful, personal gift. Good luck keeping it secret until the day!`,
        },
      ],
      distractors: [
        {
          user: `What are traditional anniversary gifts by year?`,
          assistant: `Paper for the first year, cotton for the second, leather for the third, and so on: silver at 25 and gold at 50.`,
        },
      ],
      questions: [
        {
          type: "paraphrase",
          text: `Where are we going to celebrate being together for another year?`,
          gold: ["plan"],
        },
        { type: "keyword", text: `What gift did I get ${pt.name} for our anniversary?`, gold: ["gift"] },
        {
          type: "paraphrase",
          text: `What present did I buy for my ${pt.rel}, and where did I stash it?`,
          gold: ["gift"],
        },
        {
          type: "followup",
          lead: [`Our anniversary is next week.`],
          text: `Which restaurant did I book?`,
          gold: ["plan"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `Our anniversary dinner reservation, is it at the place where we had our very first date?`,
          gold: ["plan"],
        },
      ],
    };
  },
};

const friendBirthday: Topic = {
  id: "friend-birthday",
  category: "family",
  build(r, p) {
    const f = p.friend;
    const age = r.pick([30, 40, 35]);
    const plan = r.pick(["a surprise escape room night", "a karaoke party", "a picnic in the botanical gardens"]);
    return {
      facts: [
        {
          key: "plan",
          user: `${f.name} turns ${age} next month and I'm organising ${plan} with a few of our old uni friends. ${f.He} has no idea.`,
          assistant: `Fun! Make a group chat without ${f.name} in it, pick a date early and have a decoy plan ready in case ${f.he} asks questions.`,
        },
      ],
      distractors: [
        {
          user: `Can you write a funny birthday card message for a friend?`,
          assistant: `"Happy birthday! You're not getting older, you're getting more vintage. Like cheese. Or a questionable wine."`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What surprise am I arranging for my friend's milestone?`, gold: ["plan"] },
        { type: "keyword", text: `What am I organising for ${f.name}'s ${age}th birthday?`, gold: ["plan"] },
        {
          type: "followup",
          lead: [`${f.name}'s birthday is coming up fast.`],
          text: `What was the plan again?`,
          gold: ["plan"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `${f.name}'s surprise party next month, who am I inviting and does ${f.he} suspect anything?`,
          gold: ["plan"],
        },
      ],
    };
  },
};

const newJob: Topic = {
  id: "job",
  category: "work",
  build(r, p) {
    const company = r.pick([
      "Northwind Analytics",
      "Bluefin Robotics",
      "Greenleaf Health",
      "Parcelwise",
      "Lumen Games",
      "Harbor Mutual",
    ]);
    const title = r.pick(["data analyst", "product designer", "backend engineer", "project manager", "UX researcher"]);
    const b = p.boss;
    return {
      facts: [
        {
          key: "offer",
          user: `I accepted the offer from ${company}! I'll be a ${title}, start date is the first of next month, and the salary is a solid bump.`,
          assistant: `Congratulations, that's a big step! Use the gap to rest, and ask for any onboarding material ahead of time.`,
        },
        {
          key: "firstweek",
          user: `First week at ${company} done. My manager ${b.name} is super organised, ${b.he} books a one-on-one with me every Monday. The commute is brutal though, 50 minutes each way.`,
          assistant: `Weekly one-on-ones are a great sign. For the commute, podcasts or audiobooks can turn it into useful time.`,
        },
        {
          key: "review",
          user: `Had my six-month review with ${b.name}. ${b.He} said I'm exceeding expectations and put me forward to lead the next project.`,
          assistant: `That's excellent feedback. Ask ${b.name} what success on the new project would look like so you can plan for it.`,
        },
      ],
      distractors: [
        {
          user: `How do I answer "what's your biggest weakness" in an interview?`,
          assistant: `Pick a real but manageable weakness and show what you're doing about it, rather than a disguised strength.`,
        },
        {
          user: `What should I put in a resignation letter?`,
          assistant: `Keep it short: your intention to resign, your last day, a thank-you, and an offer to help with the handover.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which employer hired me and for what role?`, gold: ["offer"] },
        { type: "paraphrase", text: `How long does it take me to get to the office?`, gold: ["firstweek"] },
        { type: "keyword", text: `When do I have my one-on-one with ${b.name}?`, gold: ["firstweek"] },
        {
          type: "paraphrase",
          text: `What feedback did my boss give me at the half-year evaluation?`,
          gold: ["review"],
        },
        {
          type: "followup",
          lead: [`Thinking about my new job.`],
          text: `What did I say my manager was like?`,
          gold: ["firstweek"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `My ${p.partner.rel} and I were arguing about it, so when exactly did I start at ${company}?`,
          gold: ["offer"],
        },
      ],
    };
  },
};

const project: Topic = {
  id: "project",
  category: "work",
  build(r, p) {
    const name = r.pick(["Project Atlas", "the Falcon migration", "Orion", "the billing revamp"]);
    const date = r.pick(["March 3rd", "the end of the quarter", "November 12th"]);
    const c = p.coworker;
    return {
      facts: [
        {
          key: "deadline",
          user: `We have to ship ${name} by ${date} and we're way behind. I'm presenting the status to the leadership team on Friday.`,
          assistant: `For the presentation, lead with what's done, the biggest risk and a clear ask. Leaders want options, not just bad news.`,
        },
        {
          key: "conflict",
          user: `${c.name} keeps taking credit for my work on ${name} in meetings. It's driving me nuts.`,
          assistant: `Try making your contributions visible in writing, with short updates in the shared channel, and raise it directly with ${c.name} if it continues.`,
        },
        {
          key: "launch",
          user: `${name} launched yesterday! Two small bugs but nothing serious, and leadership sent a thank-you to the whole team.`,
          assistant: `Congratulations on shipping! Take a breather, then write down what went well while it's fresh.`,
        },
      ],
      distractors: [
        {
          user: `What's a good template for a weekly status report?`,
          assistant: `Three headings work well: done this week, planned next week, and risks or blockers with owners.`,
        },
      ],
      questions: [
        { type: "keyword", text: `When is the deadline for ${name}?`, gold: ["deadline"] },
        {
          type: "paraphrase",
          text: `Which colleague has been stealing the spotlight for things I did?`,
          gold: ["conflict"],
        },
        { type: "paraphrase", text: `How did the release go in the end?`, gold: ["launch"] },
        {
          type: "followup",
          lead: [`Work is stressful this week.`, `That big presentation is coming.`],
          text: `Who am I presenting to?`,
          gold: ["deadline"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `${c.name} and the credit thing in meetings, what did you suggest I try?`,
          gold: ["conflict"],
        },
      ],
    };
  },
};

const conference: Topic = {
  id: "conference",
  category: "work",
  build(r) {
    const city = r.pick(["Berlin", "Chicago", "Singapore", "Barcelona"]);
    const topic = r.pick(["accessibility", "data privacy", "remote teams", "machine learning in production"]);
    return {
      facts: [
        {
          key: "talk",
          user: `My talk on ${topic} got accepted at the conference in ${city}! It's a 30-minute slot on the second day.`,
          assistant: `Congratulations! Rehearse out loud with a timer at least three times, and plan for five minutes of questions.`,
        },
      ],
      distractors: [
        {
          user: `How do I stop saying "um" so much when presenting?`,
          assistant: `Pause instead: silence feels longer to you than to the audience. Recording a practice run helps you notice the habit.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Where am I giving a presentation at an industry event?`, gold: ["talk"] },
        { type: "keyword", text: `What is my conference talk in ${city} about?`, gold: ["talk"] },
        {
          type: "followup",
          lead: [`I'm nervous about my speaking slot.`],
          text: `How long is it and which day?`,
          gold: ["talk"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `My manager wants the details for the travel budget, so where is the conference I'm speaking at?`,
          gold: ["talk"],
        },
      ],
    };
  },
};

const TRIPS = [
  { city: "Lisbon", country: "Portugal", food: "custard tarts", sight: "the yellow tram up to the castle" },
  { city: "Kyoto", country: "Japan", food: "ramen at a tiny counter bar", sight: "the bamboo grove at dawn" },
  { city: "Mexico City", country: "Mexico", food: "tacos al pastor", sight: "the Frida Kahlo house" },
  { city: "Reykjavik", country: "Iceland", food: "lamb soup", sight: "the geothermal lagoon" },
  { city: "Marrakech", country: "Morocco", food: "slow-cooked tagine", sight: "the souks in the old medina" },
  { city: "Hanoi", country: "Vietnam", food: "pho for breakfast", sight: "the boat trip in Ha Long Bay" },
  { city: "Istanbul", country: "Turkey", food: "baklava", sight: "the Grand Bazaar" },
  { city: "Vienna", country: "Austria", food: "schnitzel and strudel", sight: "the opera house" },
  { city: "Buenos Aires", country: "Argentina", food: "steak at a parrilla", sight: "a tango show in San Telmo" },
  { city: "Seoul", country: "South Korea", food: "Korean barbecue", sight: "the palace in traditional dress" },
];

const trip: Topic = {
  id: "trip",
  category: "travel",
  build(r, p) {
    const t = r.pick(TRIPS);
    const nights = r.int(5, 12);
    const mishap = r.pick([
      "the airline lost my suitcase for two days",
      "I got food poisoning on the third day",
      "our flight home was cancelled and we got stuck an extra night",
    ]);
    return {
      facts: [
        {
          key: "book",
          user: `Booked flights to ${t.city}! ${p.partner.name} and I are going for ${nights} nights. Never been to ${t.country} before.`,
          assistant: `How exciting! Look into a transit card when you arrive, and leave a day or two unplanned to wander.`,
        },
        {
          key: "highlight",
          user: `Back from ${t.city}. Highlights were ${t.sight} and the ${t.food}, I could have eaten it every day.`,
          assistant: `That sounds like a wonderful trip. Food memories are often the ones that stick the longest!`,
        },
        {
          key: "mishap",
          user: `The one bad part of the ${t.city} trip: ${mishap}. Still worth it.`,
          assistant: `Sorry that happened! Keep any receipts: travel insurance or the airline may reimburse some costs.`,
        },
      ],
      distractors: [
        {
          user: `What should I pack in a carry-on for a long-haul flight?`,
          assistant: `Layers, a refillable water bottle, chargers, medication, a change of clothes, and earplugs or headphones.`,
        },
        {
          user: `Do I need travel insurance if I already have a credit card with travel benefits?`,
          assistant: `Check the card's small print: many cover delays and baggage but not medical emergencies abroad.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which country did we go on holiday to?`, gold: ["book"] },
        { type: "keyword", text: `What did I love eating in ${t.city}?`, gold: ["highlight"] },
        { type: "paraphrase", text: `What went wrong on our vacation?`, gold: ["mishap"] },
        { type: "keyword", text: `How many nights were we in ${t.city}?`, gold: ["book"] },
        {
          type: "followup",
          lead: [`I'm putting together a photo album from our trip.`],
          text: `What were the best parts?`,
          gold: ["highlight"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `The ${t.city} trip with ${p.partner.name}, what was the one thing that went badly there?`,
          gold: ["mishap"],
        },
      ],
    };
  },
};

const hike: Topic = {
  id: "hike",
  category: "travel",
  build(r, p) {
    const trail = r.pick([
      "the West Highland Way",
      "the Tour du Mont Blanc",
      "the Pacific Crest Trail section in Oregon",
      "the Overland Track",
    ]);
    const f = p.friend2;
    const days = r.int(4, 8);
    return {
      facts: [
        {
          key: "plan",
          user: `${f.name} and I are planning to hike ${trail} this summer, ${days} days camping along the way.`,
          assistant: `What an adventure! Start doing long walks with a loaded pack now, and test your tent and stove before you go.`,
        },
        {
          key: "gear",
          user: `Bought a new lightweight tent and a water filter for the hike. Still need proper boots, my old ones gave me blisters.`,
          assistant: `Get boots soon and break them in over several weeks; blisters are the most common trip-ruiner.`,
        },
      ],
      distractors: [
        {
          user: `What's the best way to avoid ticks when walking in long grass?`,
          assistant: `Long trousers tucked into socks, repellent, and a full tick check afterwards.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which long-distance trek am I doing with my friend?`, gold: ["plan"] },
        { type: "paraphrase", text: `What outdoor equipment do I still need to buy?`, gold: ["gear"] },
        { type: "keyword", text: `How many days is the ${trail} hike with ${f.name}?`, gold: ["plan"] },
        {
          type: "followup",
          lead: [`Summer plans with ${f.name} are coming together.`],
          text: `Who am I going with and for how long?`,
          gold: ["plan"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `Boots for the summer hike, did I say my old pair gave me blisters last time?`,
          gold: ["gear"],
        },
      ],
    };
  },
};

const passport: Topic = {
  id: "passport",
  category: "travel",
  build(r) {
    const weeks = r.int(6, 12);
    return {
      facts: [
        {
          key: "renew",
          user: `Realised my passport expires in three months, so I sent off the renewal. The website says it takes about ${weeks} weeks.`,
          assistant: `Good catch. Many countries require six months' validity on entry, so it's worth having the new one before booking anything.`,
        },
      ],
      distractors: [],
      questions: [
        { type: "paraphrase", text: `How long will my new travel document take to arrive?`, gold: ["renew"] },
        { type: "keyword", text: `When does my passport expire?`, gold: ["renew"] },
      ],
    };
  },
};

const allergy: Topic = {
  id: "allergy",
  category: "food",
  build(r) {
    const a = r.pick(["peanuts", "shellfish", "sesame", "tree nuts"]);
    return {
      facts: [
        {
          key: "diagnosis",
          user: `The allergist confirmed it: I'm allergic to ${a}. I have to carry an EpiPen from now on.`,
          assistant: `That's a lot to take in. Read labels carefully, tell restaurants when you order, and keep the auto-injector with you at all times.`,
        },
      ],
      distractors: [
        {
          user: `What's the difference between a food allergy and an intolerance?`,
          assistant: `An allergy involves the immune system and can be life-threatening; an intolerance is usually digestive and unpleasant but not dangerous.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which foods do I need to stay away from?`, gold: ["diagnosis"] },
        { type: "paraphrase", text: `What did the specialist find out about my reaction?`, gold: ["diagnosis"] },
        { type: "keyword", text: `Am I allergic to anything?`, gold: ["diagnosis"] },
        {
          type: "long",
          anchorFront: false,
          text: `We're going to a dinner party on Saturday and the host wants to know, what can't I eat?`,
          gold: ["diagnosis"],
        },
      ],
    };
  },
};

const restaurant: Topic = {
  id: "restaurant",
  category: "food",
  build(r, p) {
    const [place, dish] = r.pick([
      ["Nonna Rosa's", "the mushroom risotto"],
      ["Little Saigon Kitchen", "the lemongrass chicken"],
      ["El Farolito", "the mole enchiladas"],
      ["Tandoor House", "the lamb biryani"],
      ["Bao Bar", "the pork belly buns"],
    ] as const);
    return {
      facts: [
        {
          key: "fav",
          user: `New favourite place: ${place} on the corner near our flat. I've ordered ${dish} three times now, it's unreal.`,
          assistant: `It's always great to find a local spot like that. Maybe ask them what else the regulars order.`,
        },
      ],
      distractors: [
        {
          user: `How much should I tip at a restaurant?`,
          assistant: `It depends on the country; in the US 18 to 20 percent is typical, while in much of Europe rounding up is common.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Where do I love going out to eat nearby?`, gold: ["fav"] },
        { type: "keyword", text: `What do I always order at ${place}?`, gold: ["fav"] },
        {
          type: "followup",
          lead: [`I'm craving takeaway tonight.`],
          text: `What was that local spot I liked?`,
          gold: ["fav"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `My ${p.sibling.rel} is visiting this weekend and wants to eat out, which dish did I keep ordering at that corner place?`,
          gold: ["fav"],
        },
      ],
    };
  },
};

const cooking: Topic = {
  id: "cooking",
  category: "food",
  build(r, p) {
    const dish = r.pick(["sourdough bread", "homemade ramen", "paella", "croissants", "pad thai"]);
    const fail = r.pick(["way too salty", "completely flat", "burnt on the bottom", "gluey and bland"]);
    return {
      facts: [
        {
          key: "fail",
          user: `Tried making ${dish} for the first time. It came out ${fail}. ${p.partner.name} was very polite about it.`,
          assistant: `First attempts rarely work out, so don't be discouraged. Next time, follow the recipe by weight rather than cups and taste as you go.`,
        },
        {
          key: "success",
          user: `Second attempt at ${dish} was a triumph! The trick was a lower heat and a lot more patience.`,
          assistant: `Patience is the secret ingredient in so many dishes. Write down exactly what you did while you remember it.`,
        },
      ],
      distractors: [
        {
          user: `What can I substitute for buttermilk?`,
          assistant: `Stir a tablespoon of lemon juice or vinegar into a cup of milk and let it sit for five minutes.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What went wrong the first time I attempted that recipe?`, gold: ["fail"] },
        { type: "keyword", text: `What was the trick that made my ${dish} work?`, gold: ["success"] },
        { type: "paraphrase", text: `Which dish have I been learning to cook at home?`, gold: ["fail", "success"] },
        {
          type: "followup",
          lead: [`I want to cook something special this weekend.`, `Maybe that dish I keep practising.`],
          text: `What was the secret last time?`,
          gold: ["success"],
        },
      ],
    };
  },
};

const vegetarian: Topic = {
  id: "vegetarian",
  category: "food",
  build(r, p) {
    const why = r.pick(["for the climate", "after watching a documentary", "because my cholesterol was high"]);
    return {
      facts: [
        {
          key: "switch",
          user: `I've decided to go vegetarian, mostly ${why}. Doing it gradually, no red meat first, then chicken.`,
          assistant: `A gradual switch is the most sustainable approach. Watch your iron and B12, and lean on lentils, beans and tofu for protein.`,
        },
      ],
      distractors: [],
      questions: [
        { type: "paraphrase", text: `Why did I stop eating meat?`, gold: ["switch"] },
        { type: "keyword", text: `Am I still vegetarian?`, gold: ["switch"] },
        {
          type: "long",
          anchorFront: false,
          text: `My ${p.parent.rel} is cooking Sunday lunch and asked what I eat these days, what did I decide about meat?`,
          gold: ["switch"],
        },
      ],
    };
  },
};

const knee: Topic = {
  id: "knee",
  category: "health",
  build(r) {
    const cause = r.pick([
      "playing five-a-side football",
      "slipping on ice",
      "a ski trip",
      "jumping off a wall like an idiot",
    ]);
    const n = r.int(2, 3);
    return {
      facts: [
        {
          key: "injury",
          user: `Hurt my knee ${cause}. The doctor thinks it's a sprained ligament and sent me for an MRI.`,
          assistant: `Ouch. Until the scan, rest it, ice it for 15 minutes at a time and keep it elevated. Avoid twisting movements.`,
        },
        {
          key: "physio",
          user: `MRI showed a partial tear, no surgery needed. Physio ${n} times a week for two months, mostly squats and balance work.`,
          assistant: `That's good news overall. Do the home exercises consistently; that's what makes the difference in recovery.`,
        },
      ],
      distractors: [
        {
          user: `Is it better to use ice or heat on a sore back?`,
          assistant: `Ice for the first day or two after an injury to calm inflammation, then heat to relax stiff muscles.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `How did I injure my leg?`, gold: ["injury"] },
        { type: "paraphrase", text: `What did the scan show and do I need an operation?`, gold: ["physio"] },
        { type: "keyword", text: `How often do I go to physio for my knee?`, gold: ["physio"] },
        { type: "followup", lead: [`My knee is sore again today.`], text: `What did the MRI say?`, gold: ["physio"] },
        {
          type: "long",
          anchorFront: false,
          text: `I was filling out the insurance form and it asks what caused it, how did the knee injury happen?`,
          gold: ["injury"],
        },
      ],
    };
  },
};

const sleep: Topic = {
  id: "sleep",
  category: "health",
  build(r) {
    const hour = r.pick(["3am", "4am", "2am"]);
    return {
      facts: [
        {
          key: "insomnia",
          user: `I keep waking up at ${hour} and can't get back to sleep. It's been weeks and I'm exhausted at work.`,
          assistant: `That pattern is common with stress. Keep the same wake time every day, avoid screens late, and if you can't sleep after 20 minutes, get up and read until drowsy.`,
        },
        {
          key: "fix",
          user: `Update on the sleep thing: cutting caffeine after noon and no phone in the bedroom actually worked. Sleeping through most nights now.`,
          assistant: `That's great to hear! Those two changes help a lot of people. Keep them up even when things are going well.`,
        },
      ],
      distractors: [
        {
          user: `How many hours of sleep does an adult actually need?`,
          assistant: `Most adults need seven to nine hours, though individual needs vary.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What time was I jolting awake in the middle of the night?`, gold: ["insomnia"] },
        { type: "paraphrase", text: `What finally helped with my restless nights?`, gold: ["fix"] },
        { type: "keyword", text: `Did cutting caffeine help my sleep?`, gold: ["fix"] },
        {
          type: "followup",
          lead: [`Still feeling tired lately.`, `My nights have been rough again.`],
          text: `What worked last time?`,
          gold: ["fix"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `Waking up at night again, what were the two changes that fixed it before?`,
          gold: ["fix"],
        },
      ],
    };
  },
};

const dentist: Topic = {
  id: "dentist",
  category: "health",
  build(r) {
    const tooth = r.pick(["upper left molar", "lower right molar", "front tooth"]);
    return {
      facts: [
        {
          key: "rootcanal",
          user: `Dentist says I need a root canal on my ${tooth}. Appointment is next Thursday and I'm dreading it.`,
          assistant: `Root canals have a scary reputation, but with modern anaesthetic most people say it feels like a long filling.`,
        },
      ],
      distractors: [
        {
          user: `Is an electric toothbrush really better than a manual one?`,
          assistant: `Studies show a modest advantage for oscillating electric brushes, but good technique with a manual brush works too.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What procedure is planned for my teeth?`, gold: ["rootcanal"] },
        { type: "keyword", text: `Which tooth needs the root canal?`, gold: ["rootcanal"] },
        {
          type: "long",
          anchorFront: false,
          text: `I have to move a meeting at work, so when is my appointment for the root canal?`,
          gold: ["rootcanal"],
        },
      ],
    };
  },
};

const moving: Topic = {
  id: "moving",
  category: "plans",
  build(r, _p) {
    const hood = r.pick(["Riverside", "the Old Town", "Maple Heights", "Harbourview", "Eastgate"]);
    const date = r.pick(["the 28th", "the first weekend of June", "mid-August"]);
    const feature = r.pick(["a big balcony", "a second bedroom for an office", "a garden", "a proper kitchen"]);
    return {
      facts: [
        {
          key: "signed",
          user: `We signed the lease on a new apartment in ${hood}! It has ${feature}. Moving on ${date}.`,
          assistant: `Congratulations on the new place! Start packing the rarely-used stuff now, and book movers early if it's a weekend.`,
        },
        {
          key: "movers",
          user: `Booked the moving company for the big day, they quoted 650 for the van and three guys. Also need to redirect our post.`,
          assistant: `Sounds well organised. Label boxes by room on the side, not the top, so they're readable when stacked.`,
        },
      ],
      distractors: [
        {
          user: `How do I get a security deposit back when moving out of a rental?`,
          assistant: `Clean thoroughly, fix small damage, take dated photos and compare against the move-in inventory.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which neighbourhood are we relocating to?`, gold: ["signed"] },
        { type: "paraphrase", text: `What's special about our new flat?`, gold: ["signed"] },
        { type: "keyword", text: `How much did the moving company quote?`, gold: ["movers"] },
        { type: "followup", lead: [`Packing boxes all weekend.`], text: `When's the big day again?`, gold: ["signed"] },
        {
          type: "long",
          anchorFront: true,
          text: `The new apartment in ${hood}, what does it have that our old place didn't?`,
          gold: ["signed"],
        },
      ],
    };
  },
};

const car: Topic = {
  id: "car",
  category: "plans",
  build(r) {
    const model = r.pick(["Honda Civic", "Toyota Corolla", "Mazda 3", "Skoda Octavia", "Subaru Outback"]);
    const problem = r.pick(["the transmission", "the head gasket", "the clutch"]);
    return {
      facts: [
        {
          key: "breakdown",
          user: `My old car broke down on the motorway. Mechanic says it's ${problem} and the repair would cost more than the car is worth.`,
          assistant: `That's frustrating. If the repair exceeds the car's value, putting that money towards a replacement is usually the better call.`,
        },
        {
          key: "bought",
          user: `Bought a used ${model}, 2019, about 40,000 miles on it. Feels like a spaceship compared to my old one.`,
          assistant: `Nice choice, those are reliable. Check when the next service is due and keep the paperwork together.`,
        },
      ],
      distractors: [
        {
          user: `How often should I check my tyre pressure?`,
          assistant: `Once a month and before long trips, when the tyres are cold.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `What vehicle did I end up purchasing?`, gold: ["bought"] },
        { type: "paraphrase", text: `Why did my previous ride die?`, gold: ["breakdown"] },
        { type: "keyword", text: `How many miles does my ${model} have?`, gold: ["bought"] },
        {
          type: "followup",
          lead: [`My insurance renewal just came in.`],
          text: `What year and model is it?`,
          gold: ["bought"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `The old car that broke down on the motorway, what did the mechanic say was wrong with it?`,
          gold: ["breakdown"],
        },
      ],
    };
  },
};

const language: Topic = {
  id: "language",
  category: "plans",
  build(r) {
    const lang = r.pick(["Spanish", "Japanese", "Italian", "Portuguese", "Korean"]);
    const streak = r.int(30, 120);
    return {
      facts: [
        {
          key: "start",
          user: `Started learning ${lang} with an app and a weekly tutor on video call. Goal is to hold a basic conversation by the end of the year.`,
          assistant: `A mix of an app for vocabulary and a tutor for speaking is ideal. Try to say a few sentences out loud every day.`,
        },
        {
          key: "streak",
          user: `${streak}-day streak on my ${lang} app! I can finally order food and ask for directions without panicking.`,
          assistant: `That's a great streak! Ordering food and asking directions is real, practical progress.`,
        },
      ],
      distractors: [
        {
          user: `What's the hardest language for English speakers to learn?`,
          assistant: `By the US Foreign Service Institute's estimates, Arabic, Mandarin, Cantonese, Japanese and Korean take the longest.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which foreign tongue am I studying?`, gold: ["start"] },
        { type: "keyword", text: `How long is my ${lang} app streak?`, gold: ["streak"] },
        { type: "paraphrase", text: `What's my target for speaking by December?`, gold: ["start"] },
        {
          type: "followup",
          lead: [`I practised with my tutor today.`],
          text: `What can I do now that I couldn't before?`,
          gold: ["streak"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `A friend asked how I'm studying and I forgot to mention, do I have a tutor as well as the app?`,
          gold: ["start"],
        },
      ],
    };
  },
};

const saving: Topic = {
  id: "saving",
  category: "plans",
  build(r) {
    const amount = r.pick(["30,000", "45,000", "25,000"]);
    const years = r.int(2, 4);
    return {
      facts: [
        {
          key: "goal",
          user: `We're saving for a deposit on a house: target is ${amount} in ${years} years. Set up an automatic transfer every payday.`,
          assistant: `Automating the transfer is the most effective habit there is. A high-interest savings account will help it grow a little faster.`,
        },
      ],
      distractors: [
        {
          user: `Can you explain how compound interest works?`,
          assistant: `You earn interest on your interest: each period's interest is added to the balance, so the next period's interest is calculated on a larger amount.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `How much money are we trying to put aside for a home?`, gold: ["goal"] },
        { type: "keyword", text: `What's our house deposit savings target?`, gold: ["goal"] },
        {
          type: "followup",
          lead: [`Looking at our budget again.`],
          text: `How many years did we give ourselves?`,
          gold: ["goal"],
        },
        {
          type: "long",
          anchorFront: true,
          text: `Saving for the house deposit, did I set up an automatic transfer or am I doing it by hand?`,
          gold: ["goal"],
        },
      ],
    };
  },
};

const concert: Topic = {
  id: "concert",
  category: "plans",
  build(r, p) {
    const band = r.pick([
      "Fleetwood Mac tribute act",
      "Arctic Monkeys",
      "Florence and the Machine",
      "a jazz trio at the Blue Note",
      "the symphony orchestra",
    ]);
    const month = r.pick(["November", "December", "July"]);
    return {
      facts: [
        {
          key: "tickets",
          user: `Managed to get two tickets to see ${band} in ${month}! Taking ${p.sibling.name}, it's ${p.sibling.his} birthday present.`,
          assistant: `What a great present! Check the venue's bag policy before you go; many only allow small clear bags.`,
        },
      ],
      distractors: [
        {
          user: `How do I avoid ticket scams when buying resale tickets?`,
          assistant: `Use the official resale platform, avoid paying by bank transfer to strangers, and be wary of prices far below face value.`,
        },
      ],
      questions: [
        { type: "paraphrase", text: `Which show am I taking my ${p.sibling.rel} to?`, gold: ["tickets"] },
        { type: "keyword", text: `When is the ${band} concert?`, gold: ["tickets"] },
        {
          type: "followup",
          lead: [`${p.sibling.name}'s birthday is soon.`],
          text: `What did I get ${p.sibling.him} again?`,
          gold: ["tickets"],
        },
        {
          type: "long",
          anchorFront: false,
          text: `I'm checking my calendar for the end of the year, what month was the gig I got tickets for?`,
          gold: ["tickets"],
        },
      ],
    };
  },
};

const volunteering: Topic = {
  id: "volunteering",
  category: "hobbies",
  build(r) {
    const where = r.pick(["the animal shelter", "the food bank", "a literacy charity", "the community garden"]);
    const day = r.pick(["Saturday mornings", "Thursday evenings", "every other Sunday"]);
    return {
      facts: [
        {
          key: "start",
          user: `I've started volunteering at ${where} on ${day}. It's the best part of my week honestly.`,
          assistant: `That's wonderful. Regular volunteering is good for you as well as for the people you help.`,
        },
      ],
      distractors: [],
      questions: [
        { type: "paraphrase", text: `Where do I give my time for free each week?`, gold: ["start"] },
        { type: "keyword", text: `When do I volunteer at ${where}?`, gold: ["start"] },
        {
          type: "long",
          anchorFront: true,
          text: `My volunteering shifts each week, which day are they on so I don't double-book?`,
          gold: ["start"],
        },
      ],
    };
  },
};

export const TOPICS: Topic[] = [
  dog,
  cat,
  pottery,
  climbing,
  guitar,
  running,
  garden,
  bookclub,
  volunteering,
  wedding,
  parentSurgery,
  kid,
  anniversary,
  friendBirthday,
  newJob,
  project,
  conference,
  trip,
  hike,
  passport,
  allergy,
  restaurant,
  cooking,
  vegetarian,
  knee,
  sleep,
  dentist,
  moving,
  car,
  language,
  saving,
  concert,
];
