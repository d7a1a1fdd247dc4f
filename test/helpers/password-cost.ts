// The console's scrypt cost in tests: tests sign in by the hundred, and the limits and answers they check do not
// depend on the cost (test/core/console/password.test.ts checks the product's own).

import type { PasswordCost } from '../../core/console/password.js';

/** N = 2^10: about a millisecond a hash, where the product's takes tens. */
export const TEST_PASSWORD_COST: PasswordCost = { N: 1024, r: 8, p: 1 };
