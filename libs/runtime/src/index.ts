export * from './app-config';
export * from './data-dir-lock';
export * from './health';
export * from './health-server';
export * from './storage';
export * from './secret-file';
