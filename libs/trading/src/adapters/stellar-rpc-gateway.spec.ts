import { createServer, type Server, type Socket } from 'node:net';
import { Keypair, Networks } from '@stellar/stellar-sdk';
import { StellarNetworks } from '../networks/stellar-networks';
import { StellarRpcGateway } from './stellar-rpc-gateway';

/**
 * An RPC that accepts connections and never answers (a frozen node, a network dropping packets) must not hold an
 * agent's request: each call is bounded by the network's rpcTimeoutMs (STELLAR_RPC_TIMEOUT_MS), then 503.
 */
describe('StellarRpcGateway against a silent RPC', () => {
  let silent: Server;
  const held: Socket[] = [];
  let port = 0;

  beforeAll(async () => {
    silent = createServer((socket) => void held.push(socket)); // accepted, never answered
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  const network = (rpcTimeoutMs?: number) =>
    new StellarNetworks([{ id: 9, rpcUrl: `http://127.0.0.1:${port}/rpc`, passphrase: Networks.TESTNET, explorerUrl: 'https://x', rpcTimeoutMs }]).get(9);

  // The gateway, network and key are made before the clock starts: tests compile package imports lazily
  // (scripts/swc-config.js), so the first of them loads stellar-sdk, which under a loaded CI took over a second.
  it('answers NETWORK_UNAVAILABLE (503) once the call has waited rpcTimeoutMs, not later', async () => {
    const [gateway, net, account] = [new StellarRpcGateway(), network(300), Keypair.random().publicKey()];
    const started = Date.now();
    await expect(gateway.accountSequence(net, account)).rejects.toMatchObject({
      code: 'NETWORK_UNAVAILABLE',
      status: 503,
    });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1500);
    expect(held.length).toBeGreaterThan(0); // it did reach the silent server
  });

  it('is bounded by default (1.5 s) when the network does not say', async () => {
    const [gateway, net, account] = [new StellarRpcGateway(), network(), Keypair.random().publicKey()];
    const started = Date.now();
    await expect(gateway.accountSequence(net, account)).rejects.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
