/**
 * What a line typed in the chat box means: say by default, `/z text` or `/zone text` to the
 * zone, `/w name text` (or `/whisper`) to one player, `/r text` (or `/reply`) back to whoever
 * whispered last, `/who` for the online list.
 */
import { MAX_CHAT_BYTES } from '../../../shared/protocol/chat.js';

export type ChatCommand =
  | { kind: 'say'; text: string }
  | { kind: 'zone'; text: string }
  | { kind: 'whisper'; to: string; text: string }
  | { kind: 'who' }
  | { kind: 'error'; message: string }
  | { kind: 'none' };

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`: what the server's limit counts ("é" is two, "€" three). */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

function checkLength(cmd: ChatCommand & { text: string }): ChatCommand {
  if (cmd.text.length === 0) return { kind: 'none' };
  const bytes = utf8Bytes(cmd.text);
  if (bytes > MAX_CHAT_BYTES) {
    return {
      kind: 'error',
      message: `That message is too long: ${bytes} bytes, at most ${MAX_CHAT_BYTES} (an accented letter counts 2).`,
    };
  }
  return cmd;
}

export interface ChatContext {
  /** Who whispered to the player last: where `/r` goes. */
  replyTo?: string | undefined;
}

/** The line's meaning before the length check. */
function parse(line: string, context: ChatContext): ChatCommand {
  const text = line.trim();
  if (text.length === 0) return { kind: 'none' };
  if (!text.startsWith('/')) return { kind: 'say', text };
  const space = text.indexOf(' ');
  const verb = (space < 0 ? text : text.slice(0, space)).toLowerCase();
  const rest = space < 0 ? '' : text.slice(space + 1).trim();
  switch (verb) {
    case '/s':
    case '/say':
      return { kind: 'say', text: rest };
    case '/z':
    case '/zone':
      return { kind: 'zone', text: rest };
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
      return { kind: 'error', message: `Unknown command ${verb}. Try /z, /w name, /r or /who.` };
  }
}

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
