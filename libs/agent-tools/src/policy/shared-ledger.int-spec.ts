import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { parseDecimal } from './decimal';
import { FileSpendLedger } from './spend-ledger';

const ROOT = join(__dirname, '../../../..');
const CHILD = join(__dirname, '..', 'testing', 'signer-child.ts');
jest.setTimeout(120_000);

/** Runs one signer process to its end; its stdout lines are its attempts' outcomes. */
function runSigner(args: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', join(__dirname, '../../../../scripts/register.js'), CHILD, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim().split('\n').filter(Boolean));
      else reject(new Error(`signer process exited ${code}: ${err}`));
    });
  });
}

describe('the spend ledger shared by signer processes on one state folder', () => {
  let api: Server;
  let apiUrl: string;
  let accepted = 0;
  let dir: string;

  beforeAll(async () => {
    // The API's submit route over real HTTP: it accepts every buy after a short delay (so processes overlap).
    api = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        accepted++;
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":{"shares_bought":1}}'), 20);
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'shared-ledger-'));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => api.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('three processes of one wallet, 4 buys of 1 USDC each, never send more than the daily limit of 5 USDC together', async () => {
    const wallet = Keypair.random();
    const ledgerFile = join(dir, `spending-${wallet.publicKey()}.jsonl`);
    const outcomes = (await Promise.all([1, 2, 3].map(() => runSigner([apiUrl, wallet.secret(), ledgerFile, '4', 'USDC:5'])))).flat();
    expect(outcomes).toHaveLength(12);
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'refused')).toHaveLength(7);
    expect(accepted).toBe(5);
    expect(new FileSpendLedger(ledgerFile).spentSince(new Date(0)).get('USDC')).toBe(parseDecimal('5'));
  });
});
