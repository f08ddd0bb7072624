import { describe, expect, it } from 'vitest';
import { addressKey, formatIpv6, normalizeAddress, parseIpv6 } from '../../server/transport/address.js';

describe('addressKey', () => {
  it('keys IPv4 by the whole address', () => {
    expect(addressKey('203.0.113.7', 64)).toBe('203.0.113.7');
    expect(addressKey('203.0.113.8', 64)).toBe('203.0.113.8');
  });

  it('keys an IPv4-mapped IPv6 address as the IPv4 address it carries, in every written form', () => {
    for (const text of [
      '::ffff:203.0.113.7',
      '::FFFF:cb00:7107',
      '0:0:0:0:0:ffff:203.0.113.7',
      // uWebSockets.js on a dual-stack listener
      '0000:0000:0000:0000:0000:ffff:cb00:7107',
    ]) {
      expect(addressKey(text, 64), text).toBe('203.0.113.7');
    }
  });

  it('keys every address of one /64 alike, and a neighbouring /64 apart', () => {
    const keys = new Set(
      [
        '2001:db8:1:2::1',
        '2001:db8:1:2::a1',
        '2001:db8:1:2:ffff:ffff:ffff:ffff',
        '2001:DB8:1:2:1234::%eth0',
      ].map((a) => addressKey(a, 64)),
    );
    expect([...keys]).toEqual(['2001:db8:1:2::/64']);
    expect(addressKey('2001:db8:1:3::1', 64)).toBe('2001:db8:1:3::/64');
  });

  it('takes the prefix length it is given, down to the bit', () => {
    expect(addressKey('2001:db8:1:2::1', 48)).toBe('2001:db8:1::/48');
    expect(addressKey('2001:db8:1:ff::1', 56)).toBe('2001:db8:1::/56');
    expect(addressKey('2001:db8:1:1ff::1', 56)).toBe('2001:db8:1:100::/56');
    expect(addressKey('2001:db8:1:2::1', 128)).toBe('2001:db8:1:2::1');
  });

  it('reads loopback in node’s form and uWebSockets.js’s alike', () => {
    expect(addressKey('::1', 64)).toBe('::/64');
    expect(addressKey('0000:0000:0000:0000:0000:0000:0000:0001', 64)).toBe('::/64');
    expect(addressKey('0000:0000:0000:0000:0000:0000:0000:0001', 128)).toBe('::1');
  });

  it('leaves what is no IP address as it is', () => {
    expect(addressKey('unknown', 64)).toBe('unknown');
    expect(addressKey('1:2:3', 64)).toBe('1:2:3');
    expect(addressKey('1::2::3', 64)).toBe('1::2::3');
    expect(addressKey('::ffff:300.1.1.1', 64)).toBe('::ffff:300.1.1.1');
  });
});

describe('normalizeAddress', () => {
  it('shows IPv4-mapped as IPv4 and IPv6 in its short form', () => {
    expect(normalizeAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress('0000:0000:0000:0000:0000:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(normalizeAddress('0000:0000:0000:0000:0000:0000:0000:0001')).toBe('::1');
    expect(normalizeAddress('2001:0db8:0000:0000:0001:0000:0000:0001')).toBe('2001:db8::1:0:0:1');
    expect(normalizeAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(normalizeAddress(undefined)).toBe('unknown');
  });
});

describe('IPv6 text', () => {
  it('parses every group and writes RFC 5952 text back', () => {
    expect(parseIpv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6('1:2:3:4:5:6:7::')).toEqual([1, 2, 3, 4, 5, 6, 7, 0]);
    expect(parseIpv6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
    expect(parseIpv6('1:2:3:4:5:6:7::8')).toBeUndefined();
    expect(parseIpv6('12345::')).toBeUndefined();
    expect(formatIpv6([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1])).toBe('2001:db8::1:0:0:1');
    expect(formatIpv6([0x2001, 0xdb8, 0, 1, 1, 1, 1, 1])).toBe('2001:db8:0:1:1:1:1:1');
    expect(formatIpv6([0, 0, 0, 0, 0, 0, 0, 0])).toBe('::');
  });
});
