export type { Usage } from './usage.js';
export { ZERO_USAGE } from './usage.js';
