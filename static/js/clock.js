// The turn clock as the table page shows it (docs/tables.md, "The turn clock"). The mover has the
// turn clock until `clock.turn_ends`, then whatever is left of their time bank until `deadline`,
// when the server plays the turn. While paused, every clock stands still at `clock.remaining`.

/** Seconds as m:ss (never negative). */
export function mmss(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/**
 * What the mover's running clock reads at `now` (ms since the epoch): the turn clock counting
 * down to `turnEnds`, then the bank counting down to `deadline` (ISO texts; without `turnEnds`
 * the deadline alone counts, as a plain turn clock).
 */
export function running({ turnEnds, deadline }, now) {
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
