export * from './errors/app-error';
export * from './events/catalog';
export * from './events/index';
export * from './money';
export * from './sale-address';
export * from './json-object';
