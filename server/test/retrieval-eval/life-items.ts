import type { Persona } from "./persona";
import type { Exchange } from "./topics";

/**
 * Items of the long-history test set beyond the topic bank: knowledge updates, things the assistant
 * suggested, preferences, inferences, and unanswerable turns. Item i belongs to the tuning half when i
 * is even and to the reporting half when odd, so the halves never share a template.
 */

export interface UpdateItem {
  old: Exchange;
  new: Exchange;
  /** Asks for the current value: the newer memory must rank first. */
  q: string;
}
export interface SingleItem {
  e: Exchange;
  q: string;
}

export function updates(p: Persona): UpdateItem[] {
  return [
    {
      old: {
        user: "My gym sessions are on Mondays and Wednesdays before work, 6:30 at the place on Mill Road.",
        assistant: "Early sessions are a great habit. Keep a bag packed the night before so the mornings run smoothly.",
      },
      new: {
        user: "Change of plan with the gym: I moved my sessions to Tuesday and Thursday evenings after work.",
        assistant:
          "Evenings can suit you better if the mornings were a struggle. Eat something light an hour or two before.",
      },
      q: "Which days do I go to the gym these days?",
    },
    {
      old: {
        user: `${p.sibling.name} lives in Lisbon now, working at a design studio near the river.`,
        assistant: "Lisbon is a lovely city to visit, you'll have a good excuse for a trip.",
      },
      new: {
        user: `${p.sibling.name} just moved again, from Lisbon to Copenhagen, for a new job at an architecture firm.`,
        assistant: "Quite a change of climate! Copenhagen is very bikeable, so that's one thing to try when you visit.",
      },
      q: `Which city is ${p.sibling.name} living in at the moment?`,
    },
    {
      old: {
        user: "My manager is Harriet, she runs the analytics team I joined last year.",
        assistant: "It sounds like you have a clear line of support there. Regular one-to-ones with her will help.",
      },
      new: {
        user: "Reorg at work: Harriet left and my new manager is Desmond, from the platform team.",
        assistant: "Reorgs can be unsettling. An early conversation with Desmond about expectations is a good idea.",
      },
      q: "Who is my manager right now?",
    },
    {
      old: {
        user: "My daily coffee order is a flat white with oat milk from the kiosk by the station.",
        assistant: "A classic choice. Oat milk froths nicely, which is why it works so well in flat whites.",
      },
      new: {
        user: "I've given up oat milk; now I just get a plain black Americano in the mornings.",
        assistant: "Simpler and cheaper! Black coffee also lets you taste the beans more.",
      },
      q: "How do I take my coffee nowadays?",
    },
    {
      old: {
        user: "Our rent is 1,450 a month for the two-bedroom flat.",
        assistant: "That's useful to know for budgeting. Keep the contract somewhere easy to find.",
      },
      new: {
        user: "The landlord put the rent up, it's 1,620 a month from next month.",
        assistant:
          "That's a big jump. Check your contract and local rules on how much notice and how large an increase is allowed.",
      },
      q: "How much rent are we paying for the flat currently?",
    },
    {
      old: {
        user: `My ${p.kid.rel}'s swimming lessons are on Saturday mornings at the leisure centre.`,
        assistant: "Saturday lessons are nice, they leave the weekdays calmer.",
      },
      new: {
        user: `We moved ${p.kid.name}'s swimming lessons to Wednesday afternoons, Saturday clashed with football.`,
        assistant: "Good call, juggling two activities on one morning is hard on everyone.",
      },
      q: `When does ${p.kid.name} have swimming now?`,
    },
    {
      old: {
        user: "My phone is a Pixel 6, the battery is starting to fade.",
        assistant: "A battery replacement might give it another couple of years.",
      },
      new: {
        user: "Finally replaced the Pixel: I got an iPhone 15 last week and I'm still learning the gestures.",
        assistant: "The switch takes a few days to get used to. The built-in tips app is handy for the gestures.",
      },
      q: "What phone do I have currently?",
    },
    {
      old: {
        user: "Our internet provider is Vodafone, 100 megabit fibre.",
        assistant: "That should be plenty for streaming and working from home.",
      },
      new: {
        user: "We switched broadband to a local provider, CityFibre, 500 megabit for less money.",
        assistant: "Nice upgrade. Run a speed test over cable once it's installed to check you get what you pay for.",
      },
      q: "Which broadband provider are we with now?",
    },
    {
      old: {
        user: "Our car insurance is with Hartwell, it renewed in January without any fuss.",
        assistant:
          "Good to have that sorted; put the renewal date in your calendar so it doesn't auto-renew at a higher price.",
      },
      new: {
        user: "Moved the car insurance over to Blue Lantern, same cover and a hundred pounds cheaper.",
        assistant: "Worth the twenty minutes of comparing. Keep the new policy number somewhere you can find it.",
      },
      q: "Who insures our car now?",
    },
    {
      old: {
        user: "My usual run is the canal loop from the lock to the old mill, about 5 km.",
        assistant: "A flat loop is perfect for building a base. Keep most runs at a pace where you could still talk.",
      },
      new: {
        user: "New running route now that I'm fitter: up through Hillside Park to the water tower and back, 8 km.",
        assistant:
          "Hills will make you stronger fast. Shorten your stride on the climbs and let the downhills come to you.",
      },
      q: "Where do I go running these days?",
    },
    {
      old: {
        user: "Our electricity is on a fixed tariff with Brightwell until June.",
        assistant: "Fixed deals are nice for budgeting. Set a reminder a month before it ends to compare offers.",
      },
      new: {
        user: "The fixed deal ended and we went with Solaris Energy on their variable tariff.",
        assistant:
          "Keep an eye on the unit rate for the first few bills, and submit meter readings so they're accurate.",
      },
      q: "Which energy supplier do we use now?",
    },
    {
      old: {
        user: "My dentist is Dr Patel at the surgery on King Street, I've been going there for years.",
        assistant: "A dentist who knows your history is worth a lot.",
      },
      new: {
        user: "Switched dentists: I go to Dr Mensah at the new practice by the park now, they open on Saturdays.",
        assistant:
          "Saturday appointments make checkups so much easier. Ask them to request your records from the old surgery.",
      },
      q: "Who is my dentist at the moment?",
    },
  ];
}

export function assistantSaid(): SingleItem[] {
  return [
    {
      e: {
        user: "Can you recommend a book about building better habits?",
        assistant:
          "Try 'Atomic Habits' by James Clear: short chapters, practical, and it explains habit stacking well.",
      },
      q: "What was the book you suggested about habits?",
    },
    {
      e: {
        user: "What should I bring to a dinner party where I don't know the host well?",
        assistant:
          "A bottle of something nice or a small plant works, and I'd recommend a handwritten thank-you card the day after.",
      },
      q: "What did you advise me to take to that dinner party?",
    },
    {
      e: {
        user: "My back hurts after long days at the desk. Anything simple?",
        assistant:
          "Set a timer every 45 minutes to stand up, and try the cat-cow stretch and a chin tuck a few times a day.",
      },
      q: "Which stretches did you recommend for my sore back?",
    },
    {
      e: {
        user: "What's a good first houseplant that's hard to kill?",
        assistant: "A snake plant or a pothos: both cope with low light and forgetful watering.",
      },
      q: "Which plant did you say would be hard to kill?",
    },
    {
      e: {
        user: "How should I prepare for a salary negotiation?",
        assistant:
          "Research the market range, anchor slightly above your target, and rehearse a short script out loud with a friend.",
      },
      q: "What was your advice on asking for more money at work?",
    },
    {
      e: {
        user: "Any tips for my first time camping?",
        assistant:
          "Practise pitching the tent at home once, bring a proper sleeping mat, and pack a head torch with spare batteries.",
      },
      q: "What did you tell me to practise before my first camping trip?",
    },
    {
      e: {
        user: "What's a good way to keep track of my spending?",
        assistant:
          "I'd go with the envelope method in an app: give every category a monthly amount and check it every Sunday.",
      },
      q: "Which budgeting method did you propose?",
    },
    {
      e: {
        user: "Can you suggest a board game for four adults who don't play much?",
        assistant: "Ticket to Ride is my pick: easy rules, about an hour, and everyone stays involved.",
      },
      q: "What board game did you recommend for our game night?",
    },
    {
      e: {
        user: "How can I make my small living room feel bigger?",
        assistant:
          "Use one large mirror opposite the window, raise the curtains to the ceiling, and choose furniture with legs.",
      },
      q: "What did you suggest doing with mirrors and curtains in the lounge?",
    },
    {
      e: {
        user: "What should I cook for a friend who's just had a baby?",
        assistant: "A big lasagne in a foil tray is ideal: it freezes well and they can reheat it whenever they like.",
      },
      q: "What dish did you say to make for the new parents?",
    },
    {
      e: {
        user: "I want to start journaling but never stick with it.",
        assistant: "Try a one-line-a-day journal: one sentence every evening is small enough to keep going.",
      },
      q: "Which journaling approach did you recommend to me?",
    },
    {
      e: {
        user: "How do I stop procrastinating on a big report?",
        assistant:
          "Use a two-minute start: open the file and write the worst possible first paragraph, then improve it.",
      },
      q: "What trick did you give me for getting started on that report?",
    },
    {
      e: {
        user: "What's a thoughtful gift for a friend who loves cooking?",
        assistant: "A good Microplane grater and a jar of flaky sea salt: small, useful and a bit special.",
      },
      q: "What present did you suggest for my friend who cooks?",
    },
    {
      e: {
        user: "How can I get better at remembering people's names?",
        assistant: "Repeat the name back straight away and link it to an image, like 'Rose' holding a rose.",
      },
      q: "What was your tip for not forgetting names?",
    },
    {
      e: {
        user: "Any advice for a long-haul flight with a toddler?",
        assistant: "Pack a surprise bag of small wrapped toys, one per hour, and book the bulkhead row if you can.",
      },
      q: "What did you recommend for keeping a little one busy on the plane?",
    },
    {
      e: {
        user: "I always forget to drink water when I'm busy at work.",
        assistant: "Keep a one-litre bottle on your desk and refill it at lunch: two bottles a day and you're there.",
      },
      q: "What was your suggestion for staying hydrated in the office?",
    },
    {
      e: {
        user: "How do I stop my glasses fogging up when I wear a face mask?",
        assistant:
          "Pinch the mask's wire over your nose, and rub a drop of washing-up liquid on the lenses, then polish it off.",
      },
      q: "What trick did you give me for misty spectacles?",
    },
    {
      e: {
        user: "I scroll on my phone in bed for hours and then can't sleep.",
        assistant:
          "Charge it in the hallway instead of the bedroom, and buy a cheap alarm clock so you don't need it there.",
      },
      q: "Where did you tell me to leave my mobile overnight?",
    },
    {
      e: {
        user: "My son refuses to eat anything green, any ideas?",
        assistant: "Let him help cook, and grate carrots and courgettes into pasta sauce where they disappear.",
      },
      q: "How did you say to sneak vegetables into my boy's meals?",
    },
    {
      e: {
        user: "I want to learn to cook properly but recipes overwhelm me.",
        assistant: "Master five dishes first: an omelette, a soup, a stir-fry, a roast chicken and a simple curry.",
      },
      q: "Which dishes did you say I should learn first?",
    },
  ];
}

export function preferences(p: Persona): SingleItem[] {
  return [
    {
      e: {
        user: "Just so you know, I always pick the aisle seat on flights, I hate climbing over people.",
        assistant: "Noted! The aisle is also handy for stretching your legs on long flights.",
      },
      q: "Which seat do I like when I fly?",
    },
    {
      e: {
        user: "I'm really not a fan of horror films, thrillers are about as scary as I go.",
        assistant: "Fair enough, a good thriller gives the tension without the nightmares.",
      },
      q: "What kind of movies do I avoid?",
    },
    {
      e: {
        user: "I prefer tea to coffee in the afternoon, usually Earl Grey, no milk.",
        assistant: "A classic. Earl Grey is lovely black with a slice of lemon too.",
      },
      q: "What's my afternoon drink of choice?",
    },
    {
      e: {
        user: "For holidays I much prefer mountains and hiking over lying on a beach.",
        assistant: "Mountain trips are great for that mix of exercise and scenery.",
      },
      q: "Do I prefer beach holidays or something else?",
    },
    {
      e: {
        user: "I like my steak medium-rare, anything more and it's ruined for me.",
        assistant: "Medium-rare keeps it juicy; resting it for five minutes helps too.",
      },
      q: "How do I want my steak cooked?",
    },
    {
      e: {
        user: "I work best with music on, mostly lo-fi or film soundtracks, never anything with lyrics.",
        assistant: "Instrumental music is easier on focus for many people.",
      },
      q: "What music do I listen to while working?",
    },
    {
      e: {
        user: "I'd rather get a text than a phone call, calls stress me out a bit.",
        assistant: "Lots of people feel that way; a quick message first gives time to think.",
      },
      q: "How do I like people to contact me?",
    },
    {
      e: {
        user: "My favourite cuisine is Vietnamese, I could eat pho every week.",
        assistant: "Pho is so comforting, and the fresh herbs make it.",
      },
      q: "What's the food I love most?",
    },
    {
      e: {
        user: "I'm a morning person, I do my best thinking before 9am.",
        assistant: "Then it makes sense to protect those early hours for the hard work.",
      },
      q: "When in the day am I sharpest?",
    },
    {
      e: {
        user: `${p.partner.name} and I like quiet restaurants, loud places ruin the evening for us.`,
        assistant: "Booking an early table often helps, before the busy rush.",
      },
      q: "What sort of restaurants do we enjoy?",
    },
    {
      e: {
        user: "I like reading on paper, e-readers never felt right to me.",
        assistant: "There's something about a physical book; second-hand shops keep it affordable.",
      },
      q: "Do I read e-books?",
    },
    {
      e: {
        user: "When I exercise I'd rather be outdoors, gyms feel claustrophobic.",
        assistant: "Outdoor workouts have the bonus of fresh air and daylight.",
      },
      q: "Where do I prefer to work out?",
    },
    {
      e: {
        user: "I'm more of a dog person than a cat person, always have been.",
        assistant: "Dogs do bring a particular kind of joyful chaos.",
      },
      q: "Which animals do I like better?",
    },
    {
      e: {
        user: "For presents I'd rather get experiences, like a concert, than things.",
        assistant: "Experiences make lasting memories and don't clutter the house.",
      },
      q: "What kind of gifts do I like receiving?",
    },
    {
      e: {
        user: "I hate cilantro, it tastes like soap to me.",
        assistant: "That's a genuine genetic thing for some people! Parsley or basil are good swaps.",
      },
      q: "Is there a herb I can't stand?",
    },
    {
      e: {
        user: "I like to plan trips in detail, spreadsheets and all, I can't do spontaneous travel.",
        assistant: "A detailed plan can make a trip far more relaxing for you, then.",
      },
      q: "Am I a spontaneous traveller?",
    },
    {
      e: {
        user: "I can't stand lukewarm showers, I like the water almost scalding.",
        assistant: "Fair enough; just finish with a few seconds of cooler water if your skin gets dry.",
      },
      q: "What temperature do I want the water when I wash in the morning?",
    },
    {
      e: {
        user: "Even at weekends I'm up early, I like being out on a run before seven.",
        assistant: "The streets are lovely and quiet then, and the rest of the day feels like a bonus.",
      },
      q: "Am I someone who sleeps in on Saturdays?",
    },
    {
      e: {
        user: "I keep my to-do list in a paper notebook, apps never stick for me.",
        assistant: "Writing things by hand helps many people remember them; a dated page per day works well.",
      },
      q: "Do I keep my tasks on my phone?",
    },
    {
      e: {
        user: "For anything under half an hour on foot I'd rather walk than take the bus.",
        assistant: "It adds up to a lot of easy exercise over a week.",
      },
      q: "How do I get around for short trips in town?",
    },
  ];
}

export function inferences(p: Persona): SingleItem[] {
  return [
    {
      e: {
        user: "Our flat is on the fifth floor and the building has no lift.",
        assistant: "Great exercise, though deliveries must be a workout.",
      },
      q: "Will getting a heavy sofa delivered be a hassle for us?",
    },
    {
      e: {
        user: "I've stopped drinking alcohol completely since January and I feel great.",
        assistant: "That's a real achievement, and a lot of people notice better sleep.",
      },
      q: "Should I bring a bottle of wine for myself to the party?",
    },
    {
      e: {
        user: "I get terribly seasick, even on the ferry across the bay.",
        assistant: "Ginger and looking at the horizon help some people; ask a pharmacist about tablets too.",
      },
      q: "Is a three-day sailing trip a good idea for me?",
    },
    {
      e: {
        user: `${p.partner.name} is training for a triathlon, so weekends are all early swims and long bike rides.`,
        assistant: "That's a big commitment, it helps that you're supportive.",
      },
      q: `Will ${p.partner.name} be free for a Saturday morning brunch soon?`,
    },
    {
      e: {
        user: "I'm lactose intolerant, even a latte gives me trouble.",
        assistant: "Lactose-free milk or oat milk are easy swaps.",
      },
      q: "Would a creamy cheesecake be a safe dessert for me?",
    },
    {
      e: {
        user: "Our landlord doesn't allow any pets in the building, it's in the contract.",
        assistant: "That's a shame; fostering through a shelter is out too, but volunteering could be an option.",
      },
      q: "Could we adopt a kitten this spring?",
    },
    {
      e: {
        user: "I'm scared of heights, even a stepladder makes my knees shake.",
        assistant: "That's very common; small, gradual steps can reduce it over time.",
      },
      q: "Would a glass-floor skywalk be a fun outing for me?",
    },
    {
      e: {
        user: "I don't have a driving licence, I take the train everywhere.",
        assistant: "Trains are relaxing, and you can read on the way.",
      },
      q: "Can I rent a car for the road trip and drive it myself?",
    },
    {
      e: {
        user: "My laptop is a 2013 MacBook Air and it struggles with anything heavy.",
        assistant: "Older machines can still do light work well; an SSD upgrade sometimes helps.",
      },
      q: "Will the latest video editing software run well on my computer?",
    },
    {
      e: {
        user: "I work night shifts at the hospital, 8pm to 8am, four nights a week.",
        assistant: "Night shifts are tough; blackout curtains and a fixed sleep window help.",
      },
      q: "Is a 9am weekday yoga class realistic for me?",
    },
    {
      e: {
        user: "We only have a tiny balcony, north facing, barely any sun.",
        assistant: "Shade-tolerant plants like ferns and mint can still do well there.",
      },
      q: "Could I grow tomatoes and peppers at home?",
    },
    {
      e: {
        user: "I'm colour-blind, reds and greens look almost the same to me.",
        assistant: "That's common, about one man in twelve. Some phone settings can help tell them apart.",
      },
      q: "Should I be the one sorting the ripe strawberries from the unripe ones at the farm?",
    },
    {
      e: {
        user: "My back is bad again; the physio said no lifting anything over ten kilos for a month.",
        assistant: "Follow that strictly, and keep up the gentle exercises she gave you.",
      },
      q: "Can I help my friend carry his furniture up the stairs when he moves next week?",
    },
    {
      e: {
        user: "We're on a strict budget until the end of the year, every penny goes to the house deposit.",
        assistant: "A clear goal makes the saving easier. A tracking app can show how close you are.",
      },
      q: "Is a weekend at a luxury resort a sensible treat for us this autumn?",
    },
    {
      e: {
        user: "Loud noises really get to me; fireworks leave me rattled for hours.",
        assistant: "Good earplugs can help, and it's fine to skip the loud events altogether.",
      },
      q: "Would front-row tickets for a stadium rock show be fun for me?",
    },
    {
      e: {
        user: "I never learned to swim as a kid and I'm nervous in deep water.",
        assistant: "Adult beginner lessons exist everywhere and are very patient with nervous swimmers.",
      },
      q: "Is snorkelling over the reef something I could do on holiday?",
    },
    {
      e: {
        user: "I'm allergic to bee stings, I carry antihistamines all summer.",
        assistant: "Sensible. Check with your doctor whether you should carry an adrenaline pen as well.",
      },
      q: "Should I volunteer to help collect honey from the hives at the community garden?",
    },
    {
      e: {
        user: "Flashing lights give me migraines, even a flickering bulb can set one off.",
        assistant: "Note the triggers in a diary; it helps your doctor find the right prevention.",
      },
      q: "Is a laser light show a good birthday outing for me?",
    },
    {
      e: {
        user: "I don't eat anything spicy, my stomach can't take chilli at all.",
        assistant: "Plenty of cuisines are full of flavour without heat: herbs, garlic and citrus do a lot.",
      },
      q: "Would a vindaloo night at the curry house suit me?",
    },
    {
      e: {
        user: "I get claustrophobic in small spaces, lifts and tunnels make me panic.",
        assistant: "Slow breathing helps in the moment, and a therapist can help with gradual exposure.",
      },
      q: "Is an escape room a good team outing for me?",
    },
  ];
}

/** Turns whose right answer is no memory at all: general knowledge, coding, writing, unknown people. */
export const UNANSWERABLE: string[] = [
  "How do I center a div horizontally and vertically with CSS?",
  "Write a haiku about the first snow.",
  "What is the capital of Australia?",
  "Explain the difference between TCP and UDP.",
  "Write a Python function that reverses a linked list.",
  "What did my cousin Bartholomew say about his trip to Reykjavik?",
  "How many bones are in the human body?",
  "Draft a short cover letter for a junior accountant role.",
  "What's the boiling point of water at high altitude?",
  "When is Gwendolyn's violin recital?",
  "How do I write a SQL query that finds duplicate rows?",
  "Give me three rhymes for 'orange'.",
  "Who wrote One Hundred Years of Solitude?",
  "What did I decide about the kayak I was going to buy?",
  "Explain recursion to a ten-year-old.",
  "Write a limerick about a cat who loves jazz.",
  "What is the speed of light in a vacuum?",
  "How is my uncle Thaddeus doing after his surgery?",
  "What's the difference between let and const in JavaScript?",
  "Summarise the plot of Hamlet in two sentences.",
  "Why do onions make you cry?",
  "Did Percival ever return the drill he borrowed?",
  "How do I undo the last git commit but keep the changes?",
  "Write a toast for a retirement party.",
  "How many time zones does Russia have?",
  "What was the name of the llama farm we visited?",
  "What's a regular expression for validating an email address?",
  "Compose a two-line poem about coffee.",
  "What causes the northern lights?",
  "When did Ophelia start her job at the observatory?",
  "How do I convert a string to a number in Rust?",
  "Write a product description for a bamboo toothbrush.",
  "Which planet has the most moons?",
  "What did the plumber named Ignatius quote for the boiler?",
  "Explain what a closure is in programming.",
  "Suggest a title for a blog post about minimalism.",
  "How tall is Mount Kilimanjaro?",
  "How did my saxophone audition go?",
  "What's the time complexity of quicksort?",
  "Write a thank-you note to a teacher.",
  "What is the tallest building in the world?",
  "What did Cornelius think of the new restaurant?",
  "How do I make a bash script executable?",
  "Write a short bedtime story about a brave snail.",
  "Who invented the telephone?",
  "How much did we pay for the hot tub?",
  "What is a monad, briefly?",
  "Give me an opening line for a mystery novel.",
  "What's the chemical symbol for gold?",
  "Write a short poem about the sea at night.",
  "How do I reverse a string in JavaScript?",
  "What did my aunt Philippa think of the wedding venue?",
  "Explain how a refrigerator keeps food cold.",
  "Translate 'good morning' into Japanese.",
  "When is Barnaby's housewarming party?",
  "How do I centre a table in LaTeX?",
  "Who painted Girl with a Pearl Earring?",
  "Write a two-sentence horror story.",
  "How did the meeting with the architect Leopold go?",
  "What's the difference between weather and climate?",
  "How do I list the open ports on a Linux machine?",
  "Draft a polite message declining a dinner invitation.",
  "What did we name the sailing boat?",
  "What's the largest desert in the world?",
  "How do I stop a pandas DataFrame from printing in scientific notation?",
  "Write a wedding toast for my best friend's brother, warm but short.",
  "What is the population of Canada?",
  "What did my colleague Evander say about the quarterly targets?",
  "Explain how vaccines train the immune system.",
  "Write a haiku about a lighthouse in fog.",
  "How do I read a CSV file line by line in Go?",
  "When is Rosalind's book launch?",
  "What's the difference between a virus and a bacterium?",
  "Draft an email asking my landlord to fix the intercom.",
  "How did my brother-in-law Casimir's marathon go?",
  "What year did the Berlin Wall fall?",
  "How do I set an environment variable in PowerShell?",
  "Write a limerick about a forgetful wizard.",
  "What did the vet say about our parrot's feathers?",
  "How does compound interest work?",
  "What's the difference between an interface and a type in TypeScript?",
  "Suggest five names for a bakery that only sells pies.",
  "Which ferry did we take to the island last summer?",
  "Why is the ocean salty?",
  "How do I make a Docker container restart automatically?",
  "Write a short speech for a school prize-giving.",
  "What did my godmother Winifred send for my birthday?",
  "How far is the Moon from the Earth?",
  "Explain the difference between a process and a thread.",
  "Give me a tagline for a cycling club.",
  "How much did the roof repair on the cabin cost?",
  "What is photosynthesis, in one paragraph?",
  "How do I squash the last three commits in git?",
  "Write a sympathy card message for a neighbour who lost her dog.",
  "Did my friend Lysander get the flat in Glasgow?",
  "What are the primary colours of light?",
  "How do I write a unit test for an async function in Jest?",
  "Compose a four-line poem about autumn leaves.",
  "What did the mechanic say about the motorbike's brakes?",
  "Who discovered penicillin?",
  "What's the fastest way to sort a list of tuples by the second item in Python?",
  "Draft a LinkedIn post announcing a new job, modest tone.",
  "How is my grandmother Ottoline settling into the care home?",
  "Why do cats purr?",
  "How do I centre an image in Markdown?",
  "Write a short apology for missing a friend's birthday party.",
  "What was the name of the hotel we stayed at in Porto?",
  "How many players are on a rugby union team?",
  "Explain what a hash table is.",
  "Give me a riddle with a clever answer.",
  "What did my tutor Ambrose think of my essay draft?",
  "What's the melting point of iron?",
  "How do I find the largest files on a Mac from the terminal?",
  "Write an out-of-office reply for a two-week holiday.",
  "When is the next meeting of our chess society?",
  "What causes thunder?",
  "How do I debounce an input in React?",
  "Suggest a name for a grey kitten.",
  "What did we decide about the kitchen tiles?",
  "Who was the first woman to win a Nobel Prize?",
  "What is Big O notation, briefly?",
  "Write a two-line rhyme for a birthday card.",
  "How did my niece Clementine do in her piano exam?",
  "How long does light from the Sun take to reach Earth?",
  "How do I pretty-print JSON with jq?",
  "Draft a note to a neighbour about a parcel they took in for me.",
  "Which campsite did we book for the May bank holiday?",
  "What is the longest river in Africa?",
];
