// The right spelling of a field a caller misspelled: Volcengine's names are PascalCase (`GroupId`), and callers coming
// from other APIs write `group_id`, `GroupID` or `Page`. An unknown field is refused, naming the one meant, rather
// than ignored: an ignored `group_id` would have made the call about no group at all.

/** Lower case without separators: `group_id`, `GroupID` and `groupId` all read `groupid`. */
function folded(name: string): string {
  return name.toLowerCase().replace(/[_\-\s.]/g, '');
}

/** Edit distance, for typos (`GroupIdd`); short names only. */
function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] as number;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] as number;
      previous[j] = Math.min(above + 1, (previous[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length] as number;
}

/** Fields of other APIs' paging, and what Volcengine calls them. */
const SYNONYMS: Readonly<Record<string, string>> = { page: 'PageNumber', pagenum: 'PageNumber', limit: 'PageSize', size: 'PageSize', perpage: 'PageSize', maxresults: 'PageSize', nexttoken: 'PageNumber' };

/** The known field `name` most likely means, or null when none is close. */
export function spellingOf(name: string, known: readonly string[]): string | null {
  const want = folded(name);
  if (want === '') return null;
  const exact = known.find((k) => folded(k) === want);
  if (exact !== undefined) return exact;
  const synonym = SYNONYMS[want];
  if (synonym !== undefined && known.includes(synonym)) return synonym;
  const prefixed = known.find((k) => folded(k).startsWith(want) && want.length >= 3);
  if (prefixed !== undefined) return prefixed;
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = distance(want, folded(k));
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

/** The sentence that refuses an unknown field: the spelling meant, else the fields there are. */
export function unknownFieldMessage(path: string, name: string, known: readonly string[]): string {
  const shown = name.length > 64 ? `${name.slice(0, 64)}...` : name;
  const where = path === '' ? '' : ` in ${path}`;
  const meant = spellingOf(name, known);
  if (meant !== null) return `Unknown field "${shown}"${where}: the field is spelled "${meant}" (Volcengine's field names are PascalCase).`;
  return `Unknown field "${shown}"${where}; the fields here are ${known.join(', ')}.`;
}
