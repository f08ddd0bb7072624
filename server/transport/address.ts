/**
 * Remote addresses: how they are shown, and the key the per-address limits count them under.
 *
 * One IPv4 address is one key. An IPv6 host is handed a whole /64 (often a /56 or /48) by its
 * provider and may pick any address in it, so counting IPv6 by the full address gives one
 * machine 2^64 fresh addresses: login throttles and connection caps would count nothing. IPv6
 * is counted by prefix instead (`IPV6_PREFIX_BITS`, /64 by default, as large services do), and
 * an IPv4-mapped address (`::ffff:a.b.c.d`, what a dual-stack socket reports for IPv4) is the
 * IPv4 address it carries.
 *
 *   203.0.113.7               -> 203.0.113.7
 *   ::ffff:203.0.113.7        -> 203.0.113.7
 *   2001:db8:1:2:aaaa::1      -> 2001:db8:1:2::/64
 *   0:0:0:0:0:0:0:1           -> ::/64   (with 128 bits: ::1)
 *
 * Text comes in node's forms (`::1`, `::ffff:127.0.0.1`, with a `%zone`) and uWebSockets.js's
 * (eight groups written out, `000:000:...:001`); anything that is not an IP address is its own
 * key, as it comes.
 */

/** The eight 16-bit groups of an IPv6 address, or undefined when `text` is not one. */
export function parseIpv6(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const s = zone >= 0 ? text.slice(0, zone) : text;
  if (!s.includes(':')) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parts = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      if (i === pieces.length - 1 && p.includes('.')) {
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) {
        out.push(parseInt(p, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const head = parts(halves[0]!);
  const tail = halves.length === 2 ? parts(halves[1]!) : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** The four bytes of a dotted IPv4 address, or undefined. */
export function parseIpv4(text: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return undefined;
  const bytes = m.slice(1).map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:0:0/96) carries, dotted. */
function mappedIpv4(groups: readonly number[]): string | undefined {
  for (let i = 0; i < 5; i++) if (groups[i] !== 0) return undefined;
  if (groups[5] !== 0xffff) return undefined;
  const [hi, lo] = [groups[6]!, groups[7]!];
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
}

/** RFC 5952 text: lower-case hex, the longest run of two or more zero groups as `::`. */
export function formatIpv6(groups: readonly number[]): string {
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (from: number, to: number) =>
    groups
      .slice(from, to)
      .map((g) => g.toString(16))
      .join(':');
  if (best < 0) return hex(0, 8);
  return `${hex(0, best)}::${hex(best + bestLength, 8)}`;
}

/**
 * The address as logs and the Connection show it: IPv4-mapped as IPv4, IPv6 in RFC 5952
 * form, anything else as it came ('unknown' when the transport gave none).
 */
export function normalizeAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  const groups = parseIpv6(address);
  if (!groups) return address;
  return mappedIpv4(groups) ?? formatIpv6(groups);
}

/** The key per-address limits count `address` under: IPv4 whole, IPv6 by its first `ipv6PrefixBits` bits. */
export function addressKey(address: string, ipv6PrefixBits: number): string {
  const groups = parseIpv6(address);
  if (!groups) return address;
  const v4 = mappedIpv4(groups);
  if (v4 !== undefined) return v4;
  if (ipv6PrefixBits >= 128) return formatIpv6(groups);
  const masked = groups.map((g, i) => {
    const keep = Math.min(16, Math.max(0, ipv6PrefixBits - i * 16));
    return keep === 0 ? 0 : g & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${formatIpv6(masked)}/${ipv6PrefixBits}`;
}
