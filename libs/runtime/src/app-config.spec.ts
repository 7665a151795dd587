import { ConfigError, loadAppConfig } from './app-config';

describe('loadAppConfig', () => {
  it('runs on embedded defaults with no env vars', () => {
    const c = loadAppConfig({});
    expect(c).toMatchObject({ PORT: 3000, DEVNET_PORT: 8000, DATA_DIR: './.data' });
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('names the variable that is invalid', () => {
    expect(() => loadAppConfig({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => loadAppConfig({ PORT: '70000' })).toThrow(/PORT/);
    expect(() => loadAppConfig({ DATABASE_URL: 'not a url' })).toThrow(/DATABASE_URL/);
  });

  it('treats an empty URL as unset', () => {
    expect(loadAppConfig({ DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
  });

  it('takes MONGODB_URL for the read models (a mongodb:// URL), unset by default', () => {
    expect(loadAppConfig({}).MONGODB_URL).toBeUndefined();
    expect(loadAppConfig({ MONGODB_URL: 'mongodb://127.0.0.1:27017/dob' }).MONGODB_URL).toBe('mongodb://127.0.0.1:27017/dob');
    expect(() => loadAppConfig({ MONGODB_URL: 'mongo at 27017' })).toThrow(/MONGODB_URL/);
  });
});
