// Cards as PROTOCOL.md writes them ("10H", "AS", "*" for a joker in hand, "*9S" for a joker
// played as the nine of spades), how they look, how a hand sorts, and which legal action a
// selection of cards makes.

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_NAMES = { A: "ace", J: "jack", Q: "queen", K: "king" };
const SUITS = {
  S: { symbol: "\u2660", name: "spades" },
  H: { symbol: "\u2665", name: "hearts" },
  C: { symbol: "\u2663", name: "clubs" },
  D: { symbol: "\u2666", name: "diamonds" },
};
// Alternating colours when the hand is sorted by suit: spades, hearts, clubs, diamonds.
const SUIT_ORDER = Object.keys(SUITS);

/** Rank and suit of a natural card; null for a joker. */
export function parseCard(code) {
  if (code.startsWith("*")) return null;
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** What a card shows: its rank, suit symbol, colour and a spoken name. */
export function face(code) {
  const card = parseCard(code);
  if (!card) return { rank: "*", symbol: "", red: false, name: "joker" };
  const suit = SUITS[card.suit];
  const rank = RANK_NAMES[card.rank] ?? card.rank;
  return {
    rank: card.rank,
    symbol: suit.symbol,
    red: card.suit === "H" || card.suit === "D",
    name: `${rank} of ${suit.name}`,
  };
}

/** The hand with a stable key per card ("7S#0", "7S#1" when two decks hold two). */
export function handEntries(hand) {
  const seen = {};
  return hand.map((code) => {
    seen[code] = (seen[code] ?? -1) + 1;
    return { code, key: `${code}#${seen[code]}` };
  });
}

function order(code, by) {
  const card = parseCard(code);
  if (!card) return [99, 99]; // jokers last
  const rank = RANKS.indexOf(card.rank);
  const suit = SUIT_ORDER.indexOf(card.suit);
  return by === "rank" ? [rank, suit] : [suit, rank];
}

/** A sorted copy of hand entries, "suit" (then rank) or "rank" (then suit). */
export function sortEntries(entries, by) {
  return [...entries].sort((a, b) => {
    const [x, y] = [order(a.code, by), order(b.code, by)];
    return x[0] - y[0] || x[1] - y[1];
  });
}

// A joker in a legal action is written with the card it stands for; in the hand it is "*".
const inHand = (code) => (code.startsWith("*") ? "*" : code);
const sameCards = (a, b) =>
  a.length === b.length && a.map(inHand).sort().join() === b.map(inHand).sort().join();

/**
 * The first legal action of `type` ("meld" or "layoff", onto meld `meld`) that plays exactly
 * the hand cards `codes`, in any order; undefined when there is none.
 */
export function matchPlay(legal, type, codes, meld) {
  if (codes.length === 0) return undefined;
  return legal.find(
    (a) => a.type === type && (meld === undefined || a.meld === meld) && sameCards(a.cards, codes),
  );
}
