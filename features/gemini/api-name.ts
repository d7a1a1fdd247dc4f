// The name of Google's Gemini API (generateContent) as a wire: the client format, the codec and the channel type
// all say it, so it is written once.

export const GEMINI_API = 'gemini';
