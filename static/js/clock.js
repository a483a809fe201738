// The turn clock as the table page shows it (docs/tables.md, "The turn clock"). The mover has the
// turn clock until `clock.turn_ends`, then whatever is left of their time bank until `deadline`,
// when the server plays the turn. While paused, every clock stands still at `clock.remaining`.
// During the break between hands the new hand's first turn has not started (its clock starts at
// `clock.break_ends`), so the mover's clock stands still at the whole turn clock until then.

/** Seconds as m:ss (never negative). */
export function mmss(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** The moment the mover's clock reads at `now` (ms since the epoch): the break's end while a
 * break between hands runs (`breakEnds`, ISO text or empty), else `now`. */
export function clockNow({ breakEnds }, now) {
  const ends = breakEnds ? Date.parse(breakEnds) : NaN;
  return Number.isNaN(ends) ? now : Math.max(now, ends);
}

/**
 * What the mover's running clock reads at `now` (ms since the epoch): the turn clock counting
 * down to `turnEnds`, then the bank counting down to `deadline` (ISO texts; without `turnEnds`
 * the deadline alone counts, as a plain turn clock); held still until `breakEnds`, if given.
 */
export function running({ turnEnds, deadline, breakEnds }, at) {
  const now = clockNow({ breakEnds }, at);
  const ends = turnEnds ? Date.parse(turnEnds) : NaN;
  const due = Date.parse(deadline);
  if (Number.isNaN(ends) || now < ends || due <= ends) {
    const until = Number.isNaN(ends) ? due : Math.min(ends, due);
    return { bank: false, text: `${mmss((until - now) / 1000)} left` };
  }
  return { bank: true, text: `bank ${mmss((due - now) / 1000)}` };
}

/** What the mover's clock reads while paused: `remaining` covers the turn clock, then `bank`. */
export function frozen(remaining, bank) {
  const left = remaining ?? 0;
  if (left > bank || bank <= 0) return { bank: false, text: `paused · ${mmss(left - bank)} left` };
  return { bank: true, text: `paused · bank ${mmss(left)}` };
}
