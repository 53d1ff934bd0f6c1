"""The 256 words of table authentication strings: short, common, easy to say aloud and hard to
confuse. The order is part of the protocol (a word's index is a byte value); never reorder or edit
this list without bumping PROTOCOL_VERSION."""

WORDS: tuple[str, ...] = (
    "acorn", "actor", "adobe", "agent", "alarm", "album", "alley", "amber", "angle", "ankle",
    "apple", "apron", "arch", "arena", "arrow", "atlas", "attic", "axis", "bacon", "badge",
    "bagel", "baker", "bamboo", "banjo", "barn", "basin", "beach", "beard", "bell", "belt",
    "bench", "berry", "bison", "blade", "blimp", "bloom", "board", "boat", "bolt", "bone", "boot",
    "bowl", "brass", "bread", "brick", "broom", "brush", "bucket", "bulb", "bunny", "cabin",
    "cable", "cactus", "cake", "camel", "canal", "candy", "canoe", "cape", "cargo", "carpet",
    "castle", "cedar", "chalk", "cheese", "cherry", "chess", "chief", "chip", "cider", "clay",
    "cliff", "clock", "cloud", "clover", "coast", "cobra", "cocoa", "comet", "coral", "corn",
    "cotton", "cow", "crane", "crown", "cube", "cup", "daisy", "dance", "desk", "dock", "dolphin",
    "donut", "dragon", "drum", "duck", "eagle", "echo", "elbow", "elk", "ember", "emu", "engine",
    "fable", "falcon", "farm", "feather", "fern", "ferry", "field", "fig", "flag", "flame",
    "flute", "foam", "fog", "forest", "fox", "frog", "fudge", "garden", "gecko", "giant",
    "ginger", "glacier", "globe", "glove", "goat", "gold", "goose", "grape", "guitar", "gull",
    "hammer", "harbor", "harp", "hat", "hazel", "helmet", "heron", "hill", "hippo", "honey",
    "hook", "horse", "igloo", "ink", "iris", "island", "jaguar", "jam", "jazz", "jelly", "jewel",
    "juice", "kayak", "kettle", "kiwi", "koala", "ladder", "lake", "lamp", "lemon", "lens",
    "lily", "lime", "lion", "lizard", "llama", "lotus", "magnet", "mango", "maple", "marble",
    "meadow", "melon", "mint", "moose", "moth", "mouse", "mug", "mule", "needle", "nest", "nut",
    "oak", "oasis", "ocean", "olive", "onion", "opal", "orbit", "otter", "owl", "oyster", "panda",
    "paper", "parrot", "peach", "pearl", "pebble", "pepper", "piano", "pilot", "pine", "pizza",
    "planet", "plum", "pond", "poppy", "prism", "pump", "puppy", "quail", "quartz", "rabbit",
    "radar", "radio", "raft", "raven", "reef", "rhino", "ribbon", "river", "robot", "rocket",
    "rose", "ruby", "salad", "salmon", "sand", "scarf", "seal", "shark", "sheep", "shell",
    "silver", "snail", "spoon", "squid", "star", "stone", "sugar", "swan", "tiger", "tomato",
    "torch", "tulip", "turtle", "unicorn", "valley", "violin", "wagon", "walnut", "whale",
    "zebra",
)

assert len(WORDS) == 256 and len(set(WORDS)) == 256
