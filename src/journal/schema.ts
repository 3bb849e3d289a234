/**
 * The journal table's schema: attribute names, record kinds and key builders.
 *
 * Pure constants and string functions only, so the CDK constructs in `lib/` can import
 * them and the deployed table can never drift from what the runtime reads and writes.
 */

/** Partition key attribute of the journal table (string, no sort key). */
export const PARTITION_KEY = 'pk';

/** TTL attribute of the journal table, in epoch seconds. */
export const TTL_ATTRIBUTE = 'expiresAt';

/** Attribute names of an idempotency record. */
export const RecordAttribute = {
  pk: PARTITION_KEY,
  status: 'status',
  fingerprint: 'fingerprint',
  leaseToken: 'leaseToken',
  leaseUntil: 'leaseUntil',
  attempt: 'attempt',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  expiresAt: TTL_ATTRIBUTE,
  response: 'response',
  responseEncoding: 'responseEncoding',
  responseChunks: 'responseChunks',
  evidence: 'evidence',
  effectStarted: 'effectStarted',
  effectName: 'effectName',
  /** ARN of the Lambda durable execution that reserved (or took over) the record. */
  durableExecution: 'durableExecution',
  kind: 'kind',
  /**
   * The outbox events of a record completed by a multi-Region journal (JSON text of
   * `[{ eventId, type, detail, occurredAt }]`): they travel inside the record, and the
   * dispatcher fans them out from its stream image.
   */
  outboxEvents: 'outboxEvents',
} as const;

/** Attribute names of a uniqueness claim item (`uniq#<name>#<value>`). */
export const ClaimAttribute = {
  claimName: 'claimName',
  claimValue: 'claimValue',
  /** The record whose operation holds the claim. */
  claimedBy: 'claimedBy',
  /** The lease token of the attempt holding the claim (`holdUnique`); absent once the claim is permanent. */
  holdToken: 'holdToken',
  /**
   * The `createdAt` (epoch ms) of the record holding the claim: with `claimedBy`, the logical operation it is held for.
   * A key reused after its outcome expired is a new record, so a new operation.
   */
  ownerCreatedAt: 'ownerCreatedAt',
  /**
   * `true` once the holder is about to begin its effect or write its completion: from then on no other operation takes
   * the claim, whatever becomes of the holder's record; only its own operation may take it back or let it go.
   */
  pinned: 'pinned',
} as const;

/** A journal item as DynamoDB holds it, unmarshalled to plain JavaScript values. */
export type JournalItem = Record<string, unknown>;

/** Prefixes of the record kinds that share the journal table. */
export const RecordPrefix = {
  request: 'req#',
  message: 'msg#',
  unique: 'uniq#',
  outbox: 'outbox#',
} as const;

/** The `kind` attribute written on every item, used by stream filters and the dispatcher. */
export const RecordKind = {
  request: 'request',
  message: 'message',
  unique: 'unique',
  outbox: 'outbox',
  chunk: 'chunk',
} as const;

export { RecordStatus } from '../core/index.js';

/**
 * Percent-encodes `%` and `#` so a scope part can never contain the separator.
 *
 * @example encodeKeyPart('a#b') // 'a%23b'
 */
function encodeKeyPart(part: string): string {
  return part.replace(/%/g, '%25').replace(/#/g, '%23');
}

/** Reverses {@link encodeKeyPart}. */
export function decodeKeyPart(part: string): string {
  return part.replace(/%23/g, '#').replace(/%25/g, '%');
}

/**
 * What separates the tenant of Lambda tenant isolation from the rest of a record key's first part:
 * the text `%7C`, which {@link encodeKeyPart} never writes (it escapes every `%` of a part as `%25`),
 * so a key with a Lambda tenant can never equal one without, nor one of another Lambda tenant.
 */
const LAMBDA_TENANT_SEPARATOR = '%7C';

/** A key's first part: the part, behind the invocation's Lambda tenant when the function isolates tenants. */
function firstPart(part: string, lambdaTenant: string | undefined): string {
  const encoded = encodeKeyPart(part);
  return lambdaTenant === undefined ? encoded : `${encodeKeyPart(lambdaTenant)}${LAMBDA_TENANT_SEPARATOR}${encoded}`;
}

/**
 * `req#<tenant>#<operation>#<key>`; under Lambda tenant isolation (`lambdaTenant`, the
 * invocation's `context.tenantId`), `req#<lambdaTenant>%7C<tenant>#<operation>#<key>`.
 *
 * @example requestPk('-', 'POST /pay', 'k1', 'acme') // 'req#acme%7C-#POST /pay#k1'
 */
export function requestPk(tenant: string, operation: string, key: string, lambdaTenant?: string): string {
  return `${RecordPrefix.request}${firstPart(tenant, lambdaTenant)}#${encodeKeyPart(operation)}#${encodeKeyPart(key)}`;
}

/**
 * `msg#<consumer>#<messageId>`; under Lambda tenant isolation,
 * `msg#<lambdaTenant>%7C<consumer>#<messageId>`.
 */
export function messagePk(consumer: string, messageId: string, lambdaTenant?: string): string {
  return `${RecordPrefix.message}${firstPart(consumer, lambdaTenant)}#${encodeKeyPart(messageId)}`;
}

/** `uniq#<name>#<value>` */
export function uniquePk(name: string, value: string): string {
  return `${RecordPrefix.unique}${encodeKeyPart(name)}#${encodeKeyPart(value)}`;
}

/** `outbox#<eventId>` */
export function outboxPk(eventId: string): string {
  return `${RecordPrefix.outbox}${encodeKeyPart(eventId)}`;
}

/**
 * The scope a record key was built from, decoded: what {@link requestPk} or {@link messagePk} were
 * given; `lambdaTenant` only for a function with Lambda tenant isolation.
 */
export type KeyScope =
  | {
      readonly kind: 'request';
      readonly tenant: string;
      readonly operation: string;
      readonly key: string;
      readonly lambdaTenant?: string;
    }
  | { readonly kind: 'message'; readonly consumer: string; readonly messageId: string; readonly lambdaTenant?: string };

/**
 * Reads back the scope of a request or message record's key; undefined for any other key.
 *
 * @example keyScopeOf(requestPk('acme', 'POST /pay', 'k#1')) // { kind: 'request', tenant: 'acme', operation: 'POST /pay', key: 'k#1' }
 */
export function keyScopeOf(pk: string): KeyScope | undefined {
  const parts = (prefix: string, count: number) =>
    pk.startsWith(prefix) && pk.split('#').length === count + 1 ? pk.slice(prefix.length).split('#') : undefined;
  /** The first part, and the Lambda tenant in front of it if there is one. */
  const first = (part: string) => {
    const at = part.indexOf(LAMBDA_TENANT_SEPARATOR);
    if (at < 0) return { part: decodeKeyPart(part) };
    const lambdaTenant = decodeKeyPart(part.slice(0, at));
    return { part: decodeKeyPart(part.slice(at + LAMBDA_TENANT_SEPARATOR.length)), lambdaTenant };
  };
  const request = parts(RecordPrefix.request, 3);
  if (request) {
    const { part: tenant, lambdaTenant } = first(request[0]!);
    const scope = { kind: 'request', tenant, operation: decodeKeyPart(request[1]!), key: decodeKeyPart(request[2]!) };
    return lambdaTenant === undefined ? (scope as KeyScope) : ({ ...scope, lambdaTenant } as KeyScope);
  }
  const message = parts(RecordPrefix.message, 2);
  if (message) {
    const { part: consumer, lambdaTenant } = first(message[0]!);
    const scope = { kind: 'message', consumer, messageId: decodeKeyPart(message[1]!) };
    return lambdaTenant === undefined ? (scope as KeyScope) : ({ ...scope, lambdaTenant } as KeyScope);
  }
  return undefined;
}

/** `<pk>#chunk#<leaseToken>#<index>`: one slice of a response too large for one item. */
export function chunkPk(recordPk: string, leaseToken: string, index: number): string {
  return `${recordPk}#chunk#${leaseToken}#${index}`;
}
