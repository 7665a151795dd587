import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDecimal } from './decimal';
import { FileSpendLedger } from './spend-ledger';

describe('FileSpendLedger', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'spend-ledger-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('survives a restart: a new ledger on the same file sums the same window', () => {
    const file = join(dir, 'nested', 'spending.jsonl');
    const first = new FileSpendLedger(file);
    first.record({ at: new Date('2026-01-01T00:00:00Z'), token: 'USDC', amount: parseDecimal('10'), hash: 'a', status: 'submitted' });
    first.record({ at: new Date('2026-01-02T00:00:00Z'), token: 'USDC', amount: parseDecimal('2.5'), hash: 'b', status: 'uncertain' });
    const reopened = new FileSpendLedger(file);
    expect(reopened.spentSince(new Date('2026-01-01T12:00:00Z'))).toEqual(new Map([['USDC', parseDecimal('2.5')]]));
    expect(reopened.spentSince(new Date('2025-12-31T00:00:00Z')).get('USDC')).toBe(parseDecimal('12.5'));
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('counts a spend from its reservation until a release of the same hash', () => {
    const ledger = new FileSpendLedger(join(dir, 'spending.jsonl'));
    const at = new Date('2026-01-01T00:00:00Z');
    ledger.reserve(new Date(0), (spent) => {
      expect(spent.size).toBe(0);
      return [{ at, token: 'USDC', amount: parseDecimal('3'), hash: 'a', status: 'sending' }];
    });
    ledger.reserve(new Date(0), () => [{ at, token: 'USDC', amount: parseDecimal('4'), hash: 'b', status: 'sending' }]);
    expect(() =>
      ledger.reserve(new Date(0), () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    ledger.record({ at, token: 'USDC', amount: parseDecimal('3'), hash: 'a', status: 'released' });
    expect(new FileSpendLedger(join(dir, 'spending.jsonl')).spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('4'));
  });

  it('refuses to start on an unreadable line rather than forgetting spending', () => {
    const file = join(dir, 'spending.jsonl');
    writeFileSync(file, '{"at":"2026-01-01T00:00:00Z","token":"USDC","amount":"1","hash":"a","status":"submitted"}\nnot json\n');
    expect(() => new FileSpendLedger(file)).toThrow(`spend ledger ${file}:2 is unreadable`);
  });
});
