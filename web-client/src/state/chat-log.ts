/**
 * The chat as the page keeps it: the newest CHAT_HISTORY lines, each with the wall-clock time
 * it arrived (shown as HH:MM), and who whispered last, for `/r`.
 */
import { whisperedBy } from '../../../shared/client/chat-command.js';

export interface ChatLine {
  channel: 'say' | 'zone' | 'whisper' | 'system';
  fromId: number;
  from: string;
  to: string;
  text: string;
  /** Page time it arrived (performance.now()). */
  at: number;
  /** Wall-clock time it arrived (ms since 1970), for the timestamp shown. */
  time: number;
}

/** Lines kept (and scrollable in the chat box). */
export const CHAT_HISTORY = 250;

export class ChatLog {
  private readonly kept: ChatLine[] = [];
  /** The name of whoever whispered to the player last (not the player's own echo). */
  replyTo: string | undefined;

  constructor(private readonly keep = CHAT_HISTORY) {}

  get lines(): readonly ChatLine[] {
    return this.kept;
  }

  /** `selfId` tells a whisper heard from one's own echo. */
  add(line: ChatLine, selfId: number | undefined): void {
    this.kept.push(line);
    if (this.kept.length > this.keep) this.kept.splice(0, this.kept.length - this.keep);
    this.replyTo = whisperedBy(line, selfId) ?? this.replyTo;
  }

  clear(): void {
    this.kept.length = 0;
    this.replyTo = undefined;
  }
}

/** "09:05": the local hour and minute a line arrived. */
export function chatTime(time: number): string {
  const d = new Date(time);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** Who said it, as the line starts: "Ayla: ", "[zone] Ayla: ", "[Ayla → Bran] ", "" for the system. */
export function chatSpeaker(c: Pick<ChatLine, 'channel' | 'from' | 'to'>): string {
  switch (c.channel) {
    case 'system':
      return '';
    case 'whisper':
      return c.to && c.from ? `[${c.from} → ${c.to}] ` : `[${c.from}] `;
    case 'zone':
      return `[zone] ${c.from}: `;
    default:
      return `${c.from}: `;
  }
}
