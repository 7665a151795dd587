import { cursorOf } from '../../chain/chain-history';
import type { ContractEventRecord } from '../../chain/chain-records';
import type { DevnetChain } from '../../chain/devnet-chain';
import { type EventCursor, formatEventId, lastCursorOfLedger, parseEventId } from '../../chain/event-cursor';
import { eventMatches, InvalidFilterError, parseEventFilters } from '../event-filter';
import { invalidParams, JsonRpcCode, JsonRpcError, type RpcMethod } from '../json-rpc';
import { optionalObject, optionalUint32, requireBase64Format } from '../params';
import { ledgerRange } from './ledger-methods';

/** Per stellar-rpc get_events.go: a request scans at most 10,000 ledgers; limit defaults to 100, max 10,000. */
export const LEDGER_SCAN_LIMIT = 10_000;
export const DEFAULT_EVENTS_LIMIT = 100;
export const MAX_EVENTS_LIMIT = 10_000;

export function getEventsMethod(chain: DevnetChain): Record<string, RpcMethod> {
  return {
    getEvents: (params) => {
      requireBase64Format(params);
      const pagination = optionalObject(params, 'pagination');
      const startLedger = optionalUint32(params, 'startLedger');
      const endLedgerParam = optionalUint32(params, 'endLedger');
      const rawCursor = pagination?.cursor;
      let start: EventCursor;
      if (rawCursor !== undefined && rawCursor !== null && rawCursor !== '') {
        if (startLedger || endLedgerParam) throw invalidParams('ledger ranges and cursor cannot both be set');
        if (typeof rawCursor !== 'string') throw invalidParams('cursor must be a string');
        let parsed: EventCursor;
        try {
          parsed = parseEventId(rawCursor);
        } catch (err) {
          throw invalidParams((err as Error).message);
        }
        // Paging starts right after the cursor (stellar-rpc increments the event index).
        start = { ...parsed, event: parsed.event + 1 };
      } else {
        if (!startLedger) throw invalidParams('startLedger must be positive');
        start = { ledger: startLedger, tx: 0, op: 0, event: 0 };
      }
      const limit = (pagination ? optionalUint32(pagination, 'limit') : undefined) || DEFAULT_EVENTS_LIMIT;
      if (limit > MAX_EVENTS_LIMIT) throw invalidParams(`limit must not exceed ${MAX_EVENTS_LIMIT}`);
      let filters;
      try {
        filters = parseEventFilters(params.filters);
      } catch (err) {
        if (err instanceof InvalidFilterError) throw invalidParams(err.message);
        throw err;
      }

      const range = ledgerRange(chain);
      if (start.ledger < range.oldestLedger || start.ledger > range.latestLedger) {
        // Verbatim what stellar-rpc answers (observed against the public testnet RPC), so clients that parse the
        // retention floor out of it work here too.
        throw new JsonRpcError(JsonRpcCode.invalidRequest, `startLedger must be within the ledger range: ${range.oldestLedger} - ${range.latestLedger}`);
      }
      let endLedger = Math.min(start.ledger + LEDGER_SCAN_LIMIT, range.latestLedger + 1);
      if (endLedgerParam) endLedger = Math.min(endLedgerParam, endLedger);

      const found: ContractEventRecord[] = [];
      chain.history.scanEvents(start, endLedger, (event) => {
        if (eventMatches(filters, event)) found.push(event);
        return found.length < limit;
      });
      const events = found.map((event) => eventInfo(chain, event));
      // Like stellar-rpc: the last event's id when the page is full, else the end of the scanned window.
      const cursor = found.length === limit ? events[events.length - 1].id : formatEventId(lastCursorOfLedger(endLedger - 1));
      return { events, cursor, ...range };
    },
  };
}

function eventInfo(chain: DevnetChain, event: ContractEventRecord) {
  const id = formatEventId(cursorOf(event));
  const ledger = chain.history.ledger(event.ledger);
  return {
    type: event.type,
    ledger: event.ledger,
    ledgerClosedAt: ledger ? new Date(Number(ledger.closeTime) * 1000).toISOString().replace('.000Z', 'Z') : '',
    contractId: event.contractId,
    id,
    pagingToken: id,
    operationIndex: event.opIndex,
    transactionIndex: event.txIndex,
    txHash: event.txHash,
    inSuccessfulContractCall: true,
    topic: event.topics,
    value: event.value,
  };
}
