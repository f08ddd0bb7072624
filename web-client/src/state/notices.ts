/**
 * Short messages for the player (a refused spell, a lost connection), shown a few seconds over
 * the world. The same message again is not a new line: it bumps the one shown ("×5") and keeps
 * it up, so five refused casts in a row make one line, not a column over the mobs' names.
 */
export interface Notice {
  text: string;
  /** How many times it was said while shown. */
  count: number;
  /** Page time it was last said. */
  at: number;
}

/** At most this many lines at once; the oldest goes first. */
export const NOTICES_SHOWN = 4;
/** A line goes this long after it was last said. */
export const NOTICE_MS = 5000;

export class Notices {
  private readonly lines: Notice[] = [];

  /** Oldest first. */
  get list(): readonly Notice[] {
    return this.lines;
  }

  add(text: string, now: number): void {
    const i = this.lines.findIndex((n) => n.text === text);
    if (i >= 0) {
      const [same] = this.lines.splice(i, 1) as [Notice];
      same.count++;
      same.at = now;
      this.lines.push(same);
      return;
    }
    this.lines.push({ text, count: 1, at: now });
    if (this.lines.length > NOTICES_SHOWN) this.lines.shift();
  }

  /** Drops the lines not said again for NOTICE_MS. */
  prune(now: number): void {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      if (now - this.lines[i]!.at > NOTICE_MS) this.lines.splice(i, 1);
    }
  }

  /** Takes back the lines `stale` matches (a "Reconnecting…" once back) and says `text`. */
  settle(stale: (text: string) => boolean, text: string, now: number): void {
    for (let i = this.lines.length - 1; i >= 0; i--) if (stale(this.lines[i]!.text)) this.lines.splice(i, 1);
    this.add(text, now);
  }

  clear(): void {
    this.lines.length = 0;
  }
}

/** A line as shown: "Not enough mana. ×5" once said five times. */
export function noticeText(n: Notice): string {
  return n.count > 1 ? `${n.text} ×${n.count}` : n.text;
}
