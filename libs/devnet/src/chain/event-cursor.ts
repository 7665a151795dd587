/**
 * Event ids and paging cursors exactly as stellar-rpc formats them.
 *
 * Per go-stellar-sdk protocols/rpc/cursor.go: an event id is
 * `fmt.Sprintf("%019d-%010d", toid.New(ledger, tx, op).ToInt64(), event)`, where the TOID packs
 * ledger << 32 | tx << 12 | op (stellar/go toid), tx being the 1-based application order in the ledger.
 */
export interface EventCursor {
  readonly ledger: number;
  /** 1-based application order of the transaction inside its ledger. */
  readonly tx: number;
  /** 0-based operation index inside the transaction. */
  readonly op: number;
  /** 0-based event index inside the operation. */
  readonly event: number;
}

const TRANSACTION_MASK = (1 << 20) - 1;
const OPERATION_MASK = (1 << 12) - 1;
const UINT32_MAX = 0xffffffff;
const INT32_MAX = 0x7fffffff;

/** The largest cursor inside `ledger` (MaxCursor with Ledger replaced), used as getEvents' end-of-window cursor. */
export function lastCursorOfLedger(ledger: number): EventCursor {
  return { ledger, tx: TRANSACTION_MASK, op: OPERATION_MASK, event: UINT32_MAX };
}

export function toid(ledger: number, tx: number, op: number): bigint {
  return (BigInt(ledger) << 32n) | (BigInt(tx & TRANSACTION_MASK) << 12n) | BigInt(op & OPERATION_MASK);
}

export function formatEventId(cursor: EventCursor): string {
  return `${toid(cursor.ledger, cursor.tx, cursor.op).toString().padStart(19, '0')}-${cursor.event.toString().padStart(10, '0')}`;
}

/** Parses an event id / cursor; throws `Error("invalid event id …")` like stellar-rpc's ParseCursor. */
export function parseEventId(input: string): EventCursor {
  const dash = input.indexOf('-');
  if (dash < 0) throw new Error(`invalid event id ${input}`);
  const head = input.slice(0, dash);
  const tail = input.slice(dash + 1);
  if (!/^\d+$/.test(head) || !/^\d+$/.test(tail)) throw new Error(`invalid event id ${input}`);
  const id = BigInt(head);
  const event = Number(tail);
  const ledger = Number(id >> 32n);
  if (event > UINT32_MAX || ledger > INT32_MAX) throw new Error(`invalid event id ${input}`);
  return {
    ledger,
    tx: Number((id >> 12n) & BigInt(TRANSACTION_MASK)),
    op: Number(id & BigInt(OPERATION_MASK)),
    event,
  };
}

export function compareCursors(a: EventCursor, b: EventCursor): number {
  return a.ledger - b.ledger || a.tx - b.tx || a.op - b.op || a.event - b.event;
}
