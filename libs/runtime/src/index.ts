export * from './app-config';
export * from './data-dir-lock';
export * from './health';
export * from './storage';
export * from './secret-file';
export * from './secret-fingerprint';
export * from './health-server';
export * from './run-app';
