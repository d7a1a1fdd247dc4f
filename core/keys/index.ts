export { KeyRing, type AuthedKey, type AuthOutcome } from './key-ring.js';
export { generateKey, digestKey, keyPrefix, newKeyId } from './key-material.js';
export { GroupAccess } from './group-access.js';
export { presentedKey } from './presented-key.js';
export { createKey, describeKey, type CreatedKey } from './key-admin.js';
