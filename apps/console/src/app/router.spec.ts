import { describe, expect, it } from 'vitest';
import { matchPath } from './router';

describe('matchPath', () => {
  it('matches literal segments exactly and ignores trailing slashes', () => {
    expect(matchPath('/api-keys', '/api-keys')).toEqual({});
    expect(matchPath('/api-keys', '/api-keys/')).toEqual({});
    expect(matchPath('/api-keys', '/api-key')).toBeNull();
    expect(matchPath('/api-keys', '/api-keys/extra')).toBeNull();
  });

  it('gives parameters decoded', () => {
    expect(matchPath('/service-accounts/:id', '/service-accounts/svc_abc')).toEqual({ id: 'svc_abc' });
    expect(matchPath('/models/:key/records', '/models/my%20model/records')).toEqual({ key: 'my model' });
  });

  it('refuses a parameter that does not decode', () => {
    expect(matchPath('/models/:key', '/models/%E0%A4%A')).toBeNull();
  });
});
