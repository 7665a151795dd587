import { Address, Keypair, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { ParsedTopics, parseScVal } from './parsed-topics';

const text = (v: xdr.ScVal): string => v.toXdr('base64');

describe('ParsedTopics', () => {
  const transfer = text(nativeToScVal('transfer', { type: 'symbol' }));
  const wallets = Array.from({ length: 3 }, () => text(nativeToScVal(Address.fromString(Keypair.random().publicKey()))));

  it('parses a topic text once and hands every event carrying it the same ScVal, equal to a fresh parse', () => {
    const topics = new ParsedTopics();
    const first = topics.parse(transfer);
    expect(topics.parse(transfer)).toBe(first);
    expect(text(first)).toBe(text(parseScVal(transfer)));
    const addresses = wallets.map((w) => topics.parse(w));
    expect(new Set(addresses).size).toBe(3);
    expect(addresses.map((a) => Address.fromScVal(a).toString())).toEqual(wallets.map((w) => Address.fromScVal(parseScVal(w)).toString()));
    expect(topics.size).toBe(4);
  });

  it('holds at most its bound of distinct texts, and starts over past it', () => {
    const topics = new ParsedTopics(2);
    const a = topics.parse(wallets[0]!);
    topics.parse(wallets[1]!);
    expect(topics.size).toBe(2);
    topics.parse(wallets[2]!);
    expect(topics.size).toBe(1);
    // Forgotten: parsed again (a new object), still the same value.
    const again = topics.parse(wallets[0]!);
    expect(again).not.toBe(a);
    expect(text(again)).toBe(text(a));
  });
});
