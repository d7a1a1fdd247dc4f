// Reading an action's body, which the format already checked against its schema (schemas/api/videogen-asset-*).

export type Body = Readonly<Record<string, unknown>>;

/** PageSize when the caller sends none (Volcengine's own default is 10; the gateway documents 20). */
export const DEFAULT_PAGE_SIZE = 20;

export function textOf(body: Body, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

export interface Page {
  readonly number: number;
  readonly size: number;
  readonly offset: number;
}

/** PageNumber from 1, PageSize at most 100 (the schema's bounds). */
export function pageOf(body: Body): Page {
  const number = typeof body['PageNumber'] === 'number' ? body['PageNumber'] : 1;
  const size = typeof body['PageSize'] === 'number' ? body['PageSize'] : DEFAULT_PAGE_SIZE;
  return { number, size, offset: (number - 1) * size };
}
