export type { Usage } from './usage.js';
export { ZERO_USAGE } from './usage.js';
export type * from './message.js';
export type * from './request.js';
export type * from './response.js';
export type * from './stream.js';
export { wrapProof, unwrapProof } from './proof-tag.js';
export { imageFromUrl, imageToUrl } from './data-url.js';
