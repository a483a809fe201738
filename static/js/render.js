// DOM builders for the parts of the table page that change with every state: seat plates, the
// discard pile, melds, scores, deals, the hand-over summary, the game over panel and the move
// log's lines. They build nodes; table.js decides what to draw and when.

import { face, plural } from "./cards.js";
import { frozen, mmss } from "./clock.js";

/** A new element: `props` become attributes (`on*` listeners, `class`, `dataset`, `style`). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name === "style") for (const [k, v] of Object.entries(value)) node.style.setProperty(k, v);
    else node.setAttribute(name, String(value));
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

const playerUrl = (name) => `/players/${encodeURIComponent(name)}/`;

function faceNodes(code) {
  const f = face(code);
  return [el("span", { class: "rank" }, f.rank), el("span", { class: "suit" }, f.symbol)];
}

/** The card's classes: red suits, and the suit itself for the four-colour deck. */
export function cardClass(code, extra = "") {
  const suit = code.startsWith("*") ? "" : ` s-${code.slice(-1)}`;
  return `card${face(code).red ? " red" : ""}${suit}${extra ? ` ${extra}` : ""}`;
}

/** A card as a toggle button (`pressed`), named by its spoken name: a hidden text rather than
 * a label, so what is seen (7♣) is part of what is said ("7 of clubs"). */
export function cardButton(code, { key, pressed, label, extra, onclick, tabindex }) {
  return el(
    "button",
    {
      type: "button",
      class: cardClass(code, extra),
      "aria-pressed": pressed === undefined ? undefined : String(pressed),
      tabindex,
      dataset: { key, card: code },
      onclick,
    },
    faceNodes(code),
    el("span", { class: "sr-only" }, label ?? face(code).name),
  );
}

/** A card nobody may click (the discard pile as a spectator sees it). */
export function cardTile(code, extra) {
  if (typeof extra !== "string") extra = ""; // called by Array.map too, with an index
  return el("span", { class: cardClass(code, extra), role: "img", "aria-label": face(code).name, dataset: { card: code } }, faceNodes(code));
}

/** A card of a meld: a joker shows `*` and the card it stands for; each is marked with its
 * player's seat colour and names them in its title and label. */
function meldCard({ card, as, by }, seatOf, tail = true) {
  const joker = card === "*";
  const name = joker ? `joker as ${face(as).name}` : face(card).name;
  const shown = joker ? [el("span", { class: "rank" }, "*"), el("span", { class: "as" }, as)] : faceNodes(card);
  const seat = `seat-${seatOf(by)}`;
  return el(
    "span",
    { class: cardClass(joker ? as : card, `${joker ? "joker " : ""}${seat}`), role: "img", title: `${name}, laid by ${by}`, "aria-label": `${name}, laid by ${by}` },
    shown,
    el("span", { class: tail ? "by tail" : "by", "aria-hidden": "true" }, by),
  );
}

/** A meld's cards; the name on each stripe is shown once, on the last card of each player's run
 * (the cards overlap, so the others would show a letter or two of it). */
function meldCards(cards, seatOf) {
  return cards.map((c, i) => meldCard(c, seatOf, i === cards.length - 1 || cards[i + 1].by !== c.by));
}

/** One meld: a toggle button choosing it for a lay-off (players), plain for spectators. */
export function meld(m, { choosable, chosen, fresh, seatOf = () => 0, onclick }) {
  const head = el("span", { class: "meld-head" }, `#${m.id} ${m.kind}`);
  const cards = el("span", { class: "meld-cards" }, meldCards(m.cards, seatOf));
  const cls = fresh ? "meld fresh" : "meld";
  if (!choosable) return el("li", { class: cls, dataset: { meld: m.id } }, head, cards);
  const button = el(
    "button",
    { type: "button", class: "meld-button", "aria-pressed": String(chosen), dataset: { key: `meld:${m.id}` }, onclick },
    head,
    cards,
  );
  return el("li", { class: cls, dataset: { meld: m.id } }, button);
}

/**
 * The mover's clock: frozen while paused, else counting down (table.js ticks every element with
 * a `data-deadline`), or a plain "to play" when the turn has no deadline; a bar beside it shrinks.
 */
function moverClock(name, clock, deadline) {
  const bar = el("span", { class: "clock-bar", "aria-hidden": "true" }, el("span", { class: "fill" }));
  if (clock?.paused) {
    const bank = clock.banks?.[name] ?? 0;
    const shown = frozen(clock.remaining, bank);
    const left = shown.bank ? (clock.remaining ?? 0) / (bank || 1) : ((clock.remaining ?? 0) - bank) / (clock.turn_seconds || 1);
    return el("span", { class: "clockbox", style: { "--left": String(Math.max(0, Math.min(1, left))) } }, bar, el("span", { class: shown.bank ? "clock bank paused" : "clock paused" }, shown.text));
  }
  if (!deadline) return el("span", { class: "clockbox" }, el("span", { class: "clock" }, "to play"));
  const data = {
    deadline,
    turnEnds: clock?.turn_ends ?? "",
    breakEnds: clock?.break_ends ?? "", // the turn starts when the break between hands ends
    turnSeconds: clock?.turn_seconds ?? "",
    bank: clock?.banks?.[name] ?? 0,
  };
  return el("span", { class: "clockbox", dataset: data }, bar, el("span", { class: "clock", dataset: data }, "to play"));
}

/** A player's time bank as of the turn's start, on tables that give one. */
function bankLeft(name, clock) {
  if (!clock?.time_bank_seconds) return null;
  const left = clock.banks?.[name] ?? 0;
  return el("span", { class: "bank-left", title: "time bank left" }, `bank ${mmss(left)}`);
}

/** A small fan of card backs, as many as the player holds (up to seven drawn). */
function fan(size) {
  return el("span", { class: "fan", "aria-hidden": "true" }, Array.from({ length: Math.min(size, 7) }, () => el("span", { class: "back" })));
}

/** What a seat's chance of finishing first says, on its plate and in the game-over panel. */
export const CHANCE_TITLE = "chance of finishing first, from the ratings before the game";

/** A chance (0 to 1) in whole percents; "<1 %" and ">99 %" rather than a 0 or a 100, which
 * would say impossible or certain. The no-break space keeps the number with its sign. */
export function percent(p) {
  const whole = Math.round(p * 100);
  if (whole < 1) return "<1\u00a0%";
  if (whole > 99) return ">99\u00a0%";
  return `${whole}\u00a0%`;
}

/** The plate's last lines (the mover's clock, the bank, the badges) with the chance of finishing
 * first at the right of one of them: the clock's time (the bank is hidden on a phone), else the
 * last line, else a line of its own. So no plate grows taller with a chance than a plate could
 * without one, and the strip of plates on a phone no taller at all while someone is to move. */
function plateFoot([clockbox, ...rest], chance) {
  const shown = [clockbox, ...rest].filter(Boolean);
  if (chance === undefined) return shown;
  const note = el("span", { class: "chance", title: CHANCE_TITLE }, `${percent(chance)} to win`);
  if (shown.length === 0) return [note];
  const host = clockbox ?? shown.at(-1);
  return shown.map((line) => (line === host ? el("span", { class: "plate-foot" }, line, note) : line));
}

/**
 * A seat plate: connection, name (a link to their page), rating, the cards they hold, score,
 * the chance of finishing first (rated games), bank, badges, and the clock with a ring round the
 * plate of the player to move. `place` gives the plate's spot round the felt (`--x`, `--y`
 * percentages, or "me" at the bottom).
 */
export function plate(p, { view, clock, deadline, rating, chance, seat, place }) {
  const turn = p.name === view.turn && view.phase !== "game_over";
  const size = Array.isArray(p.hand) ? p.hand.length : p.hand;
  const online = p.connected ? "connected" : "not connected";
  const cls = ["player", `seat-${seat}`, turn && "turn", place.me && "me"].filter(Boolean).join(" ");
  const shownRating = rating ? `${rating.rating}${rating.provisional ? "?" : ""}` : null;
  return el(
    "li",
    {
      class: cls,
      "aria-current": turn ? "true" : null,
      dataset: { player: p.name },
      style: place.me ? {} : { "--x": `${place.x}%`, "--y": `${place.y}%` },
    },
    el(
      "span",
      { class: "plate-head" },
      el("span", { class: p.connected ? "dot on" : "dot", role: "img", title: online, "aria-label": online }),
      el("a", { href: playerUrl(p.name), class: "name" }, p.name),
      shownRating ? el("span", { class: "rating", title: rating.provisional ? "rating (provisional)" : "rating" }, shownRating) : null,
    ),
    el("span", { class: "plate-body" }, fan(size), el("span", { class: "meta" }, `${plural(size, "card")} · ${plural(p.score, "point")}`)),
    plateFoot(
      [
        turn ? moverClock(p.name, clock, deadline) : null,
        bankLeft(p.name, clock),
        p.absent ? el("span", { class: "badge absent", title: "their turns are played by the server" }, "absent") : null,
        !p.connected && !p.absent ? el("span", { class: "badge away", title: "not connected" }, "away") : null,
      ],
      chance,
    ),
  );
}

const signed = (n) => (n > 0 ? `+${n}` : String(n));

/** The scores table: a row per finished hand (net, melded, in hand), then the totals. */
export function scores(view) {
  const names = view.players.map((p) => p.name);
  const cell = (hand, name) => {
    const s = hand.scores[name];
    const out = hand.went_out === name ? ", went out" : "";
    return el("td", { title: `${s.melded} melded, ${s.in_hand} in hand${out}` }, signed(s.net), hand.went_out === name ? el("small", {}, " out") : null);
  };
  const rows = view.hands.map((h) =>
    el("tr", { dataset: { hand: h.number } }, el("th", { scope: "row" }, `Hand ${h.number}`), names.map((n) => cell(h, n))),
  );
  if (rows.length === 0) {
    rows.push(el("tr", {}, el("td", { colspan: names.length + 1 }, "No hand has been scored yet.")));
  }
  return [
    el("caption", { class: "sr-only" }, "Points per hand and totals"),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Hand"), names.map((n) => el("th", { scope: "col" }, n)))),
    el("tbody", {}, rows),
    el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Total"), view.players.map((p) => el("td", {}, String(p.score))))),
  ];
}

/** Each hand's commitment, and its seed with the command that re-deals it once revealed. */
export function deals(view, rules) {
  const names = view.players.map((p) => p.name).join(",");
  const options = rules ? ` --rules '${JSON.stringify(rules)}'` : "";
  return view.deals.map((d) =>
    el(
      "li",
      { dataset: { hand: d.hand } },
      `Hand ${d.hand}: commitment `,
      el("code", { class: "hex" }, d.commitment),
      d.seed
        ? [", seed ", el("code", { class: "hex" }, d.seed), el("br"), el("code", { class: "command" }, `python -m games.engine verify-deal ${d.seed} ${names} ${d.hand}${options}`)]
        : " (the seed is shown once the hand is over)",
    ),
  );
}

/** Final placements as the server placed them (the view's `placements`, best first). */
export function placements(view) {
  return (view.placements ?? []).map((p) => el("li", { value: p.place }, el("a", { href: playerUrl(p.player) }, p.player), `: ${plural(p.score, "point")}`));
}

/** Rating changes of a finished rated table (contract C's `ratings`), in the placements' order,
 * with each player's chance of finishing first beside them when the page has them. */
export function ratingRows(view, ratings, chances) {
  const order = (view.placements ?? []).map((p) => p.player);
  const names = order.length ? order : Object.keys(ratings);
  const head = (h) => el("th", { scope: "col", title: h === "Chance" ? CHANCE_TITLE : null }, h);
  return [
    el("caption", {}, "Ratings"),
    el("thead", {}, el("tr", {}, (chances ? ["Player", "Chance", "Change", "New rating"] : ["Player", "Change", "New rating"]).map(head))),
    el(
      "tbody",
      {},
      names
        .filter((n) => ratings[n])
        .map((n) => {
          const r = ratings[n];
          const cls = r.change > 0 ? "up" : r.change < 0 ? "down" : "";
          return el(
            "tr",
            { dataset: { player: n } },
            el("th", { scope: "row" }, el("a", { href: playerUrl(n) }, n)),
            chances ? el("td", { class: "chance" }, n in chances ? percent(chances[n]) : "") : null,
            el("td", { class: cls }, signed(r.change)),
            el("td", {}, `${r.after}${r.provisional ? "?" : ""}`),
          );
        }),
    ),
  ];
}

/** The rematch offer (contract C's `rematch`): who accepted or declined, until when, and the
 * Rematch and Decline buttons for a seated player who has not answered yet. */
export function rematch(offer, { you, seated, now, onanswer }) {
  if (!offer) {
    return seated ? [el("button", { type: "button", id: "rematch-yes", onclick: () => onanswer(true) }, "Rematch")] : [];
  }
  const said = [...offer.accepted, ...offer.declined];
  const parts = [];
  if (offer.accepted.length) parts.push(`accepted: ${offer.accepted.join(", ")}`);
  if (offer.declined.length) parts.push(`declined: ${offer.declined.join(", ")}`);
  const over = offer.declined.length > 0 || (offer.expires && Date.parse(offer.expires) <= now);
  if (offer.table) parts.push("the new table is ready");
  else if (over) parts.push("the rematch is off");
  else if (offer.expires) parts.push(`open for ${mmss((Date.parse(offer.expires) - now) / 1000)}`);
  const answer = seated && !over && !offer.table && !said.includes(you);
  const state = el("p", { class: "rematch-state" }, `Rematch: ${parts.join("; ")}.`);
  // Nodes only: the caller hands them to replaceChildren, which would write a null as "null".
  if (!answer) return [state];
  return [
    state,
    el("button", { type: "button", id: "rematch-yes", onclick: () => onanswer(true) }, "Rematch"),
    el("button", { type: "button", id: "rematch-no", class: "quiet", onclick: () => onanswer(false) }, "Decline"),
  ];
}

/** The summary of the hand just over (contract B's `last_hand`): each player's melds, the cards
 * left in their hand, melded / in hand / net, who went out, and the totals. */
export function handSummary(last, names, seatOf) {
  const meldsOf = (name) => last.melds.filter((m) => m.cards.some((c) => c.by === name));
  const cardsOf = (name) =>
    meldsOf(name).map((m) =>
      el("span", { class: "mini-meld" }, meldCards(m.cards.filter((c) => c.by === name), seatOf)),
    );
  const left = (name) => {
    const cards = last.left?.[name] ?? [];
    if (cards.length === 0) return "none";
    return el("span", { class: "mini-meld" }, cards.map((c) => (c === "*" ? el("span", { class: "card joker", role: "img", "aria-label": "joker" }, "*") : cardTile(c))));
  };
  return [
    el("caption", { class: "sr-only" }, `Hand ${last.number}`),
    el("thead", {}, el("tr", {}, ["Player", "Melded cards", "Left in hand", "Melded", "In hand", "Net", "Total"].map((h) => el("th", { scope: "col" }, h)))),
    el(
      "tbody",
      {},
      names.map((n) => {
        const s = last.scores?.[n] ?? { melded: 0, in_hand: 0, net: 0 };
        return el(
          "tr",
          { dataset: { player: n } },
          el("th", { scope: "row" }, n, last.went_out === n ? el("span", { class: "badge out" }, "went out") : null),
          el("td", {}, cardsOf(n)),
          el("td", {}, left(n)),
          el("td", {}, String(s.melded)),
          el("td", {}, s.in_hand ? `\u2212${s.in_hand}` : "0"),
          el("td", {}, signed(s.net)),
          el("td", {}, String(last.totals?.[n] ?? "")),
        );
      }),
    ),
  ];
}

/** One line of the move log; the end of a hand is a rule with the hand's result. */
export function logLine(move) {
  const end = move.kind === "hand_over" || move.kind === "game_over";
  return el("li", { class: end ? `move end ${move.kind}` : `move ${move.kind}`, dataset: { version: move.version } }, move.text);
}
