/**
 * What a chat line means, for every client that takes typed chat (the browser's chat box, the
 * terminal client's commands):
 *
 *   text                    say it to those near (also /s, /say)
 *   /z text, /zone text     to the whole zone
 *   /w name text            whisper to one player (also /whisper, /tell)
 *   /r text, /reply text    whisper back to whoever whispered last (the caller keeps who)
 *   /who                    the online list
 *
 * A message is checked against the server's limit in UTF-8 bytes before it goes, so it is
 * refused with words instead of by the server. Pure: no clock, no I/O.
 */
import { MAX_CHAT_BYTES } from '../protocol/chat.js';

export type ChatCommand =
  | { kind: 'say'; text: string }
  | { kind: 'zone'; text: string }
  | { kind: 'whisper'; to: string; text: string }
  | { kind: 'who' }
  | { kind: 'error'; message: string }
  | { kind: 'none' };

export interface ChatContext {
  /** Who whispered to the player last: where `/r` goes. */
  replyTo?: string | undefined;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`: what the server's limit counts ("é" is two, "€" three). */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Whether a line is a chat command (a word after "/"), not plain text. */
export function isChatCommand(line: string): boolean {
  return line.trim().startsWith('/');
}

/** The meaning of a typed line, `none` for an empty one. */
export function parseChat(line: string, context: ChatContext = {}): ChatCommand {
  const cmd = parse(line, context);
  return 'text' in cmd ? checkLength(cmd) : cmd;
}

/**
 * Bytes still free for the message in a chat line, negative when it is over the limit. Only
 * the text sent counts: in "/w Bob hi" the address is not part of the message.
 */
export function chatBytesLeft(line: string): number {
  // The address does not count: any name will do for the measure.
  const cmd = parse(line, { replyTo: '-' });
  return MAX_CHAT_BYTES - ('text' in cmd ? utf8Bytes(cmd.text) : 0);
}

/**
 * Whom `/r` answers once this chat message has come: its sender when it is a whisper from
 * someone else (not the echo of one's own), undefined when the message changes nothing.
 */
export function whisperedBy(
  message: { channel: string; fromId: number; from: string },
  selfId: number | undefined,
): string | undefined {
  return message.channel === 'whisper' && message.fromId !== selfId && message.from
    ? message.from
    : undefined;
}

/** The line's meaning before the length check. */
function parse(line: string, context: ChatContext): ChatCommand {
  const text = line.trim();
  if (text.length === 0) return { kind: 'none' };
  if (!text.startsWith('/')) return { kind: 'say', text };
  const space = text.search(/\s/);
  const typed = space < 0 ? text : text.slice(0, space);
  const verb = typed.toLowerCase();
  const rest = space < 0 ? '' : text.slice(space + 1).trim();
  switch (verb) {
    case '/s':
    case '/say':
      return rest ? { kind: 'say', text: rest } : nothingToSay(typed);
    case '/z':
    case '/zone':
      return rest ? { kind: 'zone', text: rest } : nothingToSay(typed);
    case '/w':
    case '/whisper':
    case '/tell': {
      const m = /^(\S+)\s+(.+)$/s.exec(rest);
      if (!m) return { kind: 'error', message: 'Whisper with /w name message.' };
      return { kind: 'whisper', to: m[1] as string, text: (m[2] as string).trim() };
    }
    case '/r':
    case '/reply':
      if (!context.replyTo)
        return { kind: 'error', message: 'Nobody has whispered to you yet: /w name message.' };
      if (!rest) return { kind: 'error', message: `Reply to ${context.replyTo} with /r message.` };
      return { kind: 'whisper', to: context.replyTo, text: rest };
    case '/who':
      return { kind: 'who' };
    default:
      return { kind: 'error', message: `Unknown command ${typed}. Try /z, /w name, /r or /who.` };
  }
}

function nothingToSay(typed: string): ChatCommand {
  return { kind: 'error', message: `Nothing sent: ${typed} needs something to say (${typed} TEXT).` };
}

function checkLength(cmd: ChatCommand & { text: string }): ChatCommand {
  const bytes = utf8Bytes(cmd.text);
  if (bytes > MAX_CHAT_BYTES) {
    return {
      kind: 'error',
      message: `That message is too long: ${bytes} bytes, at most ${MAX_CHAT_BYTES} (an accented letter counts 2).`,
    };
  }
  return cmd;
}
