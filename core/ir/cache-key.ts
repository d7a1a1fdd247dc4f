// The conversation key sent as OpenAI's prompt_cache_key: stable per conversation, and short enough for the API.

import { createHash } from 'node:crypto';

const MAX_LENGTH = 64;

/** Claude Code's metadata.user_id is a JSON string well over 64 characters; a long key is sent as its SHA-256. */
export function promptCacheKey(conversation: string): string {
  return conversation.length <= MAX_LENGTH ? conversation : createHash('sha256').update(conversation).digest('base64url');
}
