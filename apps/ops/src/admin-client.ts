import { positionToString } from '@dob/event-store';
import type { AdminEndpoint } from '@dob/runtime';
import type { Operations, RebuildOutcome } from './operations.port';
import { OpsError } from './ops-context';

/** A plain request's answer; streamed operations are bounded by silence instead (the server beats every 5 s). */
const REQUEST_TIMEOUT_MS = 60_000;
const STREAM_SILENCE_MS = 60_000;

/** The operations performed by the running system that holds the data folder (apps/all admin-server.ts). */
export function connectToRunningSystem(endpoint: AdminEndpoint): Operations {
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(`${endpoint.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${endpoint.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (e) {
      throw new OpsError(`the system holding the data folder (pid ${endpoint.pid}) does not answer at ${endpoint.url}: ${(e as Error).message}`);
    }
    if (!res.ok) {
      const answer = (await res.json().catch(() => ({}))) as { error?: string };
      throw new OpsError(`the running system refused ${method} ${path}: ${res.status} ${answer.error ?? res.statusText}`);
    }
    return res;
  };
  const json = async <T>(method: 'GET' | 'POST', path: string): Promise<T> => (await (await call(method, path)).json()) as T;

  /** Reads NDJSON lines: progress to onProgress, then the result (or the operation's error). */
  const streamed = async <T, P>(path: string, body: unknown, onProgress: (p: P) => void): Promise<T> => {
    const abort = new AbortController();
    let silence = setTimeout(() => abort.abort(), STREAM_SILENCE_MS);
    try {
      const res = await call('POST', path, body, abort.signal);
      let buffered = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(silence);
        silence = setTimeout(() => abort.abort(), STREAM_SILENCE_MS);
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, newline)) as { progress?: P; result?: T; error?: string };
          buffered = buffered.slice(newline + 1);
          if (line.progress) onProgress(line.progress);
          if (line.error !== undefined) throw new OpsError(`the running system reports: ${line.error}`);
          if (line.result !== undefined) return line.result;
        }
      }
      throw new OpsError(`the running system ended ${path} without a result`);
    } catch (e) {
      if (abort.signal.aborted) throw new OpsError(`the running system said nothing for ${STREAM_SILENCE_MS / 1000} s during ${path}`);
      throw e;
    } finally {
      clearTimeout(silence);
      abort.abort(); // ends the response if we stopped reading early
    }
  };

  const projection = (name: string, action: string) => `/projections/${encodeURIComponent(name)}/${action}`;
  return {
    projectionStatus: () => json('GET', '/projections'),
    // The running system's endpoint rebuilds one projection a call: one after another, each switch awaited.
    rebuildAll: async (names, onProgress, onSwitched) => {
      const outcomes: RebuildOutcome[] = [];
      for (const name of names) {
        const outcome: RebuildOutcome = await streamed(projection(name, 'rebuild'), {}, (p: { applied: number; total: number }) => onProgress(name, p));
        onSwitched(name, outcome);
        outcomes.push(outcome);
      }
      return outcomes;
    },
    reset: async (name) => void (await call('POST', projection(name, 'reset'))),
    retry: async (name) => void (await call('POST', projection(name, 'retry'))),
    kafkaStatus: () => json('GET', '/kafka'),
    kafkaReplay: (after, to, onProgress) =>
      streamed('/kafka/replay', { after: positionToString(after), ...(to ? { to: positionToString(to) } : {}) }, onProgress),
  };
}
