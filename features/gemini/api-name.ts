// The name of Gemini's generateContent API as gateway.yaml writes it (a channel's `formats`, a route's wire).

import type { ApiFormat } from '../../core/config/resolved.js';

export const GEMINI_API: ApiFormat = 'gemini';
