// What the form-taking endpoints (image edits, and features' uploads) accept as a body's content type, and the 415 for
// the rest.

import { GatewayError } from '../errors.js';

/** The media type alone, lower case (`multipart/form-data` of `multipart/form-data; boundary=x`); '' when absent. */
export function mediaTypeOf(contentType: string | undefined): string {
  if (contentType === undefined) return '';
  const end = contentType.indexOf(';');
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/** JSON, or no content type at all (a hand-made request may send none; the SDKs always say JSON). */
export function isJson(mediaType: string): boolean {
  return mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json');
}

export function unsupportedMedia(route: string, mediaType: string, expected: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_UNSUPPORTED_MEDIA', `${route} takes ${expected}, not ${mediaType}.`);
}
