import { formatAmount, perShare, percent } from '@dob/domain';
import { POOL_EVENT_FIELDS, POOL_EVENT_TYPES, type PoolEventType } from '../projections/pool-events.projection';
import { MEMBER_FIELDS } from '../projections/members.projection';
import { ROUND_FIELDS } from '../projections/rounds.projection';
import { ApiView, computed, shownFields } from './api-view';
import { resolvePoolNetwork } from './pool-resolution';
import { iso, int, sliceOf, type Page, type Paging, type QueryContext } from './query-context';
import { ROUND_STATUSES, type EventRow, type MemberRow, type RoundRow, type RoundStatus } from './read-model-reader.port';
import { int as intSchema, money, nstr, num, str, time, type JsonSchema } from './response-schemas';
import type { TokenLookup } from './token-directory';

export { ROUND_STATUSES, type RoundRow, type RoundStatus };

/** A holder as the pool's member list shows it; the participation is of `supply` (Σ the positive balances). */
export const POOL_MEMBER = new ApiView({
  user_address: shownFields(MEMBER_FIELDS).plain('holder'),
  shares: computed(intSchema, (r: MemberRow) => int(r.shares)),
  participation_percent: computed(num, (r: MemberRow, c: { readonly supply: bigint }) => percent(BigInt(r.shares), c.supply)),
  joined_at: shownFields(MEMBER_FIELDS).plain('joined_at'),
});
export type PoolMember = ReturnType<typeof POOL_MEMBER.item>;

const round = shownFields(ROUND_FIELDS);
const shown = <V>(schema: JsonSchema, value: (r: RoundRow, c: { readonly tokens: TokenLookup }) => V) => computed(schema, value);
const tokenOf = (r: RoundRow, c: { readonly tokens: TokenLookup }) => c.tokens.get(r.network_id, r.token);
const amount = (value: (r: RoundRow) => bigint | string) => shown(money, (r, c) => formatAmount(value(r), tokenOf(r, c).decimals));

/** A distribution round as the API lists it, in the order it sends it. */
export const DISTRIBUTION_ROUND = new ApiView({
  round_id: round.plain('round_id'),
  token: shown(nstr, (r, c) => tokenOf(r, c).symbol),
  total_amount: amount((r) => r.total_amount),
  total_shares: shown(intSchema, (r) => int(r.total_shares)),
  amount_per_share: amount((r) => perShare(BigInt(r.total_amount), BigInt(r.total_shares))),
  total_claimed: amount((r) => r.total_claimed),
  claim_count: round.plain('claim_count'),
  status: shown({ type: 'string', enum: [...ROUND_STATUSES] }, (r): RoundStatus => r.status),
  created_at: shown(time, (r) => iso(r.created_at)),
  claimable_from: shown(time, (r) => iso(r.claimable_from)),
  expires_at: round.plain('expires_at'),
});
export type DistributionRound = ReturnType<typeof DISTRIBUTION_ROUND.item>;

const poolEvent = shownFields(POOL_EVENT_FIELDS);
interface EventContext {
  readonly tokens: TokenLookup;
}
const eventShown = <V>(schema: JsonSchema, value: (r: EventRow, c: EventContext) => V) => computed(schema, value);
const eventToken = (r: EventRow, c: EventContext) => c.tokens.get(r.network_id, r.token);
/** Token amounts in token units; share counts as they are. */
const eventAmount = (r: EventRow, c: EventContext): string | null =>
  r.amount === null ? null : r.amount_kind === 'token' ? formatAmount(r.amount, eventToken(r, c).decimals) : r.amount;

/** A pool event as the API lists it, in the order it documents it (to_address and token only when the event has them). */
export const POOL_EVENT = new ApiView(
  {
    event_type: eventShown({ type: 'string', enum: [...POOL_EVENT_TYPES] }, (r): PoolEventType => r.event_type),
    pool_id: poolEvent.plain('pool'),
    transaction_hash: poolEvent.plain('transaction_hash'),
    from_address: poolEvent.plain('from_address'),
    to_address: eventShown(str, (r) => r.to_address || undefined),
    amount: eventShown(nstr, eventAmount),
    token: eventShown(str, (r, c) => (r.token ? (eventToken(r, c).symbol ?? r.token) : undefined)),
    date: eventShown(time, (r) => iso(r.date)),
    description: eventShown(str, (r, c) => describe(r, eventAmount(r, c), eventToken(r, c).symbol)),
  },
  // spec: to_address "present on share transfers", token "present on distribution entries"
  ['to_address', 'token'],
);
export type PoolEvent = ReturnType<typeof POOL_EVENT.item>;

export interface PoolScoped extends Paging {
  readonly address: string;
  readonly networkId?: number;
}

export class PoolActivityQueries {
  constructor(private readonly ctx: QueryContext) {}

  async members(q: PoolScoped): Promise<Page<PoolMember>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const { rows, supply, total } = await this.ctx.reader.members(network, q.address, sliceOf(q));
    return {
      items: rows.map((r) => POOL_MEMBER.item(r, { supply })),
      page: q.page,
      limit: q.limit,
      total,
    };
  }

  async distributions(q: PoolScoped & { status?: RoundStatus }): Promise<Page<DistributionRound>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const [{ rows, total }, tokens] = await Promise.all([
      this.ctx.reader.rounds(network, q.address, this.ctx.now(), q.status, sliceOf(q)),
      this.ctx.tokens.lookup(),
    ]);
    return { items: rows.map((r) => toRound(r, tokens)), page: q.page, limit: q.limit, total };
  }

  async events(q: PoolScoped & { eventType?: PoolEventType }): Promise<Page<PoolEvent>> {
    const network = await resolvePoolNetwork(this.ctx, q.address, q.networkId);
    const [{ rows, total }, tokens] = await Promise.all([this.ctx.reader.poolEvents(network, q.address, q.eventType, sliceOf(q)), this.ctx.tokens.lookup()]);
    return { items: rows.map((r) => POOL_EVENT.item(r, { tokens })), page: q.page, limit: q.limit, total };
  }
}

export function toRound(r: RoundRow, tokens: TokenLookup): DistributionRound {
  return DISTRIBUTION_ROUND.item(r, { tokens });
}

function describe(r: EventRow, amount: string | null, symbol: string | null): string {
  const money = `${amount} ${symbol ?? ''}`.trim();
  switch (r.event_type) {
    case 'init':
      return `Pool initialized (splitter ${r.detail ?? ''}) by ${r.from_address}`.replace('  ', ' ');
    case 'distribute':
      return r.detail === null ? `Distributed ${money} to shareholders` : `Created distribution round ${r.detail} of ${money}`;
    case 'claim':
      return `${r.from_address} claimed ${money} from round ${r.detail}`;
    case 'withdraw':
      return r.detail === 'admin' ? `Admin withdrew ${money} to ${r.to_address}` : `${r.from_address} withdrew ${money}`;
    case 'transfer_shares': {
      const how = r.detail === 'marketplace_sale' ? ' (marketplace sale)' : r.detail === 'crowdfunding_allocation' ? ' (crowdfunding allocation)' : '';
      return `${r.from_address} transferred ${amount} shares to ${r.to_address}${how}`;
    }
    case 'lock':
      return 'Share table locked: shares can no longer be updated';
    case 'set_admin':
      return `Admin changed from ${r.from_address} to ${r.to_address}`;
  }
}
