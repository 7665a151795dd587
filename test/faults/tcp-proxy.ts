import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a server, so a test can take "the server" away from the code under test without
 * touching the real one (shared with other tests): `cut()` drops every connection and refuses new ones (a server
 * stopped), `blackhole()` drops the open connections and accepts new ones that are never answered, `silence()` keeps
 * every connection open, old and new, and forwards nothing either way (a server frozen, a network dropping packets:
 * the client sees no error, only no answer), `restore()` forwards again on the same port.
 */
export class TcpProxy {
  private mode: 'forward' | 'refuse' | 'blackhole' | 'silent' = 'forward';
  private readonly open = new Set<Socket>();
  /** Forwarding connections: client → upstream. */
  private readonly pairs = new Map<Socket, Socket>();
  private server: Server | undefined;
  private constructor(
    private readonly target: { host: string; port: number },
    private portNumber: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target, 0);
    await proxy.listen();
    return proxy;
  }

  get port(): number {
    return this.portNumber;
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.portNumber, '127.0.0.1', () => resolve());
    });
    this.portNumber = (server.address() as { port: number }).port;
    this.server = server;
  }

  private accept(client: Socket): void {
    this.open.add(client);
    client.on('close', () => this.open.delete(client));
    client.on('error', () => client.destroy());
    if (this.mode === 'blackhole' || this.mode === 'silent') return; // held open, never answered
    const upstream = connect(this.target.port, this.target.host);
    this.open.add(upstream);
    upstream.on('close', () => {
      this.open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      upstream.destroy();
      this.pairs.delete(client);
    });
    this.pairs.set(client, upstream);
    client.pipe(upstream).pipe(client);
  }

  private dropAll(): void {
    for (const s of this.open) s.destroy();
    this.open.clear();
    this.pairs.clear();
  }

  /** Every connection reset, new ones refused (nothing listens on the port). */
  async cut(): Promise<void> {
    this.mode = 'refuse';
    const server = this.server;
    this.server = undefined;
    this.dropAll();
    if (server) await new Promise((r) => server.close(r));
  }

  /** Every connection dropped; new ones accepted and never answered. */
  async blackhole(): Promise<void> {
    this.dropAll();
    this.mode = 'blackhole';
    if (!this.server) await this.listen();
  }

  /** Every connection kept open, nothing forwarded on any (bytes wait in the sockets' buffers); new ones held too. */
  silence(): void {
    this.mode = 'silent';
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  /** Forwarding again, on the same port (connections held unanswered are dropped: their clients gave up or will). */
  async restore(): Promise<void> {
    if (this.mode === 'blackhole' || this.mode === 'silent') this.dropAll();
    this.mode = 'forward';
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
