export * from './decoding';
