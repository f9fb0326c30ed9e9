/**
 * An owner's reward inside a sentence of ours: "get a free coffee", not "get A free coffee" (issue 30, item 7).
 * Owners type it as a line of its own ('A free coffee of your choice'), so its first capital belongs to the start of
 * a line, not to a sentence of ours. A name cannot be told from an ordinary word ("Lavazza espresso" must stay), so
 * only the words a reward usually starts with are lowered, and only when written as an ordinary capitalised word:
 * "A free coffee" → "a free coffee", "Free cake" → "free cake"; "Lavazza espresso", "PB&J", "10% off" stay as typed.
 * Lines of their own ('Reward: A free coffee', the card preview, the poster) keep the owner's words as typed.
 */
const ORDINARY_STARTS = new Set([
  'a',
  'an',
  'the',
  'one',
  'two',
  'three',
  'free',
  'any',
  'your',
  'our',
  'half',
  'double',
  'extra',
  'discount',
  'off',
  'buy',
  'get',
  'gift',
  'complimentary',
])

export function rewardInSentence(reward: string): string {
  const text = reward.trim()
  const first = /^\p{Lu}\p{Ll}*/u.exec(text)?.[0]
  if (!first || !ORDINARY_STARTS.has(first.toLowerCase())) return text
  return first.toLowerCase() + text.slice(first.length)
}
