export * from './ed25519';
