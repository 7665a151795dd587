import type { DevnetWasm } from '@dob/devnet-manifest';
import { WASM_HASHES } from './host/wasm-hashes';

/** The devnet's stand-in hashes for builds whose real wasm hash is not published (served in its manifest). */
export const DEVNET_STAND_IN_WASMS: readonly DevnetWasm[] = [
  { hash: WASM_HASHES.splitter_v1_3, kind: 'splitter', version: '1.3-admin', label: 'devnet splitter V1.3' },
  { hash: WASM_HASHES.splitter_v2, kind: 'splitter', version: '2', label: 'devnet splitter V2' },
  { hash: WASM_HASHES.participation_token, kind: 'participation_token', version: '0.2', label: 'devnet participation token' },
];
