/**
 * What a line typed in the chat box means: say by default, `/z text` or `/zone text` to the
 * zone, `/w name text` (or `/whisper`) to one player, `/who` for the online list.
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

function checkLength(cmd: ChatCommand & { text: string }): ChatCommand {
  if (cmd.text.length === 0) return { kind: 'none' };
  if (encoder.encode(cmd.text).length > MAX_CHAT_BYTES) {
    return { kind: 'error', message: `That message is too long (at most ${MAX_CHAT_BYTES} bytes).` };
  }
  return cmd;
}

export function parseChat(line: string): ChatCommand {
  const text = line.trim();
  if (text.length === 0) return { kind: 'none' };
  if (!text.startsWith('/')) return checkLength({ kind: 'say', text });
  const space = text.indexOf(' ');
  const verb = (space < 0 ? text : text.slice(0, space)).toLowerCase();
  const rest = space < 0 ? '' : text.slice(space + 1).trim();
  switch (verb) {
    case '/s':
    case '/say':
      return checkLength({ kind: 'say', text: rest });
    case '/z':
    case '/zone':
      return checkLength({ kind: 'zone', text: rest });
    case '/w':
    case '/whisper':
    case '/tell': {
      const m = /^(\S+)\s+(.+)$/s.exec(rest);
      if (!m) return { kind: 'error', message: 'Whisper with /w name message.' };
      return checkLength({ kind: 'whisper', to: m[1] as string, text: (m[2] as string).trim() });
    }
    case '/who':
      return { kind: 'who' };
    default:
      return { kind: 'error', message: `Unknown command ${verb}. Try /z, /w name or /who.` };
  }
}
