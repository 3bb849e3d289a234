import fc from 'fast-check';
import { keyScopeOf, messagePk, outboxPk, requestPk } from '../../../src/journal/index.js';

describe('record keys', () => {
  it('give back the scope they were built from, whatever the parts hold', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (tenant, operation, key) => {
        expect(keyScopeOf(requestPk(tenant, operation, key))).toEqual({ kind: 'request', tenant, operation, key });
        expect(keyScopeOf(messagePk(tenant, key))).toEqual({ kind: 'message', consumer: tenant, messageId: key });
      }),
    );
  });

  it('have no scope when they are not a request or message key', () => {
    expect(keyScopeOf(outboxPk('evt-1'))).toBeUndefined();
    expect(keyScopeOf('req#only#two')).toBeUndefined();
    expect(keyScopeOf(`${requestPk('a', 'b', 'c')}#chunk#token#0`)).toBeUndefined();
  });
});
