import type { Rng } from "./rng";
import type { Category } from "./topics";

/**
 * Assistants answer at length, and most of what they add is generic: advice that would fit many
 * situations of the same kind, an offer to help further. Real chat memories therefore carry far more
 * assistant text than facts, and that text is shared across memories of a category. These pools pad
 * each reply with 1–3 such sentences (chosen by the seeded generator), so the test set has the same
 * dilution: the fact is one sentence in a paragraph, and neighbours in the category sound alike.
 */
const GENERAL: Record<Category, string[]> = {
  pets: [
    "Routine matters a lot to animals: regular meal times, walks and quiet time help them feel secure.",
    "Positive reinforcement works much better than punishment, so reward the behaviour you want to see.",
    "It's also worth checking that your pet insurance or savings would cover an unexpected vet bill.",
    "Keep an eye on appetite, energy and toilet habits; changes there are often the first sign something is off.",
    "A bit of enrichment, like puzzle feeders or new smells to explore, can make a big difference to their mood.",
    "Every animal is different, so go at their pace and don't worry if progress is uneven.",
  ],
  hobbies: [
    "The most important thing with any hobby is to keep it fun rather than turning it into another obligation.",
    "Progress usually comes in plateaus and sudden jumps, so don't judge it week by week.",
    "Finding a community around it, in person or online, tends to keep people motivated for longer.",
    "Try to protect a regular slot in your week for it, even a short one.",
    "Keeping a simple log of what you did each session makes it easier to see how far you've come.",
    "Remember to warm up and to rest when your body tells you to.",
  ],
  family: [
    "Family events can be emotional as well as logistical, so give yourself some room for both.",
    "Sharing a simple plan or a group chat with everyone involved saves a lot of back-and-forth.",
    "It's worth writing the key dates down in a shared calendar so nobody is caught off guard.",
    "Small personal touches often mean more to people than anything expensive.",
    "Don't forget to look after yourself too while you're supporting everyone else.",
    "Checking in regularly, even with a quick message, helps people feel looked after.",
  ],
  work: [
    "Writing down decisions and agreements after meetings protects you and keeps everyone aligned.",
    "It helps to have a clear picture of your priorities for the week before others fill your calendar.",
    "Regular, honest conversations with your manager tend to prevent most surprises.",
    "Try to keep some boundaries around your evenings so work doesn't take over everything.",
    "Celebrating small wins with your team builds momentum for the harder parts.",
    "If things get overwhelming, it's fine to ask for help or to renegotiate deadlines early.",
  ],
  travel: [
    "Keep digital and paper copies of your documents and bookings in case your phone dies.",
    "Leaving some slack in the itinerary usually makes a trip more enjoyable than packing every hour.",
    "Local markets and neighbourhood restaurants are often the most memorable part of a trip.",
    "Check the entry requirements and any vaccination advice for your destination well ahead of time.",
    "Travel insurance is worth having for anything more than a short domestic trip.",
    "Learning a few phrases in the local language goes a long way with the people you meet.",
  ],
  food: [
    "Cooking gets easier with repetition, so making the same dish a few times is a great way to learn.",
    "Reading labels carefully and asking questions when eating out is always a good habit.",
    "Balanced meals with plenty of vegetables, protein and whole grains keep energy steady through the day.",
    "Keeping a few staples in the cupboard makes it much easier to cook on busy evenings.",
    "Seasonal ingredients tend to be cheaper and taste better.",
    "It can be fun to note down what you liked so you can order or cook it again.",
  ],
  health: [
    "If symptoms get worse or don't improve, check in with a healthcare professional.",
    "Sleep, hydration and regular movement underpin almost every aspect of recovery.",
    "Be patient with yourself: healing rarely follows a straight line.",
    "Write down your questions before appointments so you don't forget them in the moment.",
    "Stress can make physical symptoms feel worse, so gentle relaxation routines can help too.",
    "Follow the plan your clinician gives you even on days when you feel fine.",
  ],
  plans: [
    "Breaking a big plan into small, dated steps makes it far less daunting.",
    "It's worth keeping a simple spreadsheet or checklist so nothing slips through the cracks.",
    "Build in a buffer for costs and timings; things almost always take longer than expected.",
    "Talking the plan through with someone you trust often surfaces things you hadn't considered.",
    "Reviewing your progress once a month keeps the goal realistic and motivating.",
    "Celebrate the milestones along the way, not only the finish line.",
  ],
};

const CLOSERS = [
  "Would you like me to put together a checklist?",
  "Let me know if you want me to go into more detail on any of this.",
  "Happy to help you plan the next steps if that's useful.",
  "Do you want some more ideas?",
  "I can draft something for you if that would help.",
  "Keep me posted on how it goes!",
  "Is there anything else on your mind about it?",
];

const FILLER_GENERAL = [
  "There are a few different approaches, so it depends a bit on your situation.",
  "If you want, I can explain the reasoning behind it in more depth.",
  "It's a common question, and the short answer above covers most cases.",
  "Results can vary, so it's worth trying it once and adjusting.",
];

/** Lengthen a topic reply with generic advice of its category and, often, a closing offer. */
export function elaborate(r: Rng, category: Category, reply: string): string {
  const extra = r.sample(GENERAL[category], r.int(1, 3));
  const parts = [reply, ...extra];
  if (r.chance(0.6)) parts.push(r.pick(CLOSERS));
  return parts.join(" ");
}

/** Lengthen a filler reply a little (general remarks and closers carry no facts). */
export function elaborateFiller(r: Rng, reply: string): string {
  const parts = [reply];
  if (r.chance(0.5)) parts.push(r.pick(FILLER_GENERAL));
  if (r.chance(0.5)) parts.push(r.pick(CLOSERS));
  return parts.join(" ");
}
