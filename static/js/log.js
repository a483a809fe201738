// The move log (docs/tables.md, "Moves"): each `state` frame carries the reader's moves newer
// than `moves_since`. Holding moves up to version L, a frame with moves_since <= L adds those
// past L; one with moves_since > L means a frame was missed, and the page asks for a `sync`
// (whose frame starts again from 0). A frame without `moves` (a server before the log) adds
// nothing, and nothing is drawn then.

/** A log of moves kept in version order. */
export class MoveLog {
  constructor() {
    this.moves = [];
    this.last = 0; // the highest version held (versions start at 1)
  }

  /** Take one frame's moves: "sync" when a frame was missed, else the moves it adds. */
  take(frame) {
    if (!Array.isArray(frame.moves)) return [];
    if ((frame.moves_since ?? 0) > this.last) return "sync";
    const fresh = frame.moves.filter((m) => m.version > this.last);
    this.moves.push(...fresh);
    for (const m of fresh) this.last = Math.max(this.last, m.version);
    return fresh;
  }
}
