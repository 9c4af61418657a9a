import type { Persona } from "./persona";
import type { Exchange } from "./topics";

/**
 * Filler exchanges: what people ask an assistant between the moments that matter. They hold no fact a
 * question asks about; many share words with the topics (vaccines, training, tickets, flights, shots) so
 * they compete with the gold exchanges the way real chat history does.
 */
export const GENERIC_FILLERS: Exchange[] = [
  {
    user: "How do vaccines actually work?",
    assistant:
      "They show your immune system a harmless piece or version of a germ, so it learns to recognise it and responds faster if you meet the real thing.",
  },
  {
    user: "Why is the sky blue?",
    assistant:
      "Sunlight scatters off air molecules, and shorter blue wavelengths scatter much more than red ones, so blue light reaches your eyes from every direction.",
  },
  {
    user: "What's the difference between RAM and storage?",
    assistant:
      "RAM is fast, temporary working memory that empties when the computer turns off; storage keeps your files permanently but is slower.",
  },
  {
    user: "My laptop fan is really loud all of a sudden. What should I check?",
    assistant:
      "Look for a process using lots of CPU, clean dust out of the vents with compressed air, and make sure it sits on a hard surface.",
  },
  {
    user: "How do I merge two PDFs without paying for software?",
    assistant:
      "On a Mac, Preview can do it by dragging pages between files; on Windows, free tools like PDFsam work well.",
  },
  {
    user: "Excel formula to count unique values in a column?",
    assistant: "In newer Excel: =COUNTA(UNIQUE(A2:A100)). In older versions: =SUMPRODUCT(1/COUNTIF(A2:A100,A2:A100)).",
  },
  {
    user: "Can you help me write an email to my landlord about a leaking tap?",
    assistant:
      "Sure: 'Hi, the kitchen tap has been leaking steadily since Monday. Could you arrange for a plumber to look at it this week? Thanks.'",
  },
  {
    user: "Give me a synonym for 'important' that sounds less boring.",
    assistant: "Crucial, pivotal, vital, essential, or significant, depending on the tone you want.",
  },
  {
    user: "Write a haiku about autumn.",
    assistant: "Red leaves drift and fall / the maple lets go of light / cold wind keeps the rest.",
  },
  {
    user: "How far away is the moon?",
    assistant: "About 384,400 km on average, roughly thirty Earths lined up side by side.",
  },
  {
    user: "Who painted the Mona Lisa?",
    assistant: "Leonardo da Vinci, in the early 1500s. It hangs in the Louvre in Paris.",
  },
  {
    user: "What causes the seasons?",
    assistant:
      "The tilt of Earth's axis: each hemisphere leans toward the sun for part of the year and away for the rest.",
  },
  {
    user: "What is inflation, in simple terms?",
    assistant: "The general rise in prices over time, which means the same money buys a little less each year.",
  },
  {
    user: "How do I unclog a bathroom sink?",
    assistant:
      "Try a plunger first, then remove and clean the trap under the sink. Baking soda and vinegar followed by hot water can help with minor clogs.",
  },
  {
    user: "How do I get red wine out of a carpet?",
    assistant:
      "Blot, don't rub. Then dab with a mix of dish soap, white vinegar and warm water, and blot again with a clean cloth.",
  },
  {
    user: "What's the best way to clean a cast iron pan?",
    assistant: "Rinse with hot water and a brush, dry it completely on the stove, and rub in a thin layer of oil.",
  },
  {
    user: "How do I get rid of fruit flies in the kitchen?",
    assistant:
      "Set a trap: a small bowl of cider vinegar with a drop of dish soap. Remove ripe fruit and empty the compost often.",
  },
  {
    user: "How long should I boil an egg for a runny yolk?",
    assistant: "Six minutes in gently boiling water, then straight into cold water.",
  },
  {
    user: "Quick dinner idea with chickpeas and spinach?",
    assistant:
      "Fry garlic and onion, add cumin and paprika, then the chickpeas and a tin of tomatoes, and wilt in the spinach at the end. Serve with rice or flatbread.",
  },
  {
    user: "Is it safe to freeze cooked rice?",
    assistant: "Yes, cool it quickly and freeze within an hour or so; reheat until piping hot and only once.",
  },
  {
    user: "Is it normal for muscles to be sore two days after a workout?",
    assistant:
      "Yes, that's delayed-onset muscle soreness. It usually peaks at 24 to 72 hours and fades with gentle movement.",
  },
  {
    user: "How much water should I drink a day?",
    assistant:
      "Needs vary, but drinking to thirst and keeping urine pale yellow works for most people; more in heat or when exercising.",
  },
  {
    user: "Should I take vitamin D in winter?",
    assistant:
      "Many health services suggest it for people with little sun exposure in winter; check the dose with a pharmacist or doctor.",
  },
  {
    user: "Explain the Pomodoro technique.",
    assistant:
      "Work for 25 minutes, take a 5-minute break, repeat; after four rounds take a longer break of 15 to 30 minutes.",
  },
  {
    user: "How do I politely say no to extra work?",
    assistant:
      "Acknowledge the request, explain your current priorities, and offer an alternative: 'I can take it on next week, or drop X to fit it in now.'",
  },
  {
    user: "What's the time difference between London and Tokyo?",
    assistant: "Tokyo is 9 hours ahead of London in winter and 8 hours ahead during British Summer Time.",
  },
  {
    user: "How early should I get to the airport for an international flight?",
    assistant: "Around three hours before departure is the usual advice, more at busy times.",
  },
  {
    user: "Roth IRA or traditional IRA, what's the difference?",
    assistant:
      "Traditional: tax deduction now, taxed on withdrawal. Roth: taxed now, tax-free withdrawals in retirement.",
  },
  {
    user: "Can you recommend a budgeting app?",
    assistant:
      "Popular options include YNAB for zero-based budgeting and simpler trackers like Goodbudget; many banks also have built-in tools.",
  },
  {
    user: "Can you suggest a funny movie for tonight?",
    assistant:
      "A few crowd-pleasers: Paddington 2, The Grand Budapest Hotel, Game Night, or What We Do in the Shadows.",
  },
  {
    user: "What's a good podcast about history?",
    assistant: "The Rest Is History, Hardcore History by Dan Carlin, and You're Dead to Me are all well loved.",
  },
  {
    user: "Just watched a documentary about octopuses. They're wild.",
    assistant: "They really are: three hearts, blue blood, and each arm has its own cluster of neurons.",
  },
  {
    user: "What's the difference between affect and effect?",
    assistant:
      "Usually 'affect' is the verb (the rain affected the game) and 'effect' is the noun (the rain had an effect).",
  },
  {
    user: "How do I make my houseplants stop dying?",
    assistant:
      "Most houseplants die from overwatering. Check that pots drain, water only when the top few centimetres of soil are dry, and match plants to your light.",
  },
  {
    user: "What's a quick stretch routine for people who sit all day?",
    assistant:
      "Neck rolls, shoulder shrugs, a seated spinal twist, a standing hip flexor stretch and a forward fold, 30 seconds each.",
  },
  {
    user: "How do I convert Celsius to Fahrenheit in my head?",
    assistant: "Double it and add 30 for a rough answer; the exact formula is multiply by 1.8 and add 32.",
  },
  {
    user: "Write a short thank-you note to a colleague who covered my shift.",
    assistant: "'Thanks so much for covering for me on Tuesday, you really saved me. Coffee's on me next week!'",
  },
  {
    user: "What are some good board games for four adults?",
    assistant: "Codenames, Ticket to Ride, Wingspan, and The Crew are all easy to learn and fun with four.",
  },
  {
    user: "How do I keep avocados from going brown?",
    assistant:
      "Leave the stone in, squeeze over lemon or lime juice, and press cling film directly onto the cut surface.",
  },
  {
    user: "Can you explain what a VPN does?",
    assistant:
      "It encrypts your internet traffic and routes it through another server, hiding it from your local network and changing your apparent location.",
  },
  {
    user: "Why does my phone battery drain so fast?",
    assistant:
      "Common culprits are screen brightness, background app refresh, location services and an ageing battery; check the battery settings for the worst apps.",
  },
  { user: "What's the capital of Australia?", assistant: "Canberra, not Sydney, a common mix-up." },
  {
    user: "How do I write a good cover letter?",
    assistant:
      "Open with why this role, give two concrete examples of relevant achievements, and close with enthusiasm; keep it to one page.",
  },
  {
    user: "What's the healthiest way to cook broccoli?",
    assistant: "Steaming or a quick stir-fry keeps more vitamins than boiling.",
  },
  {
    user: "Suggest a name for a fantasy football team.",
    assistant: "How about 'Expected Toulouse', 'Net Gains' or 'Kane and Able'?",
  },
  {
    user: "What are the rules of pickleball, briefly?",
    assistant:
      "Serve underhand diagonally, the ball must bounce once on each side before volleys are allowed, and you can't volley from the kitchen zone near the net.",
  },
  {
    user: "How do I clean my glasses without scratching them?",
    assistant:
      "Rinse with lukewarm water, a drop of dish soap, and dry with a clean microfibre cloth; avoid paper towels.",
  },
  {
    user: "Is coffee bad for you?",
    assistant:
      "For most adults, up to about three or four cups a day is fine and even linked to some benefits; it can disturb sleep if taken late.",
  },
  {
    user: "How do I fix a squeaky door hinge?",
    assistant: "Lift the pin, coat it in petroleum jelly or a drop of oil, and tap it back in.",
  },
  { user: "Translate 'where is the train station' into French.", assistant: "'Où est la gare ?'" },
  {
    user: "What's a polite way to remind someone they owe me money?",
    assistant:
      "'Hey, just a quick nudge about the 40 from dinner last week, no rush but wanted to flag it before I forget!'",
  },
  {
    user: "How do solar panels work?",
    assistant:
      "Photovoltaic cells convert sunlight into electricity: light knocks electrons loose in silicon, creating a current.",
  },
  {
    user: "Give me three ideas for a rainy Sunday.",
    assistant: "Bake something ambitious, do a film marathon with a theme, or visit a museum you've never been to.",
  },
  {
    user: "How do I stop procrastinating?",
    assistant:
      "Make the first step tiny, remove distractions for a set time, and reward yourself after finishing a chunk.",
  },
  {
    user: "What does a router's WPS button do?",
    assistant:
      "It lets devices join the Wi-Fi without typing the password, by pressing the button on both; it's convenient but less secure.",
  },
  {
    user: "How long does it take to get used to a standing desk?",
    assistant: "A couple of weeks; alternate sitting and standing every 30 to 60 minutes rather than standing all day.",
  },
  {
    user: "Why do onions make you cry?",
    assistant: "Cutting them releases a gas that turns into a mild irritant when it reaches the moisture in your eyes.",
  },
  {
    user: "What's the best way to learn to touch type?",
    assistant: "Use a free trainer like Keybr or TypingClub for 15 minutes a day and resist looking at the keys.",
  },
  {
    user: "Could you summarise the plot of Hamlet in two sentences?",
    assistant:
      "Prince Hamlet seeks revenge on his uncle, who murdered his father and married his mother. His hesitation leads to a chain of deaths, including his own.",
  },
  {
    user: "What should I do if my flight gets delayed?",
    assistant:
      "Check the airline app for rebooking, keep receipts for food, and look up passenger rights rules for your route, which may entitle you to compensation.",
  },
  {
    user: "How do I make cold brew coffee?",
    assistant:
      "Coarsely ground coffee steeped in cold water, about 1 to 8 by weight, for 12 to 18 hours, then strained.",
  },
  {
    user: "What's a good stretch for tight hamstrings?",
    assistant:
      "Lie on your back, loop a towel around one foot and gently raise the straight leg until you feel a stretch; hold 30 seconds.",
  },
  {
    user: "Tips for a first half marathon? Asking for a friend.",
    assistant:
      "Don't go out too fast, practise fuelling on long runs, and nothing new on race day: shoes, kit or breakfast.",
  },
  {
    user: "How do I train a puppy to stop biting hands?",
    assistant:
      "Yelp and stop playing when teeth touch skin, then redirect to a chew toy; consistency from everyone in the house matters.",
  },
  {
    user: "What's the difference between a cold and the flu?",
    assistant:
      "Flu tends to come on suddenly with fever, aches and exhaustion; colds are milder and mostly stuffy noses and sore throats.",
  },
  {
    user: "Ideas for a low-key birthday dinner at home?",
    assistant:
      "A build-your-own taco bar, homemade pizza night, or a simple roast followed by a shop-bought cake dressed up with berries.",
  },
  {
    user: "How do I back up my phone photos?",
    assistant:
      "Turn on your phone's cloud photo backup, or copy them to a computer and an external drive every month or so.",
  },
  {
    user: "How do I remove a splinter?",
    assistant: "Clean the area, then use tweezers sterilised with alcohol to pull it out at the same angle it went in.",
  },
  {
    user: "What's a good gift for someone who has everything?",
    assistant:
      "An experience, like a class or a concert, or something consumable and nice: good coffee, chocolate or a bottle of wine.",
  },
  {
    user: "How do I make a meeting agenda?",
    assistant:
      "List the goal, topics with owners and time boxes, and leave five minutes at the end for actions and next steps.",
  },
  {
    user: "Any tips for jet lag?",
    assistant:
      "Shift your sleep an hour a day before travel, get daylight at your destination in the morning, and avoid long naps.",
  },
  {
    user: "What's the best way to memorise vocabulary in a new language?",
    assistant: "Spaced repetition flashcards, like Anki, plus using new words in sentences you say out loud.",
  },
  {
    user: "How do I season a new wok?",
    assistant:
      "Wash off the factory coating, heat it until it changes colour, then wipe on a thin layer of oil and heat until it smokes; repeat a few times.",
  },
  {
    user: "Why do cats purr?",
    assistant:
      "Usually contentment, but also to self-soothe when stressed or hurt; the vibration may even help healing.",
  },
  {
    user: "How many calories does walking burn?",
    assistant:
      "Roughly 4 to 5 calories per minute at a brisk pace for an average adult, more uphill or for heavier people.",
  },
  {
    user: "What's a good way to start journaling?",
    assistant:
      "Three lines a day: what happened, how you felt, and one thing you're grateful for. Keep it small enough that you'll stick with it.",
  },
  {
    user: "How do I negotiate a higher salary?",
    assistant:
      "Research market rates, anchor with a specific number backed by your achievements, and be ready to discuss the whole package, not only pay.",
  },
  {
    user: "How do I remove rust from a bike chain?",
    assistant:
      "Scrub it with a degreaser and a stiff brush or steel wool, rinse, dry thoroughly, and re-lubricate with chain oil.",
  },
  {
    user: "What's the difference between baking soda and baking powder?",
    assistant: "Baking soda needs an acid in the recipe to activate; baking powder already contains the acid.",
  },
  {
    user: "How do I deal with a noisy upstairs neighbour?",
    assistant:
      "Start with a friendly conversation about specific times, suggest rugs, and only involve the landlord if nothing changes.",
  },
  {
    user: "What is a good beginner strength workout?",
    assistant:
      "Squats, push-ups, rows, glute bridges and planks, three sets each, twice a week, adding weight or reps slowly.",
  },
  {
    user: "Can dogs eat grapes?",
    assistant: "No: grapes and raisins can cause kidney failure in dogs, even in small amounts.",
  },
  {
    user: "What's a good icebreaker for a team meeting?",
    assistant: "'Two truths and a lie' or 'What's the best thing you ate this week?' are quick and low pressure.",
  },
  {
    user: "How do I make my sourdough starter more active?",
    assistant:
      "Feed it twice a day at a warm room temperature, use some wholemeal or rye flour, and discard enough to keep the ratio fresh.",
  },
  {
    user: "Is it worth getting a flu shot every year?",
    assistant: "Health agencies recommend it yearly because the circulating strains change and protection fades.",
  },
];

/** Everyday personal remarks (true for the persona, but nothing the questions ask about). */
export function personalFillers(p: Persona): Exchange[] {
  return [
    {
      user: `It's pouring again in ${p.city}. Any ideas for an afternoon indoors?`,
      assistant: `Maybe a new recipe, a jigsaw, or finally sorting that one drawer everyone has. A good film helps too.`,
    },
    {
      user: `Got a parking ticket today outside the pharmacy. Five minutes! Ugh.`,
      assistant: `That's so annoying. Check the signage and the ticket details; sometimes there are grounds to appeal.`,
    },
    {
      user: `The washing machine is leaking again. Should I call someone or try to fix it myself?`,
      assistant: `Check the door seal and the filter first; if the water comes from underneath, it might be a hose, and a repair person is safer.`,
    },
    {
      user: `Went to ${p.coworker.name}'s barbecue yesterday and got way too much sun.`,
      assistant: `Aloe vera and plenty of water will help. Cool showers rather than hot ones for a day or two.`,
    },
    {
      user: `Feeling a bit flat today, nothing specific. Just one of those days.`,
      assistant: `Those days happen. A walk outside, a decent meal and an early night can reset things more than you'd expect.`,
    },
    {
      user: `My ${p.partner.rel} ${p.partner.name} wants to repaint the living room green. I'm not sure.`,
      assistant: `Try sample pots on a big piece of card and look at them in daylight and evening light before deciding.`,
    },
    {
      user: `Can you help me plan meals for the week? Nothing fancy.`,
      assistant: `Sure: a pasta bake, a stir-fry, a traybake of chicken and vegetables, soup with crusty bread, and tacos on Friday.`,
    },
    {
      user: `We had a power cut for three hours tonight. Played cards by candlelight, honestly kind of nice.`,
      assistant: `Sometimes the unplanned evenings are the best ones. Worth keeping a torch and batteries somewhere easy to find.`,
    },
    {
      user: `Stuck in traffic for an hour because of roadworks on the bypass.`,
      assistant: `Painful. A navigation app with live traffic might find you a way around while the works last.`,
    },
    {
      user: `${p.friend.name} recommended a TV series about a chef in Chicago. Is it worth it?`,
      assistant: `Many people love it for the intensity and the acting; it's stressful to watch, but the short episodes go quickly.`,
    },
    {
      user: `Cleaned out the garage this weekend. Found my old rollerblades!`,
      assistant: `Nice find! Check the wheels and bearings before taking them out for a spin.`,
    },
    {
      user: `My ${p.kid.rel} asked me why the ocean is salty and I had no idea.`,
      assistant: `Rivers carry tiny amounts of dissolved minerals from rocks into the sea, and when seawater evaporates the salt stays behind, building up over millions of years.`,
    },
    {
      user: `I think I'm getting a cold. Scratchy throat since this morning.`,
      assistant: `Rest, fluids and honey in warm water help. If it turns into a high fever or lasts more than ten days, see a doctor.`,
    },
    {
      user: `Need a quick birthday message for ${p.coworker.name} from work.`,
      assistant: `"Happy birthday, ${p.coworker.name}! Hope the year ahead is full of good coffee and short meetings."`,
    },
    {
      user: `Our internet has been dropping every evening this week.`,
      assistant: `Restart the router, check for a firmware update, and if it keeps happening at the same time, call your provider with the times.`,
    },
    {
      user: `Tried a new yoga class at lunch. Way harder than it looked.`,
      assistant: `Yoga is deceptively tough! Your body will thank you tomorrow, or complain, either way it's progress.`,
    },
  ];
}
