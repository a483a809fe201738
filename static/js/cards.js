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

/** "1 card", "3 cards": a count with its noun, singular or plural. */
export function plural(n, noun) {
  return `${n} ${noun}${Math.abs(n) === 1 ? "" : "s"}`;
}

/** The hand's cards as codes, less one of each code in `gone` (a multiset difference). */
export function added(after, before) {
  const left = [...before];
  return after.filter((code) => {
    const at = left.indexOf(code);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

/**
 * Why the selected hand cards `codes` make no play now, in words, or "" when there is nothing
 * to say. `legal` is the view's list, `phase` the view's (`draw` or `play`), `mine` whether it
 * is the reader's turn, `required` the card a deep take obliges them to meld, `setMax` the
 * largest set the rules allow (4, or 8 with two decks unless sets need distinct suits).
 */
export function why(codes, { legal, phase, mine, required, setMax = 4 }) {
  if (codes.length === 0) return "";
  if (!mine) return "wait for your turn";
  if (phase === "draw") return "draw first: from the stock or the discard pile";
  const plays = legal.filter((a) => a.type === "meld" || a.type === "layoff" || a.type === "discard");
  if (plays.some((a) => (a.type === "discard" ? codes.length === 1 && a.card === codes[0] : sameCards(a.cards, codes)))) {
    return "";
  }
  if (codes.length === 1) {
    if (required && legal.every((a) => a.type !== "discard")) return `meld the ${face(required).name} you took before you discard`;
    return "this card fits no meld, and you may not discard it now";
  }
  if (codes.length === 2) return "a meld needs three or more cards; choose one card to discard";
  const cards = codes.map(parseCard).filter(Boolean);
  const ranks = new Set(cards.map((c) => c.rank));
  const suits = new Set(cards.map((c) => c.suit));
  if (ranks.size === 1) {
    if (codes.length > setMax) return `a set needs three or ${setMax === 4 ? "four" : setMax} cards of one rank`;
    return "a set of this rank fits no rule just now";
  }
  if (suits.size === 1) return "a run needs three or more cards of one suit in sequence";
  if (ranks.size > 1 && suits.size > 1) {
    return "a set needs three or four cards of one rank; a run, three or more of one suit in sequence";
  }
  return "these cards make no meld and fit no meld on the table";
}
