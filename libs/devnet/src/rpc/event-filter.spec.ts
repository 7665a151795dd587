import { StrKey, xdr } from '@stellar/stellar-sdk';
import { eventMatches, parseEventFilters } from './event-filter';

const sym = (s: string) => xdr.ScVal.scvSymbol(s).toXdr('base64');
const CONTRACT_A = StrKey.encodeContract(Buffer.alloc(32, 1));
const CONTRACT_B = StrKey.encodeContract(Buffer.alloc(32, 2));
const sold = { type: 'contract' as const, contractId: CONTRACT_A, topics: [sym('sold'), sym('seller'), sym('buyer')] };

describe('getEvents filters', () => {
  it('matches everything without filters, and ORs filters', () => {
    expect(eventMatches([], sold)).toBe(true);
    const filters = parseEventFilters([{ contractIds: [CONTRACT_B] }, { contractIds: [CONTRACT_A] }]);
    expect(eventMatches(filters, sold)).toBe(true);
    expect(eventMatches(parseEventFilters([{ contractIds: [CONTRACT_B] }]), sold)).toBe(false);
  });

  it('filters by type', () => {
    expect(eventMatches(parseEventFilters([{ type: 'system' }]), sold)).toBe(false);
    expect(eventMatches(parseEventFilters([{ type: 'contract' }]), sold)).toBe(true);
    expect(eventMatches(parseEventFilters([{ type: 'system,contract' }]), sold)).toBe(true);
  });

  it('matches exact-length topics, * for one segment and trailing ** for zero or more', () => {
    const match = (topics: string[]) => eventMatches(parseEventFilters([{ topics: [topics] }]), sold);
    expect(match([sym('sold'), '*', '*'])).toBe(true);
    expect(match([sym('sold'), '*'])).toBe(false); // length must match exactly without **
    expect(match([sym('sold'), '**'])).toBe(true);
    expect(match([sym('sold'), '*', '*', '**'])).toBe(true); // ** may match zero segments
    expect(match([sym('sold'), '*', '*', '*', '**'])).toBe(false);
    expect(match([sym('listed'), '**'])).toBe(false);
    expect(match(['*', sym('seller'), sym('buyer')])).toBe(true);
  });

  it('rejects what stellar-rpc rejects, with its messages', () => {
    const six = Array.from({ length: 6 }, () => ({}));
    expect(() => parseEventFilters(six)).toThrow('maximum 5 filters per request');
    expect(() => parseEventFilters([{ contractIds: Array(6).fill(CONTRACT_A) }])).toThrow('filter 1 invalid: maximum 5 contract IDs per filter');
    expect(() => parseEventFilters([{ type: 'diagnostic' }])).toThrow("if set, type must be either 'system' or 'contract'");
    expect(() => parseEventFilters([{ contractIds: ['GABC'] }])).toThrow('contract ID 1 invalid');
    expect(() => parseEventFilters([{ topics: [['**', sym('x')]] }])).toThrow("wildcard '**' is only allowed as the last segment");
    expect(() => parseEventFilters([{ topics: [[sym('a'), '*', '*', '*', '*']] }])).toThrow('topic cannot have more than 4 segments');
    expect(() => parseEventFilters([{ topics: [[]] }])).toThrow('topic must have at least 1 segment');
    expect(() => parseEventFilters([{ topics: Array(6).fill(['*']) }])).toThrow('maximum 5 topics per filter');
    expect(() => parseEventFilters([{ topics: [['not-xdr!']] }])).toThrow('topic 1 invalid');
  });
});
