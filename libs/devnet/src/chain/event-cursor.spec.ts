import { compareCursors, formatEventId, lastCursorOfLedger, parseEventId, toid } from './event-cursor';

describe('event ids (stellar-rpc cursor format)', () => {
  it('packs ledger, tx and op into a TOID and pads to 19 + 10 digits', () => {
    expect(toid(1, 1, 0)).toBe((1n << 32n) | (1n << 12n));
    // Ledger 1234, tx 2, op 0, event 3 — the layout of ids seen on testnet, e.g. "0005299627283603456-0000000003".
    expect(formatEventId({ ledger: 1234, tx: 2, op: 0, event: 3 })).toBe(`${((1234n << 32n) | (2n << 12n)).toString().padStart(19, '0')}-0000000003`);
    expect(formatEventId({ ledger: 1234, tx: 2, op: 0, event: 3 })).toHaveLength(30);
  });

  it('round-trips through parseEventId', () => {
    const cursor = { ledger: 987654, tx: 17, op: 0, event: 42 };
    expect(parseEventId(formatEventId(cursor))).toEqual(cursor);
    expect(parseEventId(formatEventId(lastCursorOfLedger(99)))).toEqual(lastCursorOfLedger(99));
  });

  it('rejects malformed ids', () => {
    expect(() => parseEventId('abc')).toThrow('invalid event id abc');
    expect(() => parseEventId('12-x')).toThrow('invalid event id');
  });

  it('orders cursors by ledger, tx, op, event', () => {
    const ids = [
      { ledger: 2, tx: 1, op: 0, event: 0 },
      { ledger: 1, tx: 2, op: 0, event: 0 },
      { ledger: 1, tx: 1, op: 0, event: 5 },
    ];
    const sorted = [...ids].sort(compareCursors);
    expect(sorted.map((c) => formatEventId(c))).toEqual([...sorted.map(formatEventId)].sort());
    expect(sorted[0]).toEqual({ ledger: 1, tx: 1, op: 0, event: 5 });
  });
});
