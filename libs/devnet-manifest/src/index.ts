export * from './devnet-manifest';
