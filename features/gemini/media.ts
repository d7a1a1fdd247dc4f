// Images between Gemini's parts and the IR: inlineData is an inline (base64) image, fileData an image by URL. Other
// media (PDF, audio and the rest) have no place in the IR and are refused by name.

import { GatewayError } from '../../core/errors.js';
import type { JsonObject } from '../../core/formats/field-reader.js';
import { imageFromUrl } from '../../core/ir/data-url.js';
import type { ImagePart, ImageSource } from '../../core/ir/message.js';
import { member } from './lenient-json.js';
import { geminiFields as read, unsupported } from './request-fields.js';

type Json = Record<string, unknown>;

function refuseMedia(param: string, mimeType: string): GatewayError {
  return unsupported(param, `Media of type "${mimeType}" cannot be translated for this model's upstream; only images can.`);
}

/** A client's inlineData part (`value`: the inlineData object). */
export function decodeInlineData(value: unknown, param: string): ImagePart {
  const data = read.object(value, param);
  const mimeType = read.string(member(data, 'mimeType'), `${param}.mimeType`);
  if (!mimeType.startsWith('image/')) throw refuseMedia(`${param}.mimeType`, mimeType);
  return { type: 'image', source: { kind: 'base64', mediaType: mimeType, data: read.string(data['data'], `${param}.data`) } };
}

/** Google's Files API: uploads no other provider can read. */
const FILES_API = /^https:\/\/generativelanguage\.googleapis\.com\/.*\/files\//;

/** A client's fileData part: an image by URL (a mimeType is optional when the URL's name says it). */
export function decodeFileData(value: unknown, param: string): ImagePart {
  const file = read.object(value, param);
  const uri = read.string(member(file, 'fileUri'), `${param}.fileUri`);
  const mimeType = read.optionalString(member(file, 'mimeType'), `${param}.mimeType`) ?? mimeTypeOf(uri);
  if (mimeType === null || !mimeType.startsWith('image/')) throw refuseMedia(`${param}.mimeType`, mimeType ?? 'unknown');
  if (!/^(https?|data):/.test(uri) || FILES_API.test(uri)) {
    throw unsupported(`${param}.fileUri`, `The file "${uri}" is readable by Gemini only; send the image inline (inlineData) or by a public https URL.`);
  }
  return { type: 'image', source: imageFromUrl(uri) };
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
};

/** The image type a URL's file name says, among those Gemini reads; null when it says none. */
export function mimeTypeOf(url: string): string | null {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return null;
  }
  const ext = /\.([a-zA-Z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return ext === undefined ? null : (EXTENSIONS[ext] ?? null);
}

/** An IR image for a Gemini upstream: inline data as inlineData (data: URLs too), a URL as fileData. */
export function encodeImage(source: ImageSource, param: string): Json {
  const inline = source.kind === 'url' ? imageFromUrl(source.url) : source;
  if (inline.kind === 'base64') return { inlineData: { mimeType: inline.mediaType, data: inline.data } };
  const mimeType = mimeTypeOf(inline.url);
  if (mimeType === null) {
    throw unsupported(param, `Gemini needs an image URL's type, and "${inline.url.slice(0, 100)}" names none it reads (.png, .jpg, .webp, .heic, .heif); send the image inline.`);
  }
  return { fileData: { mimeType, fileUri: inline.url } };
}

/** Whether a parsed JSON value is an object (not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
