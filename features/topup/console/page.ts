// The top-up feature's console pages: Redeem (a user of an account) and Top-up codes (the operator).

import type { PageDef } from '../../../console/src/page-def.js';
import { topupCodesPage } from './codes-page.js';
import { redeemPage } from './redeem-page.js';

export const consolePages: readonly PageDef[] = [redeemPage, topupCodesPage];
