// Upstream error bodies pass through to the client, and some vendors echo the key they were sent ("Incorrect API
// key provided: sk-..."). Before an error body leaves, anything shaped like the channel's own keys (exact match)
// or a common key format is replaced. Successful bodies are never touched: they are the caller's content.

/** Common credential shapes: OpenAI/Anthropic/DeepSeek style, AWS, Google, Groq, xAI, Hugging Face, GitHub, JWTs, bearer tokens. */
const KEY_PATTERNS = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  /\b(?:gsk|hf|ghp|gho|github_pat|xoxb|xoxp)_[A-Za-z0-9_]{16,}/g,
  /\bxai-[A-Za-z0-9]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{16,}/gi,
];

const REDACTED = '[redacted]';
/** Shorter channel keys are not searched for: they would match ordinary words. */
const MIN_KEY_LENGTH = 8;

/** `text` with the channel's keys and key-shaped strings replaced; JSON stays JSON (the stand-in needs no escaping). */
export function scrubSecrets(text: string, channelKeys: readonly string[]): string {
  let out = text;
  for (const key of channelKeys) {
    if (key.length < MIN_KEY_LENGTH) continue;
    out = out.replaceAll(key, REDACTED);
    // As it would stand inside a JSON string (a key with / or " in it is escaped there).
    const escaped = JSON.stringify(key).slice(1, -1);
    if (escaped !== key) out = out.replaceAll(escaped, REDACTED);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, (match, bearer?: unknown) => (typeof bearer === 'string' ? `${bearer}${REDACTED}` : REDACTED));
  return out;
}

/** An upstream error body, scrubbed; the same Buffer when there was nothing to replace. */
export function scrubErrorBody(body: Buffer, channelKeys: readonly string[]): Buffer {
  const text = body.toString('utf8');
  const scrubbed = scrubSecrets(text, channelKeys);
  return scrubbed === text ? body : Buffer.from(scrubbed, 'utf8');
}
