// Whether a driver error is a unique-constraint violation: better-sqlite3's extended result codes, PostgreSQL's SQLSTATE.

const UNIQUE_VIOLATION_CODES: ReadonlySet<string> = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY', '23505']);

export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || !('code' in err)) return false;
  return typeof err.code === 'string' && UNIQUE_VIOLATION_CODES.has(err.code);
}
