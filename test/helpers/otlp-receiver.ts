// A stand-in OpenTelemetry collector on loopback: takes OTLP/HTTP JSON exports (POST /v1/traces) and keeps their
// spans, flattened, with the headers each export came with.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer, recordRequest } from './loopback-http-server.js';

/** An OTLP JSON attribute value: one of these is set (int64 as a number or, per the proto3 JSON mapping, a string). */
interface AnyValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly boolValue?: boolean;
}

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' (or absent in the JSON) for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 2 SERVER, 3 CLIENT, 1 INTERNAL. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** OTLP's status code: 2 ERROR. */
  readonly statusCode: number;
  readonly serviceName: string | undefined;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  status?: { code?: number };
}

interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

function valueOf(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(list: readonly { key: string; value: AnyValue }[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
}

export class OtlpReceiver extends LoopbackHttpServer {
  readonly spans: ReceivedSpan[] = [];
  /** The headers of each export. */
  readonly exports: IncomingMessage['headers'][] = [];
  /** Paths other than POST /v1/traces that were asked for. */
  readonly strays: string[] = [];

  protected override async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await recordRequest(req);
    if (req.method !== 'POST' || recorded.path !== '/v1/traces') {
      this.strays.push(`${req.method} ${recorded.path}`);
      res.writeHead(404).end();
      return;
    }
    this.exports.push(recorded.headers);
    for (const resource of (recorded.body as OtlpExport).resourceSpans ?? []) {
      const serviceName = attributesOf(resource.resource?.attributes)['service.name'];
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            statusCode: span.status?.code ?? 0,
            serviceName: typeof serviceName === 'string' ? serviceName : undefined,
          });
        }
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }
}
