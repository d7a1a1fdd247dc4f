// Volcengine's OpenAPI request signature (HMAC-SHA256, a SigV4 look-alike) for the control plane's POST actions.
// The secret never leaves this file's HMACs: only the Authorization header's signature and the key id go out.

import { createHash, createHmac } from 'node:crypto';

const ALGORITHM = 'HMAC-SHA256';
/** Lower-case and sorted, as the canonical request lists them; content-type is signed so a proxy cannot change it. */
const SIGNED_HEADERS = 'content-type;host;x-content-sha256;x-date';

export interface ControlRequestToSign {
  /** The Host header as sent: with the port when it is not the scheme's default. */
  readonly host: string;
  /** The path as sent, without its query (`/`). */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly contentType: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  readonly service: string;
  readonly date: Date;
}

/** The headers that sign one POST: X-Date, X-Content-Sha256, Content-Type and Authorization (Host is the caller's to send). */
export function signControlRequest(input: ControlRequestToSign): Record<string, string> {
  const xDate = formatXDate(input.date);
  const day = xDate.slice(0, 8);
  const bodyHash = sha256Hex(input.body);
  const contentType = input.contentType.trim().replace(/\s+/g, ' ');
  const canonicalHeaders = `content-type:${contentType}\nhost:${input.host.trim()}\nx-content-sha256:${bodyHash}\nx-date:${xDate}\n`;
  const canonicalRequest = ['POST', input.path, canonicalQuery(input.query), canonicalHeaders, SIGNED_HEADERS, bodyHash].join('\n');
  const scope = `${day}/${input.region}/${input.service}/request`;
  const stringToSign = `${ALGORITHM}\n${xDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac('sha256', signingKey(input.secretAccessKey, day, input.region, input.service)).update(stringToSign).digest('hex');
  return {
    'X-Date': xDate,
    'X-Content-Sha256': bodyHash,
    'Content-Type': input.contentType,
    Authorization: `${ALGORITHM} Credential=${input.accessKeyId}/${scope}, SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`,
  };
}

/** `20260410T120000Z`: ISO 8601 basic format, UTC, whole seconds. */
function formatXDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** Keys sorted by code unit, each key and value percent-encoded per RFC 3986 (encodeURIComponent leaves !'()* bare). */
function canonicalQuery(query: Readonly<Record<string, string>>): string {
  return Object.keys(query)
    .sort()
    .map((key) => `${uriEscape(key)}=${uriEscape(query[key] as string)}`)
    .join('&');
}

function uriEscape(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  const kDate = createHmac('sha256', secret).update(day).digest();
  const kRegion = createHmac('sha256', kDate).update(region).digest();
  const kService = createHmac('sha256', kRegion).update(service).digest();
  return createHmac('sha256', kService).update('request').digest();
}

function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
