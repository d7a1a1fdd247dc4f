// The input tokens of a request's images and files, which its body's bytes do not measure (a URL or a file id is a
// few bytes; a form's binary part is no prompt text): a stated budget for each, at least what the providers bill for
// one, so that a reservation covers them. An image: 4,096 tokens (Anthropic bills at most about 1,600 for one, as it
// scales larger ones down; OpenAI's patch-priced models at most 1,536 patches times their multiplier, under 3,800).
// A file or document (a PDF): 100 pages (the most Anthropic and OpenAI take in one) of 5,000 tokens (a page's text,
// up to about 3,000, and its image). Inline data is counted by its bytes as well, so an inline image counts twice:
// the rule errs toward refusing, never toward an overdraft.

/** Input tokens reserved for each image of a request. */
export const IMAGE_INPUT_TOKENS = 4096;
/** Input tokens reserved for each file or document of a request (100 pages x 5,000). */
export const FILE_INPUT_TOKENS = 500_000;

/** Content part types that carry an image: Chat `image_url`, Messages `image`, Responses `input_image`. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(['image_url', 'image', 'input_image']);
/** Content part types that carry a file: Chat `file`, Messages `document`, Responses `input_file`. */
const FILE_TYPES: ReadonlySet<string> = new Set(['file', 'document', 'input_file']);
/** A document whose source is text (or blocks, walked as such) is measured by its bytes like any text. */
const TEXT_SOURCES: ReadonlySet<string> = new Set(['text', 'content']);
/**
 * Where the chat APIs carry content (Chat and Messages `messages`, Responses `input`, Gemini `contents`, in either of
 * the cases Google's parser takes for its system instruction); tools' schemas are not walked.
 */
const CONTENT_FIELDS = ['messages', 'input', 'contents', 'systemInstruction', 'system_instruction'] as const;
/**
 * Gemini's parts carry media in a field, not a type: a file by URI (a PDF, a film) or inline data (an image, or
 * sound, moving pictures, a PDF: any type but an image is budgeted as a file).
 */
const GEMINI_FILE_FIELDS = ['fileData', 'file_data'] as const;
const GEMINI_INLINE_FIELDS = ['inlineData', 'inline_data'] as const;
/** Content nests a few levels (a tool result's blocks); deeper is no content any API takes, and is not walked. */
const MAX_DEPTH = 16;

/** The input tokens budgeted for the images and files in a JSON request's content (its head: structure is exact). */
export function mediaInputTokens(head: Readonly<Record<string, unknown>>): number {
  let tokens = 0;
  for (const field of CONTENT_FIELDS) {
    const content = head[field];
    // A list of content, or one object of it (Gemini's systemInstruction, and a `contents` Google takes unlisted).
    if (typeof content === 'object' && content !== null) tokens += walk(content, 0);
  }
  return tokens;
}

function walk(value: unknown, depth: number): number {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return 0;
  let tokens = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) tokens += walk(value[i], depth + 1);
    return tokens;
  }
  const part = value as Record<string, unknown>;
  const type = part['type'];
  if (typeof type === 'string') {
    if (IMAGE_TYPES.has(type)) return IMAGE_INPUT_TOKENS;
    if (FILE_TYPES.has(type) && !isTextDocument(part)) return FILE_INPUT_TOKENS;
  }
  const gemini = geminiMedia(part);
  if (gemini !== 0) return gemini;
  for (const key in part) tokens += walk(part[key], depth + 1);
  return tokens;
}

function isTextDocument(part: Record<string, unknown>): boolean {
  const source = part['source'];
  if (typeof source !== 'object' || source === null) return false;
  const kind = (source as Record<string, unknown>)['type'];
  return typeof kind === 'string' && TEXT_SOURCES.has(kind);
}

/** A Gemini part's media budget, or 0 when it carries none. */
function geminiMedia(part: Record<string, unknown>): number {
  for (const field of GEMINI_FILE_FIELDS) if (typeof part[field] === 'object' && part[field] !== null) return FILE_INPUT_TOKENS;
  for (const field of GEMINI_INLINE_FIELDS) {
    const inline = part[field];
    if (typeof inline !== 'object' || inline === null) continue;
    const mime = (inline as Record<string, unknown>)['mimeType'] ?? (inline as Record<string, unknown>)['mime_type'];
    return typeof mime === 'string' && mime.startsWith('image/') ? IMAGE_INPUT_TOKENS : FILE_INPUT_TOKENS;
  }
  return 0;
}
