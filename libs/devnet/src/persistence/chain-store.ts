import { createReadStream, existsSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync, ftruncateSync, statSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChainLog, LedgerLogEntry } from '../chain/chain-log.port';
import type { DevnetChain } from '../chain/devnet-chain';
import type { SorobanHost, WorldSnapshot } from '../host/host.port';
import type { DevnetManifest } from '@dob/devnet-manifest';
import type { SeededPool } from '../seeder/seed-devnet';
import { decodeLedgerLogEntry, encodeLedgerLogEntry } from './ledger-log-codec';

/** Snapshot the host every this many ledgers (and on close), so a restart replays at most this many ledgers. */
const SNAPSHOT_EVERY_LEDGERS = 500;

export interface HostSnapshot {
  /** The last ledger whose effects the snapshot contains. */
  readonly ledger: number;
  readonly world: WorldSnapshot;
}

/**
 * File persistence under `<dataDir>/devnet`:
 * - `ledgers.ndjson`: append-only, one closed ledger per line (admin ops, header, applied transactions + events);
 *   streamed line by line on restart to rebuild the history, never loaded as one string;
 * - `world.snapshot.ndjson`: the host's world state after ledger N (header line, then one entry per line),
 *   written atomically (tmp + rename); ledgers after N are re-executed on restart;
 * - `pools.json`: the seeder's pool metadata.
 */
export class ChainStore {
  private fd?: number;
  private host?: SorobanHost;
  private lastSnapshotLedger: number;
  private detach?: () => void;

  private constructor(
    readonly dir: string,
    readonly snapshot: HostSnapshot | undefined,
  ) {
    this.lastSnapshotLedger = snapshot?.ledger ?? 0;
  }

  static async open(dataDir: string): Promise<ChainStore> {
    const dir = join(dataDir, 'devnet');
    mkdirSync(dir, { recursive: true });
    return new ChainStore(dir, await readSnapshot(join(dir, 'world.snapshot.ndjson')));
  }

  private get logPath() {
    return join(this.dir, 'ledgers.ndjson');
  }

  /** Streams the ledger log into the chain; ledgers after the snapshot are re-executed against the host. */
  async restore(chain: DevnetChain): Promise<void> {
    if (!existsSync(this.logPath)) return;
    const snapshotLedger = this.snapshot?.ledger ?? 0;
    let validBytes = 0;
    const lines = createInterface({ input: createReadStream(this.logPath, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.length === 0) continue;
      let entry: LedgerLogEntry;
      try {
        entry = decodeLedgerLogEntry(line);
      } catch {
        break; // a torn last line (crash mid-append): everything after it is dropped below
      }
      chain.restore(entry, entry.ledger.sequence > snapshotLedger);
      validBytes += Buffer.byteLength(line, 'utf8') + 1;
    }
    if (validBytes < statSync(this.logPath).size) {
      const fd = openSync(this.logPath, 'r+');
      ftruncateSync(fd, validBytes);
      closeSync(fd);
    }
    const latest = chain.history.latest()?.sequence ?? 0;
    if (latest < snapshotLedger) throw new Error(`ledger log ends at ${latest} but the host snapshot is at ${snapshotLedger}`);
  }

  readonly log: ChainLog = {
    append: (entry) => {
      this.fd ??= openSync(this.logPath, 'a');
      writeSync(this.fd, encodeLedgerLogEntry(entry) + '\n');
    },
  };

  /** Starts periodic host snapshots (taken right after a close, when no admin op is pending). */
  attach(chain: DevnetChain, host: SorobanHost): void {
    this.host = host;
    this.detach = chain.onLedgerClosed((ledger) => {
      if (ledger.sequence - this.lastSnapshotLedger >= SNAPSHOT_EVERY_LEDGERS) this.writeSnapshot(ledger.sequence);
    });
    this.latestLedger = () => chain.latestLedger().sequence;
  }

  private latestLedger?: () => number;

  private writeSnapshot(ledger: number): void {
    if (!this.host) return;
    if (this.fd !== undefined) fsyncSync(this.fd); // the log must be durable up to the snapshot's ledger
    const world = this.host.serialise();
    const path = join(this.dir, 'world.snapshot.ndjson');
    const tmp = `${path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify({ version: world.version, ledger }) + '\n');
      let chunk = '';
      for (const row of world.entries) {
        chunk += JSON.stringify(row) + '\n';
        if (chunk.length > 1 << 20) {
          writeSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) writeSync(fd, chunk);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    this.lastSnapshotLedger = ledger;
  }

  async readPools(): Promise<SeededPool[]> {
    const path = join(this.dir, 'pools.json');
    if (!existsSync(path)) return [];
    return JSON.parse(await readFile(path, 'utf8')) as SeededPool[];
  }

  async writePools(pools: readonly SeededPool[]): Promise<void> {
    await writeFile(join(this.dir, 'pools.json'), JSON.stringify(pools, null, 2) + '\n');
  }

  /** What apps alone need to follow this devnet (devnet-manifest.ts), for operators and scripts to read. */
  async writeManifest(manifest: DevnetManifest): Promise<void> {
    await writeFile(join(this.dir, 'contracts.json'), JSON.stringify(manifest, null, 2) + '\n');
  }

  async close(): Promise<void> {
    this.detach?.();
    const latest = this.latestLedger?.();
    if (latest !== undefined && latest > this.lastSnapshotLedger) this.writeSnapshot(latest);
    if (this.fd !== undefined) {
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

export const openChainStore = (dataDir: string) => ChainStore.open(dataDir);

async function readSnapshot(path: string): Promise<HostSnapshot | undefined> {
  if (!existsSync(path)) return undefined;
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let header: { version: 1; ledger: number } | undefined;
  const entries: Array<readonly [string, string, number, number | null]> = [];
  for await (const line of lines) {
    if (!line) continue;
    if (!header) header = JSON.parse(line) as { version: 1; ledger: number };
    else entries.push(JSON.parse(line) as readonly [string, string, number, number | null]);
  }
  if (!header) return undefined;
  return { ledger: header.ledger, world: { version: header.version, entries } };
}
