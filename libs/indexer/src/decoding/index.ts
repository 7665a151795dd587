export * from './chain-event';
export * from './contract-identity';
export * from './decoder-context';
export * from './decode-chain-event';
export { DecodeError } from './scval';
